#include "frota/regularity/departures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <set>
#include <tuple>

#include "frota/geo/haversine.h"

namespace frota::regularity {

namespace {

constexpr double kMetresPerDegree = geo::kEarthRadiusM * std::numbers::pi / 180.0;

// Where a position falls on a pattern: how far along it, and how far off it.
struct Projection {
  double along_m = 0;
  double off_m = std::numeric_limits<double>::infinity();
};

base::LocalDate LocalDateOf(const base::TimeZone& zone, base::Timestamp t) {
  return zone.ToLocalHour(t).date;
}

}  // namespace

// A way a route leaves a terminal: the first choice_m (and a little more) of a shape, or,
// for a trip without a shape, the radial distance from its first stop.
struct DepartureDetector::Pattern {
  std::string id;
  const gtfs::Route* route = nullptr;
  int direction_id = -1;
  double start_lat = 0;
  double start_lon = 0;
  bool radial = false;
  std::vector<gtfs::ShapePoint> points;  // the shape's first part
  std::vector<double> along_m;           // haversine length from the first point

  [[nodiscard]] double DistanceToStart(double lat, double lon) const {
    return geo::HaversineM(start_lat, start_lon, lat, lon);
  }

  // The closest point of the pattern at or beyond `min_along_m`, in a local flat frame
  // around the position (shapes are finely sampled; the error is centimetres). A radial
  // pattern is on wherever the vehicle is: its progress is the distance from the start.
  [[nodiscard]] Projection Project(double lat, double lon, double min_along_m) const {
    if (radial) {
      return {DistanceToStart(lat, lon), 0};
    }
    Projection best;
    const double x_scale = std::cos(lat * std::numbers::pi / 180.0) * kMetresPerDegree;
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
      if (along_m[i + 1] < min_along_m) {
        continue;
      }
      const double ax = (points[i].lon - lon) * x_scale;
      const double ay = (points[i].lat - lat) * kMetresPerDegree;
      const double bx = (points[i + 1].lon - lon) * x_scale;
      const double by = (points[i + 1].lat - lat) * kMetresPerDegree;
      const double dx = bx - ax;
      const double dy = by - ay;
      const double length2 = dx * dx + dy * dy;
      double t = length2 > 0 ? -(ax * dx + ay * dy) / length2 : 0;
      t = std::clamp(t, 0.0, 1.0);
      const double along = along_m[i] + t * (along_m[i + 1] - along_m[i]);
      if (along < min_along_m) {
        continue;
      }
      const double px = ax + t * dx;
      const double py = ay + t * dy;
      const double off = std::sqrt(px * px + py * py);
      if (off < best.off_m) {
        best = {along, off};
      }
    }
    return best;
  }
};

DepartureDetector::DepartureDetector(const gtfs::StaticFeed& feed,
                                     const gtfs::RouteResolver& routes, const base::TimeZone& zone,
                                     DepartureOptions options)
    : routes_(routes), zone_(zone), options_(options) {
  // One pattern per (route, shape), or per (route, direction, first stop) without a shape.
  std::map<std::tuple<const gtfs::Route*, int, std::string>, const Pattern*> seen;
  const double keep_m = options_.choice_m + options_.corridor_m + 500;
  for (const gtfs::Trip& trip : feed.trips()) {
    const gtfs::Route* route = feed.FindRoute(trip.route_id);
    if (route == nullptr) {
      continue;
    }
    const gtfs::Shape* shape = trip.shape_id.empty() ? nullptr : feed.FindShape(trip.shape_id);
    const gtfs::Stop* first_stop = nullptr;
    if (shape == nullptr || shape->points.size() < 2) {
      shape = nullptr;
      if (const auto* first = feed.FindFirstStop(trip.id)) {
        first_stop = feed.FindStop(first->stop_id);
      }
      if (first_stop == nullptr || !std::isfinite(first_stop->lat) ||
          !std::isfinite(first_stop->lon)) {
        continue;
      }
    }
    const auto key = shape != nullptr ? std::make_tuple(route, -2, shape->id)
                                      : std::make_tuple(route, static_cast<int>(trip.direction_id),
                                                        "stops:" + first_stop->id);
    if (const auto it = seen.find(key); it != seen.end()) {
      by_trip_.emplace(trip.id, it->second);
      continue;
    }
    auto pattern = std::make_unique<Pattern>();
    pattern->route = route;
    pattern->direction_id = trip.direction_id;
    if (shape != nullptr) {
      pattern->id = shape->id;
      pattern->start_lat = shape->points.front().lat;
      pattern->start_lon = shape->points.front().lon;
      pattern->points.push_back(shape->points.front());
      pattern->along_m.push_back(0);
      for (std::size_t i = 1; i < shape->points.size() && pattern->along_m.back() < keep_m; ++i) {
        pattern->along_m.push_back(pattern->along_m.back() +
                                   geo::HaversineM(shape->points[i - 1].lat,
                                                   shape->points[i - 1].lon, shape->points[i].lat,
                                                   shape->points[i].lon));
        pattern->points.push_back(shape->points[i]);
      }
    } else {
      pattern->id = std::get<2>(key);
      pattern->radial = true;
      pattern->start_lat = first_stop->lat;
      pattern->start_lon = first_stop->lon;
    }
    seen.emplace(key, pattern.get());
    by_trip_.emplace(trip.id, pattern.get());
    // A radial pattern says nothing of the way a vehicle goes: only a trip tag makes it
    // a candidate, never the route name alone.
    if (!pattern->radial) {
      by_route_[route].push_back(pattern.get());
    }
    patterns_.push_back(std::move(pattern));
  }
}

DepartureDetector::~DepartureDetector() = default;

const std::vector<const DepartureDetector::Pattern*>* DepartureDetector::PatternsOfRoute(
    std::string_view feed_route_id) const {
  if (feed_route_id.empty()) {
    return nullptr;
  }
  const gtfs::Route* route = routes_.Find(feed_route_id);
  const auto it = by_route_.find(route);
  return it == by_route_.end() ? nullptr : &it->second;
}

const DepartureDetector::Pattern* DepartureDetector::PatternOfTrip(std::string_view trip_id) const {
  if (trip_id.empty()) {
    return nullptr;
  }
  const auto it = by_trip_.find(std::string(trip_id));
  return it == by_trip_.end() ? nullptr : it->second;
}

bool DepartureDetector::CanDetect(std::string_view feed_route_id, std::string_view trip_id) const {
  return PatternsOfRoute(feed_route_id) != nullptr ||
         (options_.use_trip_ids && PatternOfTrip(trip_id) != nullptr);
}

void DepartureDetector::AddVehicle(std::string_view feed_id, std::string_view vehicle_id,
                                   std::span<const Fix> fixes, std::vector<Departure>& out) const {
  // The vehicle's trip tags: each distinct (trip, start date), its first position, and
  // whether it has chosen a departure yet.
  struct Tag {
    std::string_view trip_id;
    std::string_view start_date;
    const Pattern* pattern = nullptr;
    std::size_t first = 0;
    bool used = false;
  };
  std::vector<Tag> tags;
  std::vector<int> tag_of(fixes.size(), -1);
  if (options_.use_trip_ids) {
    // As the trips job splits them (semantics §4): a tag's positions more than
    // tag_split apart are two runs, as a frequency-based trip id is used all day.
    struct Open {
      int tag;
      base::Timestamp last;
    };
    std::map<std::pair<std::string_view, std::string_view>, Open> open;
    for (std::size_t k = 0; k < fixes.size(); ++k) {
      if (fixes[k].trip_id.empty()) {
        continue;
      }
      const auto key = std::make_pair(fixes[k].trip_id, fixes[k].trip_start_date);
      auto it = open.find(key);
      if (it == open.end() || fixes[k].time - it->second.last > options_.tag_split) {
        tags.push_back({fixes[k].trip_id, fixes[k].trip_start_date, PatternOfTrip(fixes[k].trip_id),
                        k, false});
        it = open.insert_or_assign(key, Open{static_cast<int>(tags.size() - 1), fixes[k].time})
                 .first;
      }
      it->second.last = fixes[k].time;
      tag_of[k] = it->second.tag;
    }
  }

  // Per pattern: armed (seen within the terminal radius since it last left), the last
  // position there, and blocked (departed from here, not yet rearm_m away).
  struct State {
    bool armed = false;
    bool blocked = false;
    std::size_t last_inside = 0;
    double inside_along_m = 0;  // the last position within the radius, along the pattern
  };
  const double reach_m = options_.choice_m + 500 + 2 * options_.corridor_m;
  std::unordered_map<const Pattern*, State> states;
  std::vector<const Pattern*> candidates;
  std::vector<const Pattern*> previous_candidates;
  std::string_view cached_route;
  const std::vector<const Pattern*>* cached_patterns = nullptr;
  struct Event {
    const Pattern* pattern;
    std::size_t inside;
  };
  std::vector<Event> events;

  for (std::size_t k = 0; k < fixes.size(); ++k) {
    const Fix& fix = fixes[k];
    if (fix.route_id != cached_route || k == 0) {
      cached_route = fix.route_id;
      cached_patterns = PatternsOfRoute(fix.route_id);
    }
    candidates.clear();
    if (cached_patterns != nullptr) {
      candidates = *cached_patterns;
    }
    if (tag_of[k] >= 0) {
      const Pattern* tagged = tags[static_cast<std::size_t>(tag_of[k])].pattern;
      if (tagged != nullptr &&
          std::find(candidates.begin(), candidates.end(), tagged) == candidates.end()) {
        candidates.push_back(tagged);
      }
    }
    if (candidates != previous_candidates) {
      // Another route: what the vehicle did on the previous one does not carry over.
      for (auto& [pattern, state] : states) {
        if (std::find(candidates.begin(), candidates.end(), pattern) == candidates.end()) {
          state = State{};
        }
      }
      previous_candidates = candidates;
    }
    events.clear();
    for (const Pattern* pattern : candidates) {
      State& state = states[pattern];
      const double d = pattern->DistanceToStart(fix.lat, fix.lon);
      if (state.blocked && d > options_.rearm_m) {
        state.blocked = false;
      }
      if (state.blocked) {
        continue;
      }
      const bool inside = d <= options_.terminal_radius_m;
      // Only a position near the pattern's first part can be on it.
      const Projection p = d <= reach_m ? pattern->Project(fix.lat, fix.lon, 0) : Projection{};
      if (state.armed && fix.time - fixes[state.last_inside].time > options_.max_exit_gap) {
        state.armed = false;  // a longer silence hides when it left
      }
      if (!state.armed) {
        if (inside) {
          state = State{true, false, k, p.along_m};
        }
        continue;
      }
      // Progress passes progress_m: this position is that far along the pattern, on it,
      // and the last one within the terminal radius was not (a bus arriving along the
      // pattern's first kilometre backwards is not leaving).
      if (p.off_m <= options_.corridor_m && p.along_m >= options_.progress_m &&
          state.inside_along_m < options_.progress_m) {
        events.push_back({pattern, state.last_inside});
        continue;
      }
      if (inside) {
        state.last_inside = k;
        state.inside_along_m = p.along_m;
      }
    }
    if (events.empty()) {
      continue;
    }

    // Which pattern: the trip tag in force, else the best fit of the next positions.
    const Event* chosen = nullptr;
    int chosen_tag = -1;
    const auto event_of = [&](const Pattern* pattern) -> const Event* {
      for (const Event& e : events) {
        if (e.pattern == pattern) {
          return &e;
        }
      }
      return nullptr;
    };
    if (tag_of[k] >= 0 && !tags[static_cast<std::size_t>(tag_of[k])].used) {
      if (const Event* e = event_of(tags[static_cast<std::size_t>(tag_of[k])].pattern)) {
        chosen = e;
        chosen_tag = tag_of[k];
      }
    }
    if (chosen == nullptr && !tags.empty()) {
      // A tag that starts after the vehicle left: the departure of the window before it.
      const base::Timestamp earliest = fixes[events.front().inside].time;
      for (std::size_t m = k + 1;
           m < fixes.size() && fixes[m].time - earliest <= options_.tag_window; ++m) {
        const int t = tag_of[m];
        if (t < 0 || tags[static_cast<std::size_t>(t)].first != m ||
            tags[static_cast<std::size_t>(t)].used) {
          continue;
        }
        if (const Event* e = event_of(tags[static_cast<std::size_t>(t)].pattern);
            e != nullptr && fixes[m].time - fixes[e->inside].time <= options_.tag_window) {
          chosen = e;
          chosen_tag = t;
          break;
        }
      }
    }
    if (chosen == nullptr) {
      // Geometry: how far along each candidate the next positions go, staying on it, and
      // how closely they follow it.
      double best_along = -1;
      double best_off = std::numeric_limits<double>::infinity();
      for (const Event& e : events) {
        double along = 0;
        double off_sum = 0;
        int n = 0;
        for (std::size_t m = k; m < fixes.size(); ++m) {
          if (fixes[m].time - fix.time > options_.choice_window || along >= options_.choice_m) {
            break;
          }
          const Projection p =
              e.pattern->Project(fixes[m].lat, fixes[m].lon, std::max(0.0, along - 100));
          if (p.off_m > options_.corridor_m) {
            break;
          }
          along = std::max(along, std::min(p.along_m, options_.choice_m));
          off_sum += p.off_m;
          ++n;
        }
        const double mean_off = n > 0 ? off_sum / n : std::numeric_limits<double>::infinity();
        // Farthest along first, then a shape before a radial pattern, then the closest.
        const bool better =
            chosen == nullptr || along > best_along + 1 ||
            (std::abs(along - best_along) <= 1 &&
             (std::make_tuple(e.pattern->radial, mean_off, e.pattern->direction_id,
                              std::string_view(e.pattern->id)) <
              std::make_tuple(chosen->pattern->radial, best_off, chosen->pattern->direction_id,
                              std::string_view(chosen->pattern->id))));
        if (better) {
          chosen = &e;
          best_along = along;
          best_off = mean_off;
        }
      }
    }

    const Fix& inside = fixes[chosen->inside];
    const Pattern& pattern = *chosen->pattern;
    Departure d;
    d.feed_id = feed_id;
    d.vehicle_id = vehicle_id;
    d.feed_route_id = inside.route_id.empty() ? fix.route_id : inside.route_id;
    d.route_id = pattern.route->id;
    d.direction_id = pattern.direction_id;
    d.shape_id = pattern.id;
    d.departure_time = inside.time;
    d.distance_m = pattern.DistanceToStart(inside.lat, inside.lon);
    d.service_date = LocalDateOf(zone_, inside.time);
    d.inferred = chosen_tag < 0;
    if (chosen_tag >= 0) {
      Tag& tag = tags[static_cast<std::size_t>(chosen_tag)];
      tag.used = true;
      d.trip_id = tag.trip_id;
      d.trip_start_date = tag.start_date;
      if (const auto date = base::ParseDate(tag.start_date)) {
        d.service_date = *date;
      }
      const Fix& first = fixes[tag.first];
      d.tagged_late = pattern.DistanceToStart(first.lat, first.lon) > options_.terminal_radius_m;
    }
    out.push_back(std::move(d));
    // Every pattern leaving this terminal is left now.
    for (const Pattern* other : candidates) {
      if (geo::HaversineM(other->start_lat, other->start_lon, pattern.start_lat,
                          pattern.start_lon) <= options_.terminal_radius_m) {
        states[other] = State{false, true, 0, 0};
      }
    }
  }
}

}  // namespace frota::regularity
