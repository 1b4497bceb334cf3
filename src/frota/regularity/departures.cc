#include "frota/regularity/departures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numbers>
#include <optional>
#include <set>
#include <tuple>

#include "frota/geo/haversine.h"
#include "frota/regularity/state_bytes.h"

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
  int index = 0;  // in DepartureDetector::patterns_
  const gtfs::Route* route = nullptr;
  int direction_id = -1;
  double start_lat = 0;
  double start_lon = 0;
  bool radial = false;
  std::vector<gtfs::ShapePoint> points;  // the shape's first part
  std::vector<double> along_m;           // haversine length from the first point
  const gtfs::Shape* shape = nullptr;    // the whole shape; null for a radial pattern

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
      pattern->shape = shape;
      shapes_.emplace(shape->id, shape);
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
    pattern->index = static_cast<int>(patterns_.size());
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

const gtfs::Shape* DepartureDetector::ShapeOfPattern(std::string_view pattern_id) const {
  const auto it = shapes_.find(pattern_id);
  return it == shapes_.end() ? nullptr : it->second;
}

std::optional<DepartureDetector::TripPattern> DepartureDetector::PatternOfTripId(
    std::string_view trip_id) const {
  const Pattern* pattern = PatternOfTrip(trip_id);
  if (pattern == nullptr) {
    return std::nullopt;
  }
  return TripPattern{pattern->route, pattern->direction_id, pattern->shape};
}

bool DepartureDetector::CanDetect(std::string_view feed_route_id, std::string_view trip_id) const {
  return PatternsOfRoute(feed_route_id) != nullptr ||
         (options_.use_trip_ids && PatternOfTrip(trip_id) != nullptr);
}

void DepartureDetector::AddVehicle(std::string_view feed_id, std::string_view vehicle_id,
                                   std::span<const Fix> fixes, std::vector<Departure>& out) const {
  VehicleTrack track(*this, std::string(feed_id), std::string(vehicle_id));
  for (const Fix& fix : fixes) {
    track.Add(fix);
  }
  track.Advance(base::Timestamp::max(), out);
}

// The rule of AddVehicle over positions that arrive: the trip tags (each run of a
// (trip, start date) of the vehicle, split as the trips job splits trips, chooses at most
// one departure) and, per pattern, whether the vehicle is armed (seen within the terminal
// radius since it last left), its last position there, and whether it is blocked
// (departed from here, not yet rearm_m away). Positions carry absolute indices; the
// deques hold those from `base` on.
struct VehicleTrack::State {
  using Pattern = DepartureDetector::Pattern;
  struct Tag {
    std::string_view trip_id;
    std::string_view start_date;
    const Pattern* pattern = nullptr;
    std::int64_t first = 0;  // its first position
    double first_lat = 0;
    double first_lon = 0;
    bool used = false;  // it chose a departure
  };
  struct Open {
    int tag = 0;
    base::Timestamp last;
  };
  struct PatternState {
    bool armed = false;
    bool blocked = false;
    std::int64_t last_inside = 0;
    double inside_along_m = 0;  // the last position within the radius, along the pattern
  };

  const DepartureDetector* detector = nullptr;
  std::string feed_id;
  std::string vehicle_id;
  std::deque<Fix> fixes;    // time order
  std::deque<int> tag_of;   // per fix: its tag, -1 for none (known from `tagged` on)
  std::int64_t base = 0;    // the absolute index of fixes.front()
  std::int64_t tagged = 0;  // fixes before it have their tag
  std::int64_t next = 0;    // the next fix the rule reads
  std::map<int, Tag> tags;
  int next_tag = 0;
  std::map<std::pair<std::string_view, std::string_view>, Open> open;  // a tag's current run
  std::map<int, PatternState> states;                                  // by pattern index
  std::vector<int> previous_candidates;
  // The last position the rule read: its time, and the pattern of the last trip tag read
  // (-1: none). Unknown (`read_any` false) in a state saved before version 2.
  bool read_any = false;
  base::Timestamp last_read;
  int last_tag_pattern = -1;

  [[nodiscard]] const Fix& At(std::int64_t i) const {
    return fixes[static_cast<std::size_t>(i - base)];
  }
  [[nodiscard]] int TagOf(std::int64_t i) const {
    return tag_of[static_cast<std::size_t>(i - base)];
  }
  [[nodiscard]] std::int64_t End() const { return base + static_cast<std::int64_t>(fixes.size()); }

  void AssignTag(std::int64_t k);
  void Process(std::int64_t k, std::vector<Departure>& out);
  // Whether a position in the choice_window after position k lies within the terminal
  // radius of `pattern` and (rearm_m - terminal_radius_m) nearer its first point.
  [[nodiscard]] bool ComesBackTo(const Pattern& pattern, std::int64_t k) const;
  void Forget();
};

VehicleTrack::VehicleTrack(const DepartureDetector& detector, std::string feed_id,
                           std::string vehicle_id)
    : s_(std::make_unique<State>()) {
  s_->detector = &detector;
  s_->feed_id = std::move(feed_id);
  s_->vehicle_id = std::move(vehicle_id);
}
VehicleTrack::~VehicleTrack() = default;
VehicleTrack::VehicleTrack(VehicleTrack&&) noexcept = default;
VehicleTrack& VehicleTrack::operator=(VehicleTrack&&) noexcept = default;

std::size_t VehicleTrack::kept() const { return s_->fixes.size(); }

void VehicleTrack::Add(const Fix& fix) {
  State& s = *s_;
  // After every position already read (the caller's promise), in time order.
  const auto from =
      s.fixes.begin() + static_cast<std::ptrdiff_t>(std::max(s.tagged, s.next) - s.base);
  const auto at = std::upper_bound(from, s.fixes.end(), fix.time,
                                   [](base::Timestamp t, const Fix& f) { return t < f.time; });
  const auto offset = at - s.fixes.begin();
  s.fixes.insert(at, fix);
  s.tag_of.insert(s.tag_of.begin() + offset, -1);
}

void VehicleTrack::State::AssignTag(std::int64_t k) {
  const Fix& fix = At(k);
  int& tag = tag_of[static_cast<std::size_t>(k - base)];
  tag = -1;
  if (!detector->options_.use_trip_ids || fix.trip_id.empty()) {
    return;
  }
  const auto key = std::make_pair(fix.trip_id, fix.trip_start_date);
  auto it = open.find(key);
  if (it == open.end() || fix.time - it->second.last > detector->options_.tag_split) {
    const int id = next_tag++;
    tags[id] = Tag{
        fix.trip_id, fix.trip_start_date, detector->PatternOfTrip(fix.trip_id), k, fix.lat, fix.lon,
        false};
    it = open.insert_or_assign(key, Open{id, fix.time}).first;
  }
  it->second.last = fix.time;
  tag = it->second.tag;
}

void VehicleTrack::Advance(base::Timestamp known_until, std::vector<Departure>& out) {
  State& s = *s_;
  const DepartureOptions& options = s.detector->options_;
  while (s.tagged < s.End() && s.At(s.tagged).time < known_until) {
    s.AssignTag(s.tagged++);
  }
  // A position is read once every position its look-ahead reads has arrived.
  const auto look_ahead = std::max(options.tag_window, options.choice_window);
  const bool all = known_until == base::Timestamp::max();
  while (s.next < s.tagged && (all || s.At(s.next).time < known_until - look_ahead)) {
    s.Process(s.next++, out);
  }
  s.Forget();
}

void VehicleTrack::State::Forget() {
  // Nothing reads a position before `next` again but an armed pattern's last one inside.
  std::int64_t keep = next;
  for (const auto& [index, state] : states) {
    if (state.armed) {
      keep = std::min(keep, state.last_inside);
    }
  }
  while (base < keep) {
    fixes.pop_front();
    tag_of.pop_front();
    ++base;
  }
  // A run whose last position is more than tag_split before the last tagged one ends:
  // its tag's next position starts a new run whatever the entry says.
  if (tagged > base) {
    const base::Timestamp last = At(tagged - 1).time;
    std::erase_if(open, [&](const auto& entry) {
      return last - entry.second.last > detector->options_.tag_split;
    });
  }
  std::set<int> used;
  for (std::int64_t i = base; i < tagged; ++i) {
    if (TagOf(i) >= 0) {
      used.insert(TagOf(i));
    }
  }
  for (const auto& [key, run] : open) {
    used.insert(run.tag);
  }
  std::erase_if(tags, [&](const auto& entry) { return !used.contains(entry.first); });
}

void VehicleTrack::State::Process(std::int64_t k, std::vector<Departure>& out) {
  const DepartureOptions& options = detector->options_;
  const double reach_m = options.choice_m + 500 + 2 * options.corridor_m;
  const Fix& fix = At(k);
  std::vector<const Pattern*> candidates;
  if (const auto* patterns = detector->PatternsOfRoute(fix.route_id)) {
    candidates = *patterns;
  }
  const int fix_tag = TagOf(k);
  // Silent for longer than the exit gap before this position: a departure may lie in it.
  const bool after_silence = read_any && fix.time - last_read > options.max_exit_gap;
  const int tag_pattern_before = last_tag_pattern;
  read_any = true;
  last_read = fix.time;
  if (fix_tag >= 0 && tags.at(fix_tag).pattern != nullptr) {
    last_tag_pattern = tags.at(fix_tag).pattern->index;
    if (after_silence && last_tag_pattern != tag_pattern_before) {
      // Back from a silence on a trip of another pattern: it has been away from the
      // terminals it left, whatever its positions showed.
      for (auto& [index, state] : states) {
        state.blocked = false;
      }
    }
  }
  if (fix_tag >= 0) {
    const Pattern* tagged_pattern = tags.at(fix_tag).pattern;
    if (tagged_pattern != nullptr &&
        std::find(candidates.begin(), candidates.end(), tagged_pattern) == candidates.end()) {
      candidates.push_back(tagged_pattern);
    }
  }
  std::vector<int> indices;
  indices.reserve(candidates.size());
  for (const Pattern* pattern : candidates) {
    indices.push_back(pattern->index);
  }
  if (indices != previous_candidates) {
    // Another route: what the vehicle did on the previous one does not carry over.
    for (auto& [index, state] : states) {
      if (std::find(indices.begin(), indices.end(), index) == indices.end()) {
        state = PatternState{};
      }
    }
    previous_candidates = indices;
  }
  struct Event {
    const Pattern* pattern;
    std::int64_t inside;
    bool hidden;  // a silence longer than max_exit_gap lies between `inside` and now
  };
  std::vector<Event> events;
  for (const Pattern* pattern : candidates) {
    PatternState& state = states[pattern->index];
    const double d = pattern->DistanceToStart(fix.lat, fix.lon);
    if (state.blocked && d > options.rearm_m) {
      state.blocked = false;
    }
    if (state.blocked) {
      continue;
    }
    const bool inside = d <= options.terminal_radius_m;
    // Only a position near the pattern's first part can be on it.
    const Projection p = d <= reach_m ? pattern->Project(fix.lat, fix.lon, 0) : Projection{};
    const bool on_past_progress = p.off_m <= options.corridor_m && p.along_m >= options.progress_m;
    // Beyond the pattern's first part the geometry cannot place a position (the detector
    // keeps only that part): there a trip tag of the pattern says the vehicle is out on it.
    // Nearer, the geometry decides (a bus tagged at a turnaround off the pattern has not
    // left).
    const bool tagged_here = fix_tag >= 0 && tags.at(fix_tag).pattern == pattern;
    const bool beyond_kept =
        d > reach_m || (!pattern->along_m.empty() && p.off_m > options.corridor_m &&
                        p.along_m >= pattern->along_m.back() - options.corridor_m);
    const bool tagged_out = tagged_here && d > options.terminal_radius_m && beyond_kept;
    const bool left = on_past_progress || tagged_out;
    if (state.armed && fix.time - At(state.last_inside).time > options.max_exit_gap) {
      // A longer silence hides when it left: a hidden departure if it is now out on the
      // pattern, else the terminal is watched afresh.
      if (left && state.inside_along_m < options.progress_m) {
        events.push_back({pattern, state.last_inside, true});
        continue;
      }
      state.armed = false;
    }
    if (!state.armed) {
      if (inside) {
        state = PatternState{true, false, k, p.along_m};
      } else if (after_silence && left && tagged_here && tags.at(fix_tag).first == k &&
                 !tags.at(fix_tag).used && tag_pattern_before != pattern->index) {
        // Its silence began before it reached this terminal (nothing armed it) and it
        // comes back out on the pattern with a new trip of it: it left unseen.
        events.push_back({pattern, k, true});
      }
      continue;
    }
    // Progress passes progress_m: this position is that far along the pattern, on it,
    // and the last one within the terminal radius was not (a bus arriving along the
    // pattern's first kilometre backwards is not leaving).
    if (on_past_progress && state.inside_along_m < options.progress_m) {
      events.push_back({pattern, state.last_inside, false});
      continue;
    }
    if (inside) {
      state.last_inside = k;
      state.inside_along_m = p.along_m;
    }
  }
  if (events.empty()) {
    return;
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
  if (fix_tag >= 0 && !tags.at(fix_tag).used) {
    if (const Event* e = event_of(tags.at(fix_tag).pattern)) {
      chosen = e;
      chosen_tag = fix_tag;
    }
  }
  if (chosen == nullptr && !tags.empty()) {
    // A tag that starts after the vehicle left: the departure of the window before it.
    const base::Timestamp earliest = At(events.front().inside).time;
    for (std::int64_t m = k + 1; m < tagged && At(m).time - earliest <= options.tag_window; ++m) {
      const int t = TagOf(m);
      if (t < 0 || tags.at(t).first != m || tags.at(t).used) {
        continue;
      }
      if (const Event* e = event_of(tags.at(t).pattern);
          e != nullptr && At(m).time - At(e->inside).time <= options.tag_window) {
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
      for (std::int64_t m = k; m < End(); ++m) {
        if (At(m).time - fix.time > options.choice_window || along >= options.choice_m) {
          break;
        }
        const Projection p = e.pattern->Project(At(m).lat, At(m).lon, std::max(0.0, along - 100));
        if (p.off_m > options.corridor_m) {
          break;
        }
        along = std::max(along, std::min(p.along_m, options.choice_m));
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

  const Fix& inside = At(chosen->inside);
  const Pattern& pattern = *chosen->pattern;
  Departure d;
  d.feed_id = feed_id;
  d.vehicle_id = vehicle_id;
  d.feed_route_id = inside.route_id.empty() ? fix.route_id : inside.route_id;
  d.route_id = pattern.route->id;
  d.direction_id = pattern.direction_id;
  d.shape_id = pattern.id;
  // A hidden departure is placed max_exit_gap before the position that shows it out: late
  // enough that nothing after it is final yet (Stream::Horizon), early enough that the
  // line's headways across the silence are left out.
  d.departure_time = chosen->hidden ? fix.time - options.max_exit_gap : inside.time;
  d.hidden = chosen->hidden;
  d.distance_m = pattern.DistanceToStart(inside.lat, inside.lon);
  d.service_date = LocalDateOf(detector->zone_, d.departure_time);
  d.inferred = chosen_tag < 0;
  if (chosen_tag >= 0) {
    Tag& tag = tags.at(chosen_tag);
    tag.used = true;
    d.trip_id = tag.trip_id;
    d.trip_start_date = tag.start_date;
    if (const auto date = base::ParseDate(tag.start_date)) {
      d.service_date = *date;
    }
    d.tagged_late =
        pattern.DistanceToStart(tag.first_lat, tag.first_lon) > options.terminal_radius_m;
  }
  out.push_back(std::move(d));
  // Every pattern leaving this terminal is left now: disarmed until the vehicle is
  // rearm_m away from it. A hidden departure's position says the vehicle left, not which
  // way it is going now: when its next positions come back into the terminal, well
  // inside (by the same margin as rearm_m beyond), it was coming in, and the terminal is
  // watched afresh.
  const bool coming_in = chosen->hidden && ComesBackTo(pattern, k);
  for (const Pattern* other : candidates) {
    if (geo::HaversineM(other->start_lat, other->start_lon, pattern.start_lat, pattern.start_lon) <=
        options.terminal_radius_m) {
      states[other->index] = coming_in ? PatternState{} : PatternState{false, true, 0, 0};
    }
  }
}

bool VehicleTrack::State::ComesBackTo(const Pattern& pattern, std::int64_t k) const {
  const DepartureOptions& options = detector->options_;
  const Fix& fix = At(k);
  const double margin_m = options.rearm_m - options.terminal_radius_m;
  const double now_m = pattern.DistanceToStart(fix.lat, fix.lon);
  // The look-ahead of choice_window has arrived (Advance reads a position only then).
  for (std::int64_t m = k + 1; m < End() && At(m).time - fix.time <= options.choice_window; ++m) {
    const double d = pattern.DistanceToStart(At(m).lat, At(m).lon);
    if (d <= options.terminal_radius_m && now_m - d >= margin_m) {
      return true;
    }
  }
  return false;
}

namespace {
// Version 2 adds the last position read (its time, the pattern of the last tag read).
constexpr std::uint32_t kTrackVersion = 2;
}  // namespace

void VehicleTrack::Snapshot(base::ByteWriter& w) const {
  const State& s = *s_;
  w.U32(kTrackVersion);
  w.I64(s.base);
  w.I64(s.tagged);
  w.I64(s.next);
  w.Varint(s.fixes.size());
  for (std::size_t i = 0; i < s.fixes.size(); ++i) {
    const Fix& f = s.fixes[i];
    WriteTime(w, f.time);
    w.F64(f.lat);
    w.F64(f.lon);
    w.String(f.route_id);
    w.String(f.trip_id);
    w.String(f.trip_start_date);
    w.SignedVarint(s.tag_of[i]);
  }
  w.SignedVarint(s.next_tag);
  w.Varint(s.tags.size());
  for (const auto& [id, tag] : s.tags) {
    w.SignedVarint(id);
    w.String(tag.trip_id);
    w.String(tag.start_date);
    w.SignedVarint(tag.pattern != nullptr ? tag.pattern->index : -1);
    w.I64(tag.first);
    w.F64(tag.first_lat);
    w.F64(tag.first_lon);
    w.Bool(tag.used);
  }
  w.Varint(s.open.size());
  for (const auto& [key, run] : s.open) {
    w.String(key.first);
    w.String(key.second);
    w.SignedVarint(run.tag);
    WriteTime(w, run.last);
  }
  w.Varint(s.states.size());
  for (const auto& [index, state] : s.states) {
    w.SignedVarint(index);
    w.Bool(state.armed);
    w.Bool(state.blocked);
    w.I64(state.last_inside);
    w.F64(state.inside_along_m);
  }
  w.Varint(s.previous_candidates.size());
  for (const int index : s.previous_candidates) {
    w.SignedVarint(index);
  }
  w.Bool(s.read_any);
  WriteTime(w, s.last_read);
  w.SignedVarint(s.last_tag_pattern);
}

base::Status VehicleTrack::Restore(
    base::ByteReader& r, const std::function<std::string_view(std::string_view)>& intern) {
  State fresh;
  fresh.detector = s_->detector;
  fresh.feed_id = s_->feed_id;
  fresh.vehicle_id = s_->vehicle_id;
  State& s = fresh;
  const auto& patterns = s.detector->patterns_;
  const auto pattern_at = [&](std::int64_t index) -> base::Result<const State::Pattern*> {
    if (index < 0 || index >= static_cast<std::int64_t>(patterns.size())) {
      return base::InvalidInput("departure state: pattern {} of {} (another GTFS?)", index,
                                patterns.size());
    }
    return patterns[static_cast<std::size_t>(index)].get();
  };
  const auto text = [&]() -> base::Result<std::string_view> {
    FROTA_ASSIGN_OR_RETURN(const auto t, r.String());
    return t.empty() ? std::string_view() : intern(t);
  };
  FROTA_ASSIGN_OR_RETURN(const auto version, r.U32());
  if (version != 1 && version != kTrackVersion) {
    return base::InvalidInput("departure state version {} is not 1 or {}", version, kTrackVersion);
  }
  FROTA_ASSIGN_OR_RETURN(s.base, r.I64());
  FROTA_ASSIGN_OR_RETURN(s.tagged, r.I64());
  FROTA_ASSIGN_OR_RETURN(s.next, r.I64());
  FROTA_ASSIGN_OR_RETURN(const auto fixes, r.Varint());
  for (std::uint64_t i = 0; i < fixes; ++i) {
    Fix f;
    FROTA_ASSIGN_OR_RETURN(f.time, ReadTime(r));
    FROTA_ASSIGN_OR_RETURN(f.lat, r.F64());
    FROTA_ASSIGN_OR_RETURN(f.lon, r.F64());
    FROTA_ASSIGN_OR_RETURN(f.route_id, text());
    FROTA_ASSIGN_OR_RETURN(f.trip_id, text());
    FROTA_ASSIGN_OR_RETURN(f.trip_start_date, text());
    FROTA_ASSIGN_OR_RETURN(const auto tag, r.SignedVarint());
    s.fixes.push_back(f);
    s.tag_of.push_back(static_cast<int>(tag));
  }
  if (s.next < s.base || s.tagged < s.base || s.tagged > s.End() || s.next > s.tagged) {
    return base::InvalidInput("departure state: positions {}..{} read to {}, tagged to {}", s.base,
                              s.End(), s.next, s.tagged);
  }
  FROTA_ASSIGN_OR_RETURN(const auto next_tag, r.SignedVarint());
  s.next_tag = static_cast<int>(next_tag);
  FROTA_ASSIGN_OR_RETURN(const auto tags, r.Varint());
  for (std::uint64_t i = 0; i < tags; ++i) {
    FROTA_ASSIGN_OR_RETURN(const auto id, r.SignedVarint());
    State::Tag tag;
    FROTA_ASSIGN_OR_RETURN(tag.trip_id, text());
    FROTA_ASSIGN_OR_RETURN(tag.start_date, text());
    FROTA_ASSIGN_OR_RETURN(const auto pattern, r.SignedVarint());
    if (pattern >= 0) {
      FROTA_ASSIGN_OR_RETURN(tag.pattern, pattern_at(pattern));
    }
    FROTA_ASSIGN_OR_RETURN(tag.first, r.I64());
    FROTA_ASSIGN_OR_RETURN(tag.first_lat, r.F64());
    FROTA_ASSIGN_OR_RETURN(tag.first_lon, r.F64());
    FROTA_ASSIGN_OR_RETURN(tag.used, r.Bool());
    s.tags[static_cast<int>(id)] = tag;
  }
  FROTA_ASSIGN_OR_RETURN(const auto runs, r.Varint());
  for (std::uint64_t i = 0; i < runs; ++i) {
    FROTA_ASSIGN_OR_RETURN(const auto trip, text());
    FROTA_ASSIGN_OR_RETURN(const auto start, text());
    State::Open run;
    FROTA_ASSIGN_OR_RETURN(const auto tag, r.SignedVarint());
    run.tag = static_cast<int>(tag);
    FROTA_ASSIGN_OR_RETURN(run.last, ReadTime(r));
    s.open[{trip, start}] = run;
  }
  FROTA_ASSIGN_OR_RETURN(const auto states, r.Varint());
  for (std::uint64_t i = 0; i < states; ++i) {
    FROTA_ASSIGN_OR_RETURN(const auto index, r.SignedVarint());
    FROTA_RETURN_IF_ERROR(pattern_at(index));
    State::PatternState state;
    FROTA_ASSIGN_OR_RETURN(state.armed, r.Bool());
    FROTA_ASSIGN_OR_RETURN(state.blocked, r.Bool());
    FROTA_ASSIGN_OR_RETURN(state.last_inside, r.I64());
    FROTA_ASSIGN_OR_RETURN(state.inside_along_m, r.F64());
    if (state.armed && (state.last_inside < s.base || state.last_inside >= s.End())) {
      return base::InvalidInput("departure state: a terminal position {} not kept",
                                state.last_inside);
    }
    s.states[static_cast<int>(index)] = state;
  }
  FROTA_ASSIGN_OR_RETURN(const auto candidates, r.Varint());
  for (std::uint64_t i = 0; i < candidates; ++i) {
    FROTA_ASSIGN_OR_RETURN(const auto index, r.SignedVarint());
    FROTA_RETURN_IF_ERROR(pattern_at(index));
    s.previous_candidates.push_back(static_cast<int>(index));
  }
  if (version >= 2) {
    FROTA_ASSIGN_OR_RETURN(s.read_any, r.Bool());
    FROTA_ASSIGN_OR_RETURN(s.last_read, ReadTime(r));
    FROTA_ASSIGN_OR_RETURN(const auto pattern, r.SignedVarint());
    if (pattern >= 0) {
      FROTA_RETURN_IF_ERROR(pattern_at(pattern));
    }
    s.last_tag_pattern = static_cast<int>(pattern);
  }
  for (std::int64_t i = s.base; i < s.tagged; ++i) {
    if (s.TagOf(i) >= 0 && !s.tags.contains(s.TagOf(i))) {
      return base::InvalidInput("departure state: a position's tag {} is missing", s.TagOf(i));
    }
  }
  *s_ = std::move(fresh);
  return base::Status::Ok();
}

}  // namespace frota::regularity
