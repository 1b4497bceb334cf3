#include "frota/regularity/stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <set>

#include "frota/base/bytes.h"
#include "frota/regularity/state_bytes.h"

namespace frota::regularity {

namespace {

// 2: Departure::hidden and Line::hidden_since_last; version 1 reads as neither.
constexpr std::uint32_t kSnapshotVersion = 2;

base::Timestamp AddSeconds(base::Timestamp t, double seconds) {
  return t + base::Micros(std::llround(seconds * 1e6));
}

std::string AlertId(std::string_view kind, std::string_view feed, std::string_view route,
                    int direction, base::Timestamp start) {
  return fmt::format("{}|{}|{}|{}|{}", kind, feed, route,
                     direction >= 0 ? fmt::format("{}", direction) : std::string(),
                     base::FormatIso8601(start));
}

std::string Vehicles(std::string_view a, std::string_view b) {
  if (b.empty() || a == b) {
    return std::string(a);
  }
  return a < b ? fmt::format("{},{}", a, b) : fmt::format("{},{}", b, a);
}

void WriteAlert(base::ByteWriter& w, const model::AlertRow& a) {
  w.String(a.alert_id);
  w.String(a.kind);
  w.String(a.feed_id);
  w.String(a.route_id);
  w.I64(a.direction_id);
  w.Bool(a.service_date.has_value());
  w.I64(a.service_date ? base::DaysSinceEpoch(*a.service_date) : 0);
  WriteTime(w, a.start_time);
  WriteTime(w, a.raised_at);
  w.Bool(a.planned_headway_s.has_value());
  w.F64(a.planned_headway_s.value_or(0));
  w.String(a.vehicles);
}
base::Result<model::AlertRow> ReadAlert(base::ByteReader& r) {
  model::AlertRow a;
  FROTA_ASSIGN_OR_RETURN(const auto id, r.String());
  FROTA_ASSIGN_OR_RETURN(const auto kind, r.String());
  FROTA_ASSIGN_OR_RETURN(const auto feed, r.String());
  FROTA_ASSIGN_OR_RETURN(const auto route, r.String());
  a.alert_id = id;
  a.kind = kind;
  a.feed_id = feed;
  a.route_id = route;
  FROTA_ASSIGN_OR_RETURN(const auto direction, r.I64());
  a.direction_id = static_cast<std::int8_t>(direction);
  FROTA_ASSIGN_OR_RETURN(const bool has_date, r.Bool());
  FROTA_ASSIGN_OR_RETURN(const auto days, r.I64());
  if (has_date) {
    a.service_date = base::LocalDateFromDays(static_cast<std::int32_t>(days));
  }
  FROTA_ASSIGN_OR_RETURN(a.start_time, ReadTime(r));
  FROTA_ASSIGN_OR_RETURN(a.raised_at, ReadTime(r));
  FROTA_ASSIGN_OR_RETURN(const bool has_planned, r.Bool());
  FROTA_ASSIGN_OR_RETURN(const double planned, r.F64());
  if (has_planned) {
    a.planned_headway_s = planned;
  }
  FROTA_ASSIGN_OR_RETURN(const auto vehicles, r.String());
  a.vehicles = vehicles;
  return a;
}

void WriteDeparture(base::ByteWriter& w, const Departure& d) {
  w.String(d.feed_id);
  w.String(d.vehicle_id);
  w.String(d.feed_route_id);
  w.String(d.route_id);
  w.I64(d.direction_id);
  w.String(d.trip_id);
  w.String(d.trip_start_date);
  w.String(d.shape_id);
  w.I64(base::DaysSinceEpoch(d.service_date));
  WriteTime(w, d.departure_time);
  w.Bool(d.inferred);
  w.Bool(d.tagged_late);
  w.F64(d.distance_m);
  w.Bool(d.hidden);
}
base::Result<Departure> ReadDeparture(base::ByteReader& r, std::uint32_t version) {
  Departure d;
  for (std::string* s : {&d.feed_id, &d.vehicle_id, &d.feed_route_id, &d.route_id}) {
    FROTA_ASSIGN_OR_RETURN(const auto v, r.String());
    *s = v;
  }
  FROTA_ASSIGN_OR_RETURN(const auto direction, r.I64());
  d.direction_id = static_cast<int>(direction);
  for (std::string* s : {&d.trip_id, &d.trip_start_date, &d.shape_id}) {
    FROTA_ASSIGN_OR_RETURN(const auto v, r.String());
    *s = v;
  }
  FROTA_ASSIGN_OR_RETURN(const auto days, r.I64());
  d.service_date = base::LocalDateFromDays(static_cast<std::int32_t>(days));
  FROTA_ASSIGN_OR_RETURN(d.departure_time, ReadTime(r));
  FROTA_ASSIGN_OR_RETURN(d.inferred, r.Bool());
  FROTA_ASSIGN_OR_RETURN(d.tagged_late, r.Bool());
  FROTA_ASSIGN_OR_RETURN(d.distance_m, r.F64());
  if (version >= 2) {
    FROTA_ASSIGN_OR_RETURN(d.hidden, r.Bool());
  }
  return d;
}

// The first minute in [from, before) that begins `g` or more minutes without a position;
// minutes after the last covered one count as without (the caller asks only where the
// coverage is complete g minutes past `before`, or at the end of input).
std::optional<std::int64_t> FirstSilence(const Coverage& coverage, std::int64_t from,
                                         std::int64_t before, int g) {
  const auto& minutes = coverage.minutes();
  auto it = std::lower_bound(minutes.begin(), minutes.end(), from);
  std::int64_t s = from;
  while (s < before) {
    if (it == minutes.end() || *it - s >= g) {
      return s;
    }
    s = *it + 1;
    ++it;
  }
  return std::nullopt;
}

}  // namespace

model::DepartureRow DepartureRowOf(const Placed& p, const base::TimeZone& zone) {
  const Departure& d = *p.departure;
  const base::LocalHour hour = zone.ToLocalHour(d.departure_time);
  model::DepartureRow row;
  row.feed_id = d.feed_id;
  row.vehicle_id = d.vehicle_id;
  row.feed_route_id = d.feed_route_id;
  row.route_id = d.route_id;
  row.direction_id = static_cast<std::int8_t>(d.direction_id);
  row.trip_id = d.trip_id;
  row.shape_id = d.shape_id;
  row.service_date = p.service_date;
  row.departure_time = d.departure_time;
  row.inferred = d.inferred;
  row.distance_m = d.distance_m;
  row.tagged_late = d.tagged_late;
  row.unplanned = !p.period.has_value();
  row.day_type = gtfs::DayTypeName(p.day_type);
  row.local_date = hour.date;
  row.hour = static_cast<std::int8_t>(hour.hour);
  return row;
}

model::HeadwayRow HeadwayRowOf(const Placed& p, const MeasuredHeadway& m,
                               const base::TimeZone& zone) {
  const Departure& d = *p.departure;
  const base::LocalHour hour = zone.ToLocalHour(d.departure_time);
  model::HeadwayRow row;
  row.route_id = d.route_id;
  row.direction_id = static_cast<std::int8_t>(d.direction_id);
  row.service_date = p.service_date;
  row.day_type = gtfs::DayTypeName(p.day_type);
  row.departure_time = d.departure_time;
  row.local_date = hour.date;
  row.hour = static_cast<std::int8_t>(hour.hour);
  row.vehicle_id = d.vehicle_id;
  row.inferred = d.inferred;
  row.headway_s = m.headway_s;
  row.planned_headway_s = m.planned_headway_s;
  row.exclusion = m.exclusion;
  return row;
}

struct Stream::Vehicle {
  VehicleTrack track;              // its positions the detector may still read; texts in texts_
  std::vector<Departure> pending;  // found, not yet final; time order
};

struct Stream::FeedState {
  Coverage coverage;
  std::set<std::int64_t> pending_minutes;  // with a position, not yet complete
  std::optional<model::AlertRow> blind;    // the open feed_blind
};

struct Stream::Line {
  std::string feed_id;
  std::optional<Departure> last;  // the line's last in-period departure
  Placed placed;                  // its place (departure points at `last`)
  // gap_in_progress: the moment 2 x planned after `last`, while undecided.
  std::optional<base::Timestamp> point;
  double point_planned_s = 0;
  std::optional<model::AlertRow> open;  // raised, not yet closed
  std::deque<base::Timestamp> recent;   // its in-period departures in the watch window
  bool hidden_since_last = false;       // a hidden departure came after `last`
};

Stream::Stream(const gtfs::StaticFeed& feed, const gtfs::RouteResolver& routes,
               const base::TimeZone& zone, gtfs::HolidayCalendar holidays, StreamOptions options)
    : feed_(feed),
      zone_(zone),
      holidays_(std::move(holidays)),
      options_(options),
      detector_(feed, routes, zone, options.departures),
      plans_(std::make_unique<PlanCache>(feed_, holidays_, zone_)) {}

Stream::~Stream() = default;

std::chrono::seconds Stream::Horizon() const {
  return options_.departures.max_exit_gap +
         std::max(options_.departures.tag_window, options_.departures.choice_window);
}

void Stream::Add(std::string_view feed_id, std::string_view vehicle_id, base::Timestamp time,
                 double lat, double lon, std::string_view route_id, std::string_view trip_id,
                 std::string_view trip_start_date) {
  const auto text = [this](std::string_view t) { return Intern(t); };
  const std::int64_t minute = MinuteOf(time);
  if (last_feed_.second == nullptr || last_feed_.first != feed_id) {
    const auto found = feeds_.try_emplace(std::string(feed_id)).first;
    last_feed_ = {found->first, &found->second};
  }
  FeedState& feed = *last_feed_.second;
  if (feed.coverage.minutes().empty() || minute > feed.coverage.minutes().back()) {
    feed.pending_minutes.insert(minute);
  }
  last_minute_seen_ = std::max(last_minute_seen_, minute);
  const std::string_view route = text(route_id);
  const std::string_view trip = text(trip_id);
  if (route.empty() && trip.empty()) {
    return;
  }
  auto [it, inserted] = detectable_.try_emplace(std::make_pair(route.data(), trip.data()), false);
  if (inserted) {
    it->second = detector_.CanDetect(route, trip);
  }
  if (!it->second) {
    return;
  }
  VehicleOf(feed_id, vehicle_id).track.Add(Fix{time, lat, lon, route, trip, text(trip_start_date)});
}

Stream::Vehicle& Stream::VehicleOf(std::string_view feed_id, std::string_view vehicle_id) {
  if (const auto found = vehicle_index_.find({feed_id, vehicle_id});
      found != vehicle_index_.end()) {
    return *found->second;
  }
  std::pair<std::string, std::string> key{feed_id, vehicle_id};
  auto it = vehicles_.find(key);
  if (it == vehicles_.end()) {
    it = vehicles_.emplace(key, Vehicle{VehicleTrack(detector_, key.first, key.second), {}}).first;
  }
  vehicle_index_.emplace(
      std::pair<std::string_view, std::string_view>(it->first.first, it->first.second),
      &it->second);
  return it->second;
}

void Stream::AddPositions(const model::EpochRows& rows) {
  if (rows.positions.empty()) {
    return;
  }
  const model::StringDictionary& s = *rows.strings;
  for (const auto& p : rows.positions) {
    Add(s.View(p.feed_id), s.View(p.vehicle_id), p.event_time, p.lat, p.lon, s.View(p.route_id),
        s.View(p.trip_id), s.View(p.trip_start_date));
  }
}

std::string_view Stream::Intern(std::string_view text) {
  if (text.empty()) {
    return {};
  }
  auto it = texts_.find(text);
  if (it == texts_.end()) {
    it = texts_.emplace(text).first;
  }
  return *it;
}

const Coverage& Stream::CoverageOf(const std::string& feed_id) { return feeds_[feed_id].coverage; }

void Stream::AddMinutes(std::int64_t minute_horizon, model::EpochRows& out) {
  const int g = options_.coverage_gap_minutes;
  for (auto& [feed_id, feed] : feeds_) {
    while (!feed.pending_minutes.empty() && *feed.pending_minutes.begin() < minute_horizon) {
      const std::int64_t m = *feed.pending_minutes.begin();
      feed.pending_minutes.erase(feed.pending_minutes.begin());
      const auto& minutes = feed.coverage.minutes();
      if (!minutes.empty() && m - minutes.back() - 1 >= g) {
        // A coverage gap [last + 1, m) ends: close its feed_blind (raise it first when
        // the watermark never showed it open).
        model::AlertRow row;
        if (feed.blind) {
          row = std::move(*feed.blind);
          feed.blind.reset();
        } else {
          const base::Timestamp start = MinuteStart(minutes.back() + 1);
          row.alert_id = AlertId("feed_blind", feed_id, "", -1, start);
          row.kind = "feed_blind";
          row.feed_id = feed_id;
          row.service_date = zone_.ToLocalHour(start).date;
          row.start_time = start;
          row.raised_at = start + std::chrono::minutes(g);
        }
        row.end_time = MinuteStart(m);
        row.closed_at = row.end_time;
        out.of<model::AlertRow>().push_back(std::move(row));
      }
      feed.coverage.Add(m, g);
    }
    // Still silent: blind once g whole minutes passed without a position, as far as the
    // watermark and the input seen show.
    const auto& minutes = feed.coverage.minutes();
    const std::int64_t horizon = std::min(minute_horizon, last_minute_seen_);
    if (!feed.blind && !minutes.empty() && horizon - minutes.back() - 1 >= g) {
      const base::Timestamp start = MinuteStart(minutes.back() + 1);
      model::AlertRow row;
      row.alert_id = AlertId("feed_blind", feed_id, "", -1, start);
      row.kind = "feed_blind";
      row.feed_id = feed_id;
      row.service_date = zone_.ToLocalHour(start).date;
      row.start_time = start;
      row.raised_at = start + std::chrono::minutes(g);
      out.of<model::AlertRow>().push_back(row);
      feed.blind = std::move(row);
    }
  }
}

std::optional<base::Timestamp> Stream::LostBefore(const Line& line, base::Timestamp limit) const {
  // The service period's end: its last planned departure plus its last planned headway.
  const LinePlan& plan = *line.placed.plan;
  const Period& period = plan.periods[*line.placed.period];
  base::Timestamp lost = AddSeconds(
      plan.day_start + std::chrono::seconds(plan.times[period.end - 1]), period.last_headway_s);
  // The feed's first silence after the alert was raised.
  const auto feed = feeds_.find(line.feed_id);
  if (feed != feeds_.end()) {
    if (const auto m = FirstSilence(feed->second.coverage, MinuteOf(line.open->raised_at),
                                    MinuteOf(limit) + 1, options_.coverage_gap_minutes)) {
      lost = std::min(lost, std::max(MinuteStart(*m), line.open->raised_at));
    }
  }
  return lost < limit ? std::optional(lost) : std::nullopt;
}

void Stream::CloseLost(Line& line, base::Timestamp limit, model::EpochRows& out) {
  if (!line.open) {
    return;
  }
  if (const auto lost = LostBefore(line, limit)) {
    // The period ended or the feed stopped showing the line: closed then, unmeasured.
    model::AlertRow row = std::move(*line.open);
    line.open.reset();
    row.end_time = *lost;
    row.closed_at = *lost;
    out.of<model::AlertRow>().push_back(std::move(row));
  }
}

bool Stream::Watched(const Line& line) {
  const LinePlan& plan = *line.placed.plan;
  const Coverage& cov = CoverageOf(line.feed_id);
  const base::Timestamp until = line.last->departure_time;
  const base::Timestamp since = until - options_.watch_window;
  // The window's minutes in coverage gaps: where the feed showed nothing of the line,
  // neither a planned nor a found departure counts, as the found ratio leaves unobserved
  // departures out of both sides; and a window blind for more than half its length
  // cannot tell whether the feed holds the line's buses, as at the start of a capture
  // (where planned departures count, unfound). Every minute up to the last departure is
  // final by now, in the stream as in the batch.
  const std::int64_t first = MinuteOf(since);
  const std::int64_t last = MinuteOf(until);
  std::int64_t blind = 0;
  for (const auto& [from, to] : cov.gaps()) {  // few gaps; a linear scan is fine
    blind += std::max<std::int64_t>(0, std::min(to - 1, last) - std::max(from, first) + 1);
  }
  if (2 * blind > last - first + 1) {
    return false;
  }
  const auto counted = [&cov](base::Timestamp t) {
    const std::int64_t minute = MinuteOf(t);
    return !cov.InSpan(minute) || cov.Watching(minute);
  };
  const std::int32_t to = SecondsInto(plan, until);
  const std::int32_t from = SecondsInto(plan, since);
  // plan.times is sorted: the planned departures in [from, to].
  std::int64_t planned = 0;
  for (auto it = std::lower_bound(plan.times.begin(), plan.times.end(), from);
       it != plan.times.end() && *it <= to; ++it) {
    planned += counted(plan.day_start + std::chrono::seconds(*it)) ? 1 : 0;
  }
  const auto found = std::count_if(line.recent.begin(), line.recent.end(), counted);
  return planned >= options_.watch_min_planned &&
         static_cast<double>(found) >= options_.watch_share * static_cast<double>(planned);
}

void Stream::CheckGapInProgress(Line& line, base::Timestamp final_before, model::EpochRows& out) {
  if (!line.point || *line.point >= final_before) {
    return;
  }
  const base::Timestamp point = *line.point;
  line.point.reset();
  const Coverage& cov = CoverageOf(line.feed_id);
  const Departure& d = *line.last;
  // The feed watched from the departure to that moment: no coverage gap between, and
  // positions at or after it.
  if (cov.minutes().empty() || cov.minutes().back() < MinuteOf(point) ||
      cov.GapBetween(d.departure_time, point)) {
    return;
  }
  model::AlertRow row;
  row.alert_id =
      AlertId("gap_in_progress", d.feed_id, d.route_id, d.direction_id, d.departure_time);
  row.kind = "gap_in_progress";
  row.feed_id = d.feed_id;
  row.route_id = d.route_id;
  row.direction_id = static_cast<std::int8_t>(d.direction_id);
  row.service_date = line.placed.service_date;
  row.start_time = d.departure_time;
  row.raised_at = point;
  row.planned_headway_s = line.point_planned_s;
  row.vehicles = d.vehicle_id;
  out.of<model::AlertRow>().push_back(row);
  line.open = std::move(row);
}

void Stream::CloseAt(Line& line, const Departure& d, bool measured, model::EpochRows& out) {
  CheckGapInProgress(line, d.departure_time, out);
  line.point.reset();
  CloseLost(line, d.departure_time, out);
  if (!line.open) {
    return;
  }
  model::AlertRow row = std::move(*line.open);
  line.open.reset();
  row.end_time = d.departure_time;
  row.closed_at = d.departure_time;
  if (measured) {
    row.actual_headway_s = std::chrono::duration<double>(d.departure_time - row.start_time).count();
    row.vehicles = Vehicles(line.last->vehicle_id, d.vehicle_id);
  }
  out.of<model::AlertRow>().push_back(std::move(row));
}

void Stream::OnHiddenDeparture(const Departure& d, const Placed& p, model::EpochRows& out) {
  const auto it = lines_.find({d.route_id, d.direction_id, p.service_date});
  if (it == lines_.end()) {
    return;  // before the line's first departure: no headway to leave out
  }
  Line& line = it->second;
  // The line did depart, at a time the feed hid: a gap_in_progress whose moment came
  // first is raised now, and one open is closed unmeasured; no new one starts from it.
  CloseAt(line, d, /*measured=*/false, out);
  line.hidden_since_last = true;
  line.recent.push_back(d.departure_time);
}

void Stream::OnDeparture(const Departure& d, model::EpochRows& out) {
  const Placed p = Place(d, *plans_, holidays_);
  if (d.hidden) {
    if (p.period) {
      OnHiddenDeparture(d, p, out);
    }
    return;
  }
  out.of<model::DepartureRow>().push_back(DepartureRowOf(p, zone_));
  if (!p.period) {
    return;
  }
  Line& line = lines_[{d.route_id, d.direction_id, p.service_date}];
  if (line.last) {
    // A gap_in_progress whose moment came before this departure is raised now, and
    // closed by it at once; an open one is closed.
    CloseAt(line, d, /*measured=*/true, out);
  } else {
    line.feed_id = d.feed_id;
  }
  const Coverage& cov = CoverageOf(line.feed_id);
  const MeasuredHeadway m =
      MeasureHeadway(line.last ? &line.placed : nullptr, p, cov, line.hidden_since_last);
  line.hidden_since_last = false;
  out.of<model::HeadwayRow>().push_back(HeadwayRowOf(p, m, zone_));
  if (m.exclusion.empty() && m.headway_s && m.planned_headway_s && *m.planned_headway_s > 0) {
    const double h = *m.headway_s;
    const double planned = *m.planned_headway_s;
    std::string_view kind;
    if (h < options_.bunching_share * planned) {
      kind = "bunching";
    } else if (h > options_.gap_headways * planned) {
      kind = "gap";
    }
    if (kind == "gap" && !Watched(line)) {
      kind = {};
    }
    if (!kind.empty()) {
      const Departure& before = *line.last;
      model::AlertRow row;
      row.alert_id = AlertId(kind, d.feed_id, d.route_id, d.direction_id, before.departure_time);
      row.kind = kind;
      row.feed_id = d.feed_id;
      row.route_id = d.route_id;
      row.direction_id = static_cast<std::int8_t>(d.direction_id);
      row.service_date = p.service_date;
      row.start_time = before.departure_time;
      row.end_time = d.departure_time;
      row.raised_at = d.departure_time;
      row.planned_headway_s = planned;
      row.actual_headway_s = h;
      row.vehicles = Vehicles(before.vehicle_id, d.vehicle_id);
      out.of<model::AlertRow>().push_back(std::move(row));
    }
  }
  line.last = d;
  line.placed = p;
  line.placed.departure = &*line.last;
  line.recent.push_back(d.departure_time);
  while (line.recent.front() < d.departure_time - options_.watch_window) {
    line.recent.pop_front();
  }
  // The next gap_in_progress: 2 x the planned headway after this departure, when that
  // moment is still in this service period.
  const auto planned =
      p.plan->HeadwayIn(p.plan->periods[*p.period], SecondsInto(*p.plan, d.departure_time));
  if (planned && *planned > 0 && Watched(line)) {
    const base::Timestamp point = AddSeconds(d.departure_time, options_.gap_headways * *planned);
    if (p.plan->PeriodOf(SecondsInto(*p.plan, point)) == p.period) {
      line.point = point;
      line.point_planned_s = *planned;
    }
  }
}

void Stream::Emit(model::EpochRows& out, base::Timestamp known_until, base::Timestamp final_before,
                  std::int64_t minute_horizon) {
  AddMinutes(minute_horizon, out);
  std::vector<Departure> final;
  for (auto& [key, v] : vehicles_) {
    // Every position before the watermark is there: the detector reads as far as that
    // allows; what it has not found yet departs at or after known_until - Horizon().
    const std::size_t before = v.pending.size();
    v.track.Advance(known_until, v.pending);
    if (v.pending.size() > before) {
      std::stable_sort(v.pending.begin(), v.pending.end(),
                       [](const Departure& a, const Departure& b) {
                         return a.departure_time < b.departure_time;
                       });
    }
    std::size_t n = 0;
    while (n < v.pending.size() && v.pending[n].departure_time < final_before) {
      ++n;
    }
    if (n > 0) {
      final.insert(final.end(), std::make_move_iterator(v.pending.begin()),
                   std::make_move_iterator(v.pending.begin() + static_cast<std::ptrdiff_t>(n)));
      v.pending.erase(v.pending.begin(), v.pending.begin() + static_cast<std::ptrdiff_t>(n));
    }
  }
  // In time order, as `frota headways` pairs them (ties by vehicle).
  std::sort(final.begin(), final.end(), [](const Departure& a, const Departure& b) {
    return std::tie(a.departure_time, a.vehicle_id, a.feed_id, a.route_id, a.direction_id) <
           std::tie(b.departure_time, b.vehicle_id, b.feed_id, b.route_id, b.direction_id);
  });
  for (const Departure& d : final) {
    OnDeparture(d, out);
  }
  for (auto& [key, line] : lines_) {
    CheckGapInProgress(line, final_before, out);
    CloseLost(line, final_before, out);
  }
}

void Stream::Advance(base::Timestamp watermark, model::EpochRows& out) {
  if (watermark == base::Timestamp::max()) {
    Finish(out);
    return;
  }
  if (watermark <= base::Timestamp::min() + Horizon()) {
    return;
  }
  Emit(out, watermark, watermark - Horizon(), MinuteOf(watermark));
}

void Stream::Finish(model::EpochRows& out) {
  Emit(out, base::Timestamp::max(), base::Timestamp::max(),
       std::numeric_limits<std::int64_t>::max());
}

std::string Stream::Snapshot() const {
  base::ByteWriter w;
  w.U32(kSnapshotVersion);
  w.I64(last_minute_seen_);
  w.Varint(vehicles_.size());
  for (const auto& [key, v] : vehicles_) {
    w.String(key.first);
    w.String(key.second);
    v.track.Snapshot(w);
    w.Varint(v.pending.size());
    for (const Departure& d : v.pending) {
      WriteDeparture(w, d);
    }
  }
  w.Varint(feeds_.size());
  for (const auto& [feed_id, f] : feeds_) {
    w.String(feed_id);
    w.Varint(f.coverage.minutes().size());
    for (const auto m : f.coverage.minutes()) {
      w.I64(m);
    }
    w.Varint(f.pending_minutes.size());
    for (const auto m : f.pending_minutes) {
      w.I64(m);
    }
    w.Bool(f.blind.has_value());
    if (f.blind) {
      WriteAlert(w, *f.blind);
    }
  }
  w.Varint(lines_.size());
  for (const auto& [key, line] : lines_) {
    w.String(line.feed_id);
    w.Bool(line.last.has_value());
    if (line.last) {
      WriteDeparture(w, *line.last);
    }
    w.Bool(line.point.has_value());
    WriteTime(w, line.point.value_or(base::Timestamp{}));
    w.F64(line.point_planned_s);
    w.Bool(line.open.has_value());
    if (line.open) {
      WriteAlert(w, *line.open);
    }
    w.Varint(line.recent.size());
    for (const auto t : line.recent) {
      WriteTime(w, t);
    }
    w.Bool(line.hidden_since_last);
  }
  return w.Take();
}

base::Status Stream::Restore(std::string_view bytes) {
  vehicle_index_.clear();
  vehicles_.clear();
  last_feed_ = {{}, nullptr};
  feeds_.clear();
  lines_.clear();
  last_minute_seen_ = std::numeric_limits<std::int64_t>::min();
  if (bytes.empty()) {
    return base::Status::Ok();
  }
  base::ByteReader r(bytes);
  FROTA_ASSIGN_OR_RETURN(const auto version, r.U32());
  if (version != 1 && version != kSnapshotVersion) {
    return base::InvalidInput("regularity state version {} is not 1 or {}", version,
                              kSnapshotVersion);
  }
  FROTA_ASSIGN_OR_RETURN(last_minute_seen_, r.I64());
  FROTA_ASSIGN_OR_RETURN(const auto vehicles, r.Varint());
  for (std::uint64_t i = 0; i < vehicles; ++i) {
    FROTA_ASSIGN_OR_RETURN(const auto feed_id, r.String());
    FROTA_ASSIGN_OR_RETURN(const auto vehicle_id, r.String());
    Vehicle& v = VehicleOf(feed_id, vehicle_id);
    FROTA_RETURN_IF_ERROR(v.track.Restore(r, [this](std::string_view t) { return Intern(t); }));
    FROTA_ASSIGN_OR_RETURN(const auto pending, r.Varint());
    for (std::uint64_t k = 0; k < pending; ++k) {
      FROTA_ASSIGN_OR_RETURN(auto d, ReadDeparture(r, version));
      v.pending.push_back(std::move(d));
    }
  }
  FROTA_ASSIGN_OR_RETURN(const auto feeds, r.Varint());
  for (std::uint64_t i = 0; i < feeds; ++i) {
    FROTA_ASSIGN_OR_RETURN(const auto feed_id, r.String());
    FeedState& f = feeds_[std::string(feed_id)];
    FROTA_ASSIGN_OR_RETURN(const auto minutes, r.Varint());
    for (std::uint64_t k = 0; k < minutes; ++k) {
      FROTA_ASSIGN_OR_RETURN(const auto m, r.I64());
      f.coverage.Add(m, options_.coverage_gap_minutes);
    }
    FROTA_ASSIGN_OR_RETURN(const auto pending, r.Varint());
    for (std::uint64_t k = 0; k < pending; ++k) {
      FROTA_ASSIGN_OR_RETURN(const auto m, r.I64());
      f.pending_minutes.insert(m);
    }
    FROTA_ASSIGN_OR_RETURN(const bool blind, r.Bool());
    if (blind) {
      FROTA_ASSIGN_OR_RETURN(f.blind, ReadAlert(r));
    }
  }
  FROTA_ASSIGN_OR_RETURN(const auto lines, r.Varint());
  for (std::uint64_t i = 0; i < lines; ++i) {
    FROTA_ASSIGN_OR_RETURN(const auto feed_id, r.String());
    FROTA_ASSIGN_OR_RETURN(const bool has_last, r.Bool());
    if (!has_last) {
      return base::InvalidInput("regularity state: a line without a departure");
    }
    FROTA_ASSIGN_OR_RETURN(auto last, ReadDeparture(r, version));
    const Placed p = Place(last, *plans_, holidays_);
    if (!p.period) {
      return base::InvalidInput("regularity state: a line's departure is in no service period");
    }
    Line& line = lines_[{last.route_id, last.direction_id, p.service_date}];
    line.feed_id = feed_id;
    line.last = std::move(last);
    line.placed = p;
    line.placed.departure = &*line.last;
    FROTA_ASSIGN_OR_RETURN(const bool has_point, r.Bool());
    FROTA_ASSIGN_OR_RETURN(const auto point, ReadTime(r));
    if (has_point) {
      line.point = point;
    }
    FROTA_ASSIGN_OR_RETURN(line.point_planned_s, r.F64());
    FROTA_ASSIGN_OR_RETURN(const bool open, r.Bool());
    if (open) {
      FROTA_ASSIGN_OR_RETURN(line.open, ReadAlert(r));
    }
    FROTA_ASSIGN_OR_RETURN(const auto recent, r.Varint());
    for (std::uint64_t k = 0; k < recent; ++k) {
      FROTA_ASSIGN_OR_RETURN(const auto t, ReadTime(r));
      line.recent.push_back(t);
    }
    if (version >= 2) {
      FROTA_ASSIGN_OR_RETURN(line.hidden_since_last, r.Bool());
    }
  }
  if (!r.AtEnd()) {
    return base::InvalidInput("regularity state: {} bytes left over", r.remaining());
  }
  return base::Status::Ok();
}

}  // namespace frota::regularity
