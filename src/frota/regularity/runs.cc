#include "frota/regularity/runs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <set>
#include <string_view>
#include <utility>

#include "frota/geo/haversine.h"

namespace frota::regularity {

namespace {

constexpr double kMetresPerDegree = geo::kEarthRadiusM * std::numbers::pi / 180.0;

// The positions (indices into the vehicle's fixes) of one tag run.
struct TagRun {
  std::string_view trip_id;
  std::string_view start_date;
  std::vector<std::size_t> fixes;
};

std::vector<TagRun> TagRuns(std::span<const Fix> fixes, std::chrono::seconds gap) {
  std::vector<TagRun> runs;
  std::map<std::pair<std::string_view, std::string_view>, std::size_t> open;
  for (std::size_t i = 0; i < fixes.size(); ++i) {
    const Fix& fix = fixes[i];
    if (fix.trip_id.empty()) {
      continue;
    }
    const auto key = std::make_pair(fix.trip_id, fix.trip_start_date);
    auto it = open.find(key);
    if (it == open.end() || fix.time - fixes[runs[it->second].fixes.back()].time > gap) {
      runs.push_back({fix.trip_id, fix.trip_start_date, {}});
      it = open.insert_or_assign(key, runs.size() - 1).first;
    }
    runs[it->second].fixes.push_back(i);
  }
  return runs;
}

// Whether (lat, lon) lies within `radius_m` of the shape's line, in a local flat frame
// around the position (as the detector projects). A segment whose both ends lie beyond
// the radius on one side, north-south or east-west, is skipped unmeasured.
bool NearShape(const gtfs::Shape& shape, double lat, double lon, double radius_m) {
  const double x_scale = std::cos(lat * std::numbers::pi / 180.0) * kMetresPerDegree;
  const double radius2 = radius_m * radius_m;
  // A one-point shape is one segment of length zero.
  const std::size_t n = shape.points.size();
  const std::size_t segments = std::max<std::size_t>(n, 2) - 1;
  for (std::size_t i = 0; i < segments; ++i) {
    const gtfs::ShapePoint& a = shape.points[i];
    const gtfs::ShapePoint& b = shape.points[std::min(i + 1, n - 1)];
    const double ax = (a.lon - lon) * x_scale;
    const double ay = (a.lat - lat) * kMetresPerDegree;
    const double bx = (b.lon - lon) * x_scale;
    const double by = (b.lat - lat) * kMetresPerDegree;
    if ((ax > radius_m && bx > radius_m) || (ax < -radius_m && bx < -radius_m) ||
        (ay > radius_m && by > radius_m) || (ay < -radius_m && by < -radius_m)) {
      continue;
    }
    const double dx = bx - ax;
    const double dy = by - ay;
    const double length2 = dx * dx + dy * dy;
    const double t = length2 > 0 ? std::clamp(-(ax * dx + ay * dy) / length2, 0.0, 1.0) : 0;
    const double px = ax + t * dx;
    const double py = ay + t * dy;
    if (px * px + py * py <= radius2) {
      return true;
    }
  }
  return false;
}

std::int64_t MinuteOf(base::Timestamp t) {
  const std::int64_t us = base::ToUnixMicros(t);
  constexpr std::int64_t kMinuteUs = 60'000'000;
  return us >= 0 ? us / kMinuteUs : -((-us + kMinuteUs - 1) / kMinuteUs);
}

// Which departures may start a piece of a tag run: each departure once, of the run
// holding the vehicle's position at it (or its next one, after a hidden departure).
struct Claims {
  std::vector<int> run_of;  // per fix: its tag run, -1 when untagged
  std::set<const Departure*> used;
  [[nodiscard]] int RunAt(std::span<const Fix> fixes, base::Timestamp t) const {
    const auto it = std::lower_bound(fixes.begin(), fixes.end(), t,
                                     [](const Fix& f, base::Timestamp x) { return f.time < x; });
    return it == fixes.end() ? -1 : run_of[static_cast<std::size_t>(it - fixes.begin())];
  }
};

// Where each piece of tag run `index` starts: the first at its first position, the others
// at their departures, each with the departure it belongs to (null: none).
std::vector<std::pair<base::Timestamp, const Departure*>> PieceStarts(
    const TagRun& run, int index, std::span<const Fix> fixes,
    const std::vector<const Departure*>& sorted, const RunOptions& options, Claims& claims) {
  const base::Timestamp first = fixes[run.fixes.front()].time;
  const base::Timestamp last = fixes[run.fixes.back()].time;
  const auto own_tag = [&](const Departure& d) {
    return d.trip_id == run.trip_id && d.trip_start_date == run.start_date;
  };
  const Departure* owner = nullptr;
  std::vector<const Departure*> splitters;
  for (const Departure* d : sorted) {
    if (claims.used.contains(d)) {
      continue;
    }
    if (d->departure_time < first) {
      if (own_tag(*d) && first - d->departure_time <= options.tag_window) {
        owner = d;  // the tag started after the vehicle left
      }
    } else if (d->departure_time <= last &&
               (own_tag(*d) ||
                (d->trip_id.empty() && claims.RunAt(fixes, d->departure_time) == index))) {
      splitters.push_back(d);
    }
  }
  std::vector<std::pair<base::Timestamp, const Departure*>> starts;
  std::size_t next = 0;
  if (owner != nullptr) {
    starts.emplace_back(first, owner);
  } else if (!splitters.empty()) {
    starts.emplace_back(first, splitters[next++]);
  } else {
    starts.emplace_back(first, nullptr);
  }
  for (; next < splitters.size(); ++next) {
    starts.emplace_back(splitters[next]->departure_time, splitters[next]);
  }
  for (const auto& [time, d] : starts) {
    if (d != nullptr) {
      claims.used.insert(d);
    }
  }
  return starts;
}

// The trip's pattern (its departure's, else its tag's trip's): route and direction into
// `trip`, its shape returned (null when none or unknown).
const gtfs::Shape* PatternOf(const DepartureDetector& detector, RunTrip& trip) {
  if (trip.departure) {
    trip.route_id = trip.departure->route_id;
    trip.direction_id = trip.departure->direction_id;
    return detector.ShapeOfPattern(trip.departure->shape_id);
  }
  if (const auto pattern = detector.PatternOfTripId(trip.trip_id)) {
    trip.route_id = pattern->route->id;
    trip.direction_id = pattern->direction_id;
    return pattern->shape;
  }
  return nullptr;
}

// The positions of a piece that make the trip: from its departure (the wait at the
// terminal before it is no trip's) to its arrival, the first position within
// completed_radius_m of the shape's last point after one farther from it (the layover
// after it is no trip's). Without an arrival the trip runs to the piece's end.
std::span<const std::size_t> TripOfPiece(std::span<const Fix> fixes,
                                         std::span<const std::size_t> piece,
                                         const std::optional<Departure>& departure,
                                         const gtfs::Shape* shape, const RunOptions& options,
                                         bool& arrived) {
  std::size_t begin = 0;
  if (departure) {
    while (begin < piece.size() && fixes[piece[begin]].time < departure->departure_time) {
      ++begin;
    }
    if (begin == piece.size()) {
      begin = 0;  // the departure's position carried no tag of this run
    }
  }
  std::size_t end = piece.size();
  arrived = false;
  if (shape != nullptr && !shape->points.empty()) {
    const gtfs::ShapePoint& last = shape->points.back();
    bool away = false;
    for (std::size_t i = begin; i < piece.size(); ++i) {
      const Fix& fix = fixes[piece[i]];
      const bool there =
          geo::HaversineM(last.lat, last.lon, fix.lat, fix.lon) <= options.completed_radius_m;
      if (there && away) {
        end = i + 1;
        arrived = true;
        break;
      }
      away = away || !there;
    }
  }
  return piece.subspan(begin, end - begin);
}

// The measures of Rio's trip validation over the trip's positions.
void Judge(std::span<const Fix> fixes, std::span<const std::size_t> positions,
           const gtfs::Shape* shape, bool arrived, const RunOptions& options, RunTrip& trip) {
  std::int64_t minutes_with = 0;
  std::int64_t last_minute = std::numeric_limits<std::int64_t>::min();
  for (const std::size_t i : positions) {
    const std::int64_t minute = MinuteOf(fixes[i].time);
    minutes_with += minute != last_minute ? 1 : 0;
    last_minute = minute;
  }
  const std::int64_t span = MinuteOf(trip.last_time) - MinuteOf(trip.first_time) + 1;
  trip.minute_share = static_cast<double>(minutes_with) / static_cast<double>(span);
  if (shape == nullptr || shape->points.empty()) {
    return;
  }
  std::int64_t on_shape = 0;
  for (const std::size_t i : positions) {
    on_shape += NearShape(*shape, fixes[i].lat, fixes[i].lon, options.shape_radius_m) ? 1 : 0;
  }
  trip.completed = arrived;
  trip.shape_share = static_cast<double>(on_shape) / static_cast<double>(positions.size());
  trip.conforming = *trip.shape_share >= options.conforming_shape_share &&
                    *trip.minute_share >= options.conforming_minute_share;
}

}  // namespace

std::vector<RunTrip> SplitRuns(const DepartureDetector& detector, std::string_view feed_id,
                               std::string_view vehicle_id, std::span<const Fix> fixes,
                               std::span<const Departure> departures, const RunOptions& options) {
  std::vector<const Departure*> sorted;
  sorted.reserve(departures.size());
  for (const Departure& d : departures) {
    sorted.push_back(&d);
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const Departure* a, const Departure* b) {
    return a->departure_time < b->departure_time;
  });
  std::vector<RunTrip> out;
  const std::vector<TagRun> runs = TagRuns(fixes, options.tag_gap);
  Claims claims;
  claims.run_of.assign(fixes.size(), -1);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    for (const std::size_t i : runs[r].fixes) {
      claims.run_of[i] = static_cast<int>(r);
    }
  }
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const TagRun& run = runs[r];
    const auto starts = PieceStarts(run, static_cast<int>(r), fixes, sorted, options, claims);
    std::size_t at = 0;
    for (std::size_t k = 0; k < starts.size(); ++k) {
      const std::size_t begin = at;
      while (at < run.fixes.size() &&
             (k + 1 == starts.size() || fixes[run.fixes[at]].time < starts[k + 1].first)) {
        ++at;
      }
      if (at == begin) {
        continue;  // no position of the run between two departures
      }
      const std::span<const std::size_t> piece(run.fixes.data() + begin, at - begin);
      RunTrip trip;
      trip.feed_id = feed_id;
      trip.vehicle_id = vehicle_id;
      trip.trip_id = run.trip_id;
      trip.trip_start_date = run.start_date;
      if (starts[k].second != nullptr) {
        trip.departure = *starts[k].second;
      }
      const gtfs::Shape* shape = PatternOf(detector, trip);
      bool arrived = false;
      const auto positions = TripOfPiece(fixes, piece, trip.departure, shape, options, arrived);
      trip.first_time = fixes[positions.front()].time;
      trip.last_time = fixes[positions.back()].time;
      trip.positions = static_cast<std::int64_t>(positions.size());
      for (std::size_t j = 1; j < positions.size(); ++j) {
        const Fix& a = fixes[positions[j - 1]];
        const Fix& b = fixes[positions[j]];
        trip.distance_m += geo::HaversineM(a.lat, a.lon, b.lat, b.lon);
      }
      Judge(fixes, positions, shape, arrived, options, trip);
      out.push_back(std::move(trip));
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RunTrip& a, const RunTrip& b) { return a.first_time < b.first_time; });
  return out;
}

}  // namespace frota::regularity
