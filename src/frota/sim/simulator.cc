#include "frota/sim/simulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <numbers>
#include <set>
#include <tuple>

#include "frota/base/file.h"
#include "frota/base/time_zone.h"
#include "frota/geo/area.h"
#include "frota/geo/haversine.h"
#include "frota/gtfs/static_feed.h"
#include "frota/model/rejection.h"
#include "frota/sim/city.h"
#include "frota/sim/day_poller.h"
#include "frota/sim/expected_outcomes.h"
#include "frota/sim/fleet.h"
#include "frota/sim/random.h"
#include "frota/sim/schedule.h"
#include "frota/sim/truth.h"
#include "frota/sim/writer_pool.h"
#include "frota/sink/duckdb_connection.h"
#include "frota/source/bronze_archive.h"

namespace frota::sim {

namespace fs = std::filesystem;

namespace {

constexpr double kCoverageGapS = 300;  // semantics §7: a coverage gap is 5 minutes or more
// The departure detector's longest exit gap and terminal radius
// (regularity::DepartureOptions::max_exit_gap, terminal_radius_m).
constexpr std::int64_t kMaxExitGapUs = std::int64_t{600} * 1'000'000;
constexpr double kTerminalRadiusM = 1000;
constexpr const char* kFaultRecordsFile = "truth-faults.parquet";

void Progress(const SimulateOptions& options, const std::string& line) {
  if (options.progress) {
    options.progress(line);
  }
}

// A traffic model for a GTFS that is not the built-in city: one congested centre at
// the stops' centroid.
TrafficModel DefaultTraffic(const gtfs::StaticFeed& feed) {
  TrafficModel traffic;
  double lat = 0;
  double lon = 0;
  std::int64_t n = 0;
  for (const auto& stop : feed.stops()) {
    if (std::isfinite(stop.lat) && std::isfinite(stop.lon) && (stop.lat != 0 || stop.lon != 0)) {
      lat += stop.lat;
      lon += stop.lon;
      ++n;
    }
  }
  if (n > 0) {
    traffic.slow_areas.push_back(
        {"centre", {lat / static_cast<double>(n), lon / static_cast<double>(n)}, 3000, 0.6});
  }
  return traffic;
}

// A rectangle 3 km around every shape, for a GTFS given without an area.
base::Status WriteDerivedArea(const DayPlan& plan, const fs::path& file) {
  double min_lat = 90;
  double max_lat = -90;
  double min_lon = 180;
  double max_lon = -180;
  for (const auto& shape : plan.shapes) {
    for (const auto& p : shape.path.points()) {
      min_lat = std::min(min_lat, p.lat);
      max_lat = std::max(max_lat, p.lat);
      min_lon = std::min(min_lon, p.lon);
      max_lon = std::max(max_lon, p.lon);
    }
  }
  const double margin_lat = 3000 / MetresPerDegreeLat();
  const double margin_lon = margin_lat / std::cos((min_lat + max_lat) / 2 * std::numbers::pi / 180);
  min_lat -= margin_lat;
  max_lat += margin_lat;
  min_lon -= margin_lon;
  max_lon += margin_lon;
  const auto r = [](double v) { return std::round(v * 1e7) / 1e7; };
  nlohmann::ordered_json ring = nlohmann::ordered_json::array({{r(min_lon), r(min_lat)},
                                                               {r(max_lon), r(min_lat)},
                                                               {r(max_lon), r(max_lat)},
                                                               {r(min_lon), r(max_lat)},
                                                               {r(min_lon), r(min_lat)}});
  nlohmann::ordered_json document;
  document["type"] = "Polygon";
  document["coordinates"] = nlohmann::ordered_json::array({ring});
  return base::WriteFileAtomic(file, document.dump() + "\n");
}

std::string OutcomeName(std::uint8_t outcome) {
  return outcome == 0
             ? std::string("accepted")
             : std::string(model::RejectReasonName(static_cast<model::RejectReason>(outcome - 1)));
}

std::string DateText(std::int32_t days) { return base::FormatDate(base::LocalDateFromDays(days)); }

// stale_plan: the routes whose buses do not run the GTFS written for frota. Each trip of
// a chosen route leaves up to stale_plan_early_s early or stale_plan_late_s late (the
// GTFS is older than the operation); routes with at least 6 planned trips are eligible.
std::vector<TruthStaleRoute> ApplyStalePlan(DayPlan& plan, const FaultConfig& faults,
                                            std::uint64_t seed) {
  std::vector<TruthStaleRoute> out;
  if (faults.stale_plan_routes <= 0) {
    return out;
  }
  std::map<std::string, std::int64_t> trips_of;
  for (const PlannedTrip& trip : plan.trips) {
    ++trips_of[trip.route_id];
  }
  std::vector<std::string> eligible;
  for (const auto& [route, n] : trips_of) {
    if (n >= 6) {
      eligible.push_back(route);
    }
  }
  Rng rng = Rng::For(seed, "stale_plan");
  for (std::size_t i = 0; i < eligible.size(); ++i) {  // Fisher-Yates
    const auto j = static_cast<std::size_t>(rng.UniformInt(
        static_cast<std::int64_t>(i), static_cast<std::int64_t>(eligible.size()) - 1));
    std::swap(eligible[i], eligible[j]);
  }
  eligible.resize(std::min(eligible.size(), static_cast<std::size_t>(faults.stale_plan_routes)));
  std::sort(eligible.begin(), eligible.end());
  for (const std::string& route : eligible) {
    out.push_back({route, 0, 0});
  }
  for (std::size_t i = 0; i < plan.trips.size(); ++i) {
    PlannedTrip& trip = plan.trips[i];
    const auto it = std::lower_bound(
        out.begin(), out.end(), trip.route_id,
        [](const TruthStaleRoute& r, const std::string& id) { return r.route_id < id; });
    if (it == out.end() || it->route_id != trip.route_id) {
      continue;
    }
    Rng trip_rng = Rng::For(seed, "stale_trip", i);
    const auto shift = static_cast<std::int32_t>(
        std::lround(trip_rng.Uniform(-faults.stale_plan_early_s, faults.stale_plan_late_s)));
    trip.departure_s += shift;
    trip.arrival_s += shift;
    ++it->shifted_trips;
    it->max_shift_s = std::max(it->max_shift_s, std::abs(static_cast<double>(shift)));
  }
  std::stable_sort(plan.trips.begin(), plan.trips.end(),
                   [](const PlannedTrip& a, const PlannedTrip& b) {
                     return std::tie(a.departure_s, a.trip_id, a.start_time) <
                            std::tie(b.departure_s, b.trip_id, b.start_time);
                   });
  return out;
}

// Each silence starts in 06:00-21:00 and falls on a route with a departure inside it
// (else on any route), so that it hides real departures.
std::vector<LineSilence> DrawLineSilences(const Fleet& fleet, const FaultConfig& faults,
                                          std::uint64_t seed) {
  std::vector<LineSilence> out;
  for (std::int32_t i = 0; i < faults.line_silences && !fleet.route_ids.empty(); ++i) {
    Rng rng = Rng::For(seed, "line_silent", static_cast<std::uint64_t>(i));
    LineSilence silence;
    silence.start = std::floor(rng.Uniform(6 * 3600, 21 * 3600));
    silence.end =
        silence.start + std::floor(rng.Uniform(faults.line_silent_min_s, faults.line_silent_max_s));
    std::vector<std::int32_t> candidates;
    for (const TrueDeparture& d : fleet.departures) {
      if (d.t >= silence.start && d.t < silence.end) {
        candidates.push_back(fleet.vehicles[static_cast<std::size_t>(d.vehicle)].route);
      }
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    const auto pick = [&rng](std::size_t n) {
      return rng.UniformInt(0, static_cast<std::int64_t>(n) - 1);
    };
    silence.route = candidates.empty()
                        ? static_cast<std::int32_t>(pick(fleet.route_ids.size()))
                        : candidates[static_cast<std::size_t>(pick(candidates.size()))];
    out.push_back(silence);
  }
  std::sort(out.begin(), out.end(), [](const LineSilence& a, const LineSilence& b) {
    return std::tie(a.start, a.route) < std::tie(b.start, b.route);
  });
  return out;
}

using LineKey = std::pair<std::string, int>;

// A service period of the written plan (semantics §7: a run of planned departures no two
// consecutive more than max(60 min, 3 x the planned headway before the gap) apart),
// widened by one planned headway at each end; seconds of the service day.
struct PlanPeriod {
  double from;
  double to;
};

std::map<LineKey, std::vector<PlanPeriod>> PlanPeriods(
    const std::map<LineKey, std::vector<std::int32_t>>& written) {
  std::map<LineKey, std::vector<PlanPeriod>> periods;
  for (const auto& [line, departures] : written) {
    std::vector<std::int32_t> times = departures;
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    auto& list = periods[line];
    std::size_t start = 0;
    for (std::size_t i = 1; i <= times.size(); ++i) {
      bool split = i == times.size();
      if (!split) {
        const double before = i >= 2 ? times[i - 1] - times[i - 2] : 0;
        split = times[i] - times[i - 1] > std::max(3600.0, 3 * before);
      }
      if (split) {
        const double first_headway = i - start >= 2 ? times[start + 1] - times[start] : 0;
        const double last_headway = i - start >= 2 ? times[i - 1] - times[i - 2] : 0;
        list.push_back({times[start] - first_headway, times[i - 1] + last_headway});
        start = i;
      }
    }
  }
  return periods;
}

// The period of `line` that holds `t` (PlanPeriods widens each by one planned headway at
// each end); -1 when none does: a departure then is `unplanned` (semantics §7).
std::int32_t PeriodOf(const std::map<LineKey, std::vector<PlanPeriod>>& periods,
                      const LineKey& line, double t) {
  const auto it = periods.find(line);
  if (it == periods.end()) {
    return -1;
  }
  for (std::size_t p = 0; p < it->second.size(); ++p) {
    if (it->second[p].from <= t && t <= it->second[p].to) {
      return static_cast<std::int32_t>(p);
    }
  }
  return -1;
}

// The feed's coverage as semantics §7 defines it, from the records the rules accept: its
// covered minutes of event time (UTC minutes since the epoch, sorted) and its coverage
// gaps, runs of 5 or more minutes without one between two with one.
struct FeedCoverage {
  static constexpr std::int64_t kMinuteUs = 60'000'000;
  std::vector<std::int64_t> minutes;
  std::vector<std::pair<std::int64_t, std::int64_t>> gaps;  // [first, end) uncovered minutes

  explicit FeedCoverage(const std::vector<std::int64_t>& covered) : minutes(covered) {
    const auto gap_minutes = static_cast<std::int64_t>(kCoverageGapS) / 60;
    for (std::size_t i = 1; i < minutes.size(); ++i) {
      if (minutes[i] - minutes[i - 1] - 1 >= gap_minutes) {
        gaps.emplace_back(minutes[i - 1] + 1, minutes[i]);
      }
    }
  }
  // A gap lies (in part) between the instants a < b (UTC µs), as the stream's Coverage says.
  [[nodiscard]] bool GapBetween(std::int64_t a, std::int64_t b) const {
    return std::any_of(gaps.begin(), gaps.end(), [&](const auto& g) {
      return g.first * kMinuteUs < b && g.second * kMinuteUs > a;
    });
  }
  [[nodiscard]] bool InGap(std::int64_t us) const {
    const std::int64_t minute = us / kMinuteUs;  // event times here are after 1970
    return std::any_of(gaps.begin(), gaps.end(),
                       [&](const auto& g) { return g.first <= minute && minute < g.second; });
  }
};

// The true headways: consecutive true departures of a route, direction and service date,
// each at semantics §7's departure moment as the feed shows it (`moment`), a departure in no
// service period of the written plan (`unplanned`: PlanPeriods, widened) left out, each
// pair left out as service_break when its departures lie in different service periods,
// or as coverage_gap when a coverage gap of the feed lies between them.
template <typename At>
std::vector<TruthHeadway> TrueHeadways(const Fleet& fleet, const DayPlan& plan,
                                       const std::map<LineKey, std::vector<PlanPeriod>>& periods,
                                       const FeedCoverage& coverage, const At& at,
                                       const std::string& service_date,
                                       const std::function<double(const TrueDeparture&)>& moment) {
  const auto period_of = [&](const LineKey& line, double t) { return PeriodOf(periods, line, t); };
  std::map<std::pair<std::string, int>, std::vector<double>> times;
  for (const TrueDeparture& d : fleet.departures) {
    const PlannedTrip& trip = plan.trips[static_cast<std::size_t>(d.slot)];
    const double t = moment(d);
    if (period_of({trip.route_id, trip.direction_id}, t) >= 0) {
      times[{trip.route_id, trip.direction_id}].push_back(t);
    }
  }
  std::vector<TruthHeadway> out;
  for (auto& [line, line_times] : times) {
    // A named reference: lambdas below use it, and C++20 lets them capture a structured
    // binding but clang 14 (clang-tidy) cannot compile that.
    std::vector<double>& list = line_times;
    std::sort(list.begin(), list.end());
    for (std::size_t i = 1; i < list.size(); ++i) {
      TruthHeadway h;
      h.route_id = line.first;
      h.direction_id = line.second;
      h.service_date = service_date;
      h.time_us = at(list[i]);
      h.headway_s = static_cast<double>(at(list[i]) - at(list[i - 1])) / 1e6;
      if (period_of(line, list[i - 1]) != period_of(line, list[i])) {
        h.exclusion = "service_break";
      } else if (coverage.GapBetween(at(list[i - 1]), at(list[i]))) {
        h.exclusion = "coverage_gap";
      }
      out.push_back(std::move(h));
    }
  }
  return out;
}

// The alerts the day causes (TruthAlert), from its true headways, the written plan, its
// service periods and the feed's coverage. The planned headway at a moment is that
// of the frequency windows holding it (several at once combine as rates: 1 / sum of 1 /
// headway), else the written plan's gap between the departures around it (before the
// first: the first gap; after the last: the last); bunching and gap read it at the later
// departure, gap_in_progress at the earlier one, as semantics §7's stream does. A
// gap_in_progress needs its moment inside the service period of the departure before it
// (after that the plan has a break, not a gap); a feed_blind is each coverage gap of the
// feed (one the feed delivers again after, as the stream sees a gap end).
std::vector<TruthAlert> TrueAlerts(
    const std::vector<TruthHeadway>& headways,
    const std::map<std::pair<std::string, int>, std::vector<std::int32_t>>& written,
    const std::map<std::pair<std::string, int>,
                   std::set<std::tuple<std::int32_t, std::int32_t, std::int32_t>>>& windows,
    const std::map<LineKey, std::vector<PlanPeriod>>& periods, const FeedCoverage& coverage,
    const std::function<std::int64_t(double)>& at) {
  // The period of `line` holding the moment `us`, if one does.
  const auto period_holding = [&](const LineKey& line, std::int64_t us) -> std::int32_t {
    const auto it = periods.find(line);
    if (it == periods.end()) {
      return -1;
    }
    for (std::size_t p = 0; p < it->second.size(); ++p) {
      if (at(it->second[p].from) <= us && us <= at(it->second[p].to)) {
        return static_cast<std::int32_t>(p);
      }
    }
    return -1;
  };
  std::map<std::pair<std::string, int>, std::vector<std::int64_t>> planned;
  for (const auto& [line, departures] : written) {
    auto& list = planned[line];
    for (const auto s : departures) {
      list.push_back(at(s));
    }
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  const auto planned_at = [&](const std::pair<std::string, int>& line, std::int64_t t) -> double {
    if (const auto w = windows.find(line); w != windows.end()) {
      double rate = 0;
      for (const auto& [start, end, headway] : w->second) {
        if (at(start) <= t && t < at(end) && headway > 0) {
          rate += 1.0 / headway;
        }
      }
      if (rate > 0) {
        return 1.0 / rate;
      }
    }
    const auto it = planned.find(line);
    if (it == planned.end() || it->second.size() < 2) {
      return 0;
    }
    // The written departures of the period nearest `t`: after a period's last departure
    // the plan's headway is its last gap, not the break to the next period.
    std::vector<std::int64_t> list = it->second;
    if (const auto spans = periods.find(line); spans != periods.end()) {
      const PlanPeriod* nearest = nullptr;
      std::int64_t nearest_distance = 0;
      for (const PlanPeriod& span : spans->second) {
        const std::int64_t from = at(span.from);
        const std::int64_t to = at(span.to);
        const std::int64_t distance = t < from ? from - t : (t > to ? t - to : 0);
        if (nearest == nullptr || distance < nearest_distance) {
          nearest = &span;
          nearest_distance = distance;
        }
      }
      if (nearest != nullptr) {
        std::erase_if(list,
                      [&](std::int64_t v) { return v < at(nearest->from) || v > at(nearest->to); });
      }
      if (list.size() < 2) {
        return 0;
      }
    }
    auto next = std::upper_bound(list.begin(), list.end(), t);
    if (next == list.begin()) {
      ++next;
    } else if (next == list.end()) {
      --next;
    }
    return static_cast<double>(*next - *std::prev(next)) / 1e6;
  };
  // The true departures of each line, from its headways (a headway's earlier departure
  // is the one before it).
  std::map<std::pair<std::string, int>, std::vector<std::int64_t>> departed;
  for (const auto& h : headways) {
    auto& list = departed[{h.route_id, h.direction_id}];
    list.push_back(h.time_us);
    list.push_back(h.time_us - std::llround(h.headway_s * 1e6));
  }
  for (auto& [line, list] : departed) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  // Semantics-notes' watched line: in the 2 hours up to the departure that opens a gap, at
  // least 3 departures planned and at least half as many run, both counted only outside
  // the feed's coverage gaps (5 or more uncovered minutes between covered ones; the
  // covered minutes are those of the records the rules accept), and those 2 hours in
  // coverage gaps for at most half their minutes. The true departures stand for the found
  // ones: where the day did not run them (before --hours starts its service), the stream
  // cannot tell a line not running from a feed not showing it.
  constexpr std::int64_t kMinuteUs = FeedCoverage::kMinuteUs;
  const auto plan_watches = [&](const std::pair<std::string, int>& line, std::int64_t t) {
    const std::int64_t since = t - std::int64_t{7200} * 1'000'000;
    const std::int64_t first = since / kMinuteUs;
    const std::int64_t last = t / kMinuteUs;
    std::int64_t blind = 0;
    for (const auto& [from, to] : coverage.gaps) {
      blind += std::max<std::int64_t>(0, std::min(to - 1, last) - std::max(from, first) + 1);
    }
    if (2 * blind > last - first + 1) {
      return false;
    }
    const auto count = [&](const std::vector<std::int64_t>& list) {
      return std::count_if(std::lower_bound(list.begin(), list.end(), since),
                           std::upper_bound(list.begin(), list.end(), t),
                           [&](std::int64_t us) { return !coverage.InGap(us); });
    };
    const auto it = planned.find(line);
    const auto ran = departed.find(line);
    if (it == planned.end() || ran == departed.end()) {
      return false;
    }
    const auto n = count(it->second);
    return n >= 3 && 2 * count(ran->second) >= n;
  };
  std::vector<TruthAlert> out;
  for (const auto& h : headways) {
    if (h.exclusion == "service_break") {
      continue;
    }
    const std::pair<std::string, int> line{h.route_id, h.direction_id};
    const std::int64_t later = h.time_us;
    const std::int64_t earlier = later - std::llround(h.headway_s * 1e6);
    if (h.exclusion.empty()) {
      const double p = planned_at(line, later);
      if (p > 0 && h.headway_s < 0.25 * p) {
        out.push_back({"bunching", h.route_id, h.direction_id, earlier, later, p});
      } else if (p > 0 && h.headway_s > 2 * p && plan_watches(line, earlier)) {
        out.push_back({"gap", h.route_id, h.direction_id, earlier, later, p});
      }
    }
    const double p1 = planned_at(line, earlier);
    const std::int64_t point = earlier + std::llround(2 * p1 * 1e6);
    if (p1 > 0 && later > point && !coverage.GapBetween(earlier, point) &&
        plan_watches(line, earlier) && period_holding(line, point) >= 0 &&
        period_holding(line, point) == period_holding(line, earlier)) {
      out.push_back({"gap_in_progress", h.route_id, h.direction_id, earlier, later, p1});
    }
  }
  // After a line's last departure, while its service period still runs (a day cut by
  // --hours): a gap_in_progress that nothing closes, when the feed's last covered minute
  // is that moment's or later (the stream's coverage is by the minute).
  std::map<std::pair<std::string, int>, std::int64_t> last;
  for (const auto& h : headways) {
    auto& l = last[{h.route_id, h.direction_id}];
    l = std::max(l, h.time_us);
  }
  for (const auto& [line, d] : last) {
    const double p = planned_at(line, d);
    const std::int64_t point = d + std::llround(2 * p * 1e6);
    const auto plan = planned.find(line);
    if (p > 0 && plan != planned.end() && point < plan->second.back() && plan_watches(line, d) &&
        period_holding(line, point) >= 0 &&
        period_holding(line, point) == period_holding(line, d) && !coverage.minutes.empty() &&
        point / kMinuteUs <= coverage.minutes.back() && !coverage.GapBetween(d, point)) {
      out.push_back({"gap_in_progress", line.first, line.second, d, 0, p});
    }
  }
  for (const auto& [first, end] : coverage.gaps) {
    out.push_back({"feed_blind", "", -1, first * kMinuteUs, end * kMinuteUs, 0});
  }
  std::sort(out.begin(), out.end(), [](const TruthAlert& a, const TruthAlert& b) {
    return std::tie(a.kind, a.route_id, a.direction_id, a.start_us) <
           std::tie(b.kind, b.route_id, b.direction_id, b.start_us);
  });
  return out;
}

// The network, its service on the date and what stale_plan changed of it.
struct Day {
  DayPlan plan;
  TrafficModel traffic;
  // The planned departures of the GTFS frota is given, per route and direction, before
  // --hours and stale_plan change what runs: the service periods of the truth's headways.
  std::map<std::pair<std::string, int>, std::vector<std::int32_t>> written;
  // Its frequency windows (start, end, headway), per route and direction.
  std::map<std::pair<std::string, int>,
           std::set<std::tuple<std::int32_t, std::int32_t, std::int32_t>>>
      windows;
  std::vector<TruthStaleRoute> stale_plan;
};

// Simulate's first phase: the built-in city (written as GTFS and GeoJSON) or the given
// GTFS, planned for the date, with the area rule 4 will use named in `summary`.
base::Result<Day> PlanTheDay(const SimulateOptions& options, SimulateSummary& summary) {
  const FaultConfig& faults = options.faults;
  Day day;
  TrafficModel& traffic = day.traffic;
  if (options.gtfs) {
    summary.gtfs = *options.gtfs;
  } else {
    Progress(options,
             fmt::format("building city vehicles={} seed={}", options.vehicles, options.seed));
    const City city = BuildCity({options.vehicles, options.seed, options.date});
    summary.gtfs = options.out / "gtfs";
    summary.area = options.out / "area.geojson";
    FROTA_RETURN_IF_ERROR(WriteCityGtfs(city, summary.gtfs));
    FROTA_RETURN_IF_ERROR(WriteCityGeoJson(city, summary.area));
    traffic = city.traffic;
  }
  FROTA_ASSIGN_OR_RETURN(const auto feed, gtfs::StaticFeed::Load(summary.gtfs));
  if (options.gtfs) {
    traffic = DefaultTraffic(feed);
  }
  FROTA_ASSIGN_OR_RETURN(day.plan, PlanDay(feed, options.date, traffic));
  DayPlan& plan = day.plan;
  auto& written = day.written;
  for (const PlannedTrip& trip : plan.trips) {
    written[{trip.route_id, trip.direction_id}].push_back(trip.departure_s);
    if (trip.frequency_based) {
      day.windows[{trip.route_id, trip.direction_id}].emplace(trip.window_start_s,
                                                              trip.window_end_s, trip.headway_s);
    }
  }
  if (options.departures_between_s) {
    const std::int32_t from = options.departures_between_s->first;
    const std::int32_t to = options.departures_between_s->second;
    std::erase_if(plan.trips, [&](const PlannedTrip& trip) {
      return trip.departure_s < from || trip.departure_s >= to;
    });
  }
  if (plan.trips.empty()) {
    return base::InvalidInput("{}: no trip with a shape runs on {}", summary.gtfs.string(),
                              base::FormatDate(options.date));
  }
  if (options.gtfs) {
    if (options.area) {
      summary.area = *options.area;
    } else {
      summary.area = options.out / "area.geojson";
      FROTA_RETURN_IF_ERROR(WriteDerivedArea(plan, summary.area));
    }
  }
  day.stale_plan = ApplyStalePlan(plan, faults, options.seed);
  return day;
}

// The truth's header: the day, its files, its counts, delivery latencies and what the
// rules must accept and reject (copied into `summary`).
Truth TruthHeader(const PollPlan& polled, const PollCounts& counts,
                  const ExpectedOutcomes& expected, SimulateSummary& summary) {
  const SimulateOptions& options = *polled.options;
  const DayPlan& plan = *polled.plan;
  const Fleet& fleet = *polled.fleet;
  const std::vector<std::int64_t>& latency_histogram = counts.latency_histogram;
  const std::int64_t records_over_300 = counts.records_over_300;
  Truth truth;
  truth.seed = options.seed;
  truth.date = base::FormatDate(options.date);
  truth.time_zone = plan.time_zone;
  truth.feed_id = options.feed_id;
  const auto relative = [&](const fs::path& p) {
    const fs::path base = fs::absolute(summary.truth).parent_path();
    const fs::path absolute = fs::absolute(p);
    const auto rel = absolute.lexically_relative(base);
    return rel.empty() || rel.string().starts_with("..") ? absolute.lexically_normal().string()
                                                         : rel.string();
  };
  truth.archive = relative(options.out);
  truth.gtfs = relative(summary.gtfs);
  truth.area = relative(summary.area);
  truth.fault_records = relative(fs::absolute(summary.truth).parent_path() / kFaultRecordsFile);
  truth.peak_vehicles = fleet.peak_vehicles;
  truth.vehicles = summary.vehicles;
  truth.routes = summary.routes;
  truth.planned_trips = summary.planned_trips;
  truth.run_trips = summary.run_trips;
  truth.responses = summary.responses;
  truth.records = summary.records;
  truth.body_bytes = summary.bytes;
  {
    std::int64_t total = 0;
    for (const auto n : latency_histogram) {
      total += n;
    }
    std::int64_t running = 0;
    for (std::size_t s = 0; s < latency_histogram.size(); ++s) {
      running += latency_histogram[s];
      if (truth.latency_p50_s == 0 && running * 2 >= total && total > 0) {
        truth.latency_p50_s = static_cast<double>(s);
      }
      if (truth.latency_p90_s == 0 && running * 10 >= total * 9 && total > 0) {
        truth.latency_p90_s = static_cast<double>(s);
      }
    }
    truth.latency_over_300s_share = summary.records > 0 ? static_cast<double>(records_over_300) /
                                                              static_cast<double>(summary.records)
                                                        : 0;
  }
  truth.expected_accepted = expected.accepted();
  for (const auto reason : model::kAllRejectReasons) {
    const std::int64_t n = expected.rejected()[static_cast<std::size_t>(reason)];
    const bool section2 = reason != model::RejectReason::kStateVectorTooShort &&
                          reason != model::RejectReason::kMalformedRecord &&
                          reason != model::RejectReason::kBadPayload;
    if (n > 0 || section2) {
      truth.expected_rejected[std::string(model::RejectReasonName(reason))] = n;
    }
  }
  summary.expected_accepted = truth.expected_accepted;
  summary.expected_rejected = truth.expected_rejected;
  return truth;
}

// The truth's faults: per fault, how often it was injected out of how many chances, at
// what configured rate, and what the rules make of the records it touched.
void AddFaults(Truth& truth, const PollPlan& polled, const Day& day, const PollCounts& counts,
               const ExpectedOutcomes& expected, const SimulateSummary& summary) {
  const FaultConfig& faults = polled.options->faults;
  const Fleet& fleet = *polled.fleet;
  const std::vector<FaultRow>& fault_rows = counts.fault_rows;
  const auto& injected = counts.injected;
  const std::int64_t fresh_records = counts.fresh_records;
  const std::int64_t headerless_fresh = counts.headerless_fresh;
  const std::int64_t line_polls = counts.line_polls;
  const std::int64_t repeated_line_polls = counts.repeated_line_polls;
  const std::int64_t polls = polled.last_poll - polled.first_poll + 1;
  const auto& outages = polled.outages;
  const auto& silences = polled.silences;
  const auto& stale_plan = day.stale_plan;
  std::array<std::map<std::string, std::int64_t>, kFaultCount> outcomes;
  std::array<std::int64_t, kFaultCount> record_counts{};
  for (const FaultRow& row : fault_rows) {
    ++outcomes[static_cast<std::size_t>(row.fault)]
              [OutcomeName(expected.outcomes()[static_cast<std::size_t>(row.offset)])];
    ++record_counts[static_cast<std::size_t>(row.fault)];
  }
  std::int64_t duplicate_injected = 0;
  std::int64_t late_injected = 0;
  std::int64_t never_tagged_injected = 0;
  for (const auto& d : fleet.departures) {
    duplicate_injected += d.reported_slot != d.slot ? 1 : 0;
    late_injected += d.tagged_late ? 1 : 0;
    never_tagged_injected += d.never_tagged ? 1 : 0;
  }
  const auto add_fault = [&](Fault fault, std::string unit, std::int64_t n, std::int64_t of,
                             double rate) {
    TruthFault f;
    f.fault = std::string(FaultName(fault));
    f.unit = std::move(unit);
    f.injected = n;
    f.opportunities = of;
    f.configured_rate = rate;
    f.records = record_counts[static_cast<std::size_t>(fault)];
    f.expected = outcomes[static_cast<std::size_t>(fault)];
    truth.faults.push_back(std::move(f));
  };
  for (const Fault fault : kDrawnRecordFaults) {
    add_fault(fault, "record", injected[static_cast<std::size_t>(fault)], fresh_records,
              faults.RecordRate(fault));
  }
  add_fault(Fault::kMissingTimestamp, "record_in_headerless_response",
            injected[static_cast<std::size_t>(Fault::kMissingTimestamp)], headerless_fresh,
            faults.missing_timestamp);
  add_fault(Fault::kDelayedReport, "record",
            injected[static_cast<std::size_t>(Fault::kDelayedReport)], summary.records, 0);
  add_fault(Fault::kRepeat, "line_poll", repeated_line_polls, line_polls, faults.repeat);
  add_fault(Fault::kHeaderlessResponse, "response",
            injected[static_cast<std::size_t>(Fault::kHeaderlessResponse)], polls,
            faults.headerless_response);
  add_fault(Fault::kLateResponse, "response",
            injected[static_cast<std::size_t>(Fault::kLateResponse)], summary.responses, 0);
  add_fault(Fault::kNeverRun, "trip", static_cast<std::int64_t>(fleet.never_run.size()),
            fleet.explicit_trips, faults.never_run);
  add_fault(Fault::kDuplicateSlot, "trip", duplicate_injected, fleet.explicit_run_trips,
            faults.duplicate_slot);
  add_fault(Fault::kTaggedLate, "trip", late_injected, fleet.long_run_trips, faults.tagged_late);
  add_fault(Fault::kNeverTagged, "trip", never_tagged_injected,
            static_cast<std::int64_t>(fleet.departures.size()), faults.never_tagged);
  add_fault(Fault::kFeedOutage, "outage", static_cast<std::int64_t>(outages.size()),
            static_cast<std::int64_t>(faults.feed_outages.size()), 0);
  add_fault(Fault::kLineSilent, "line_window", static_cast<std::int64_t>(silences.size()),
            faults.line_silences, 0);
  add_fault(Fault::kStalePlan, "route", static_cast<std::int64_t>(stale_plan.size()),
            static_cast<std::int64_t>(fleet.route_ids.size()), 0);
  add_fault(Fault::kReassignedWhileParked, "layover",
            static_cast<std::int64_t>(fleet.reassignments.size()), fleet.long_layovers,
            faults.reassigned_while_parked);
  std::sort(truth.faults.begin(), truth.faults.end(),
            [](const TruthFault& a, const TruthFault& b) { return a.fault < b.fault; });
}

// The truth's events: stops, departures, trips never run, shared slots, reassignments,
// speed cells, outages, silences, stale routes and headways (the last three also in
// `summary`).
void AddTrueEvents(Truth& truth, const PollPlan& polled, const Day& day,
                   const ExpectedOutcomes& expected, SimulateSummary& summary) {
  const DayPlan& plan = *polled.plan;
  const Fleet& fleet = *polled.fleet;
  const std::int64_t day_start_us = polled.day_start_us;
  const auto& outages = polled.outages;
  const auto& silences = polled.silences;
  const auto& stale_plan = day.stale_plan;
  const auto& written = day.written;
  const std::string start_date = base::FormatGtfsDate(plan.service_date);
  const auto at = [&](double t) {
    return day_start_us + static_cast<std::int64_t>(std::llround(t * 1e3)) * 1000;
  };
  const auto id_of = [&](std::int32_t v) { return fleet.vehicles[static_cast<std::size_t>(v)].id; };
  for (const TrueStop& stop : fleet.stops) {
    const SimVehicle& vehicle = fleet.vehicles[static_cast<std::size_t>(stop.vehicle)];
    truth.stops.push_back({vehicle.id, fleet.route_ids[static_cast<std::size_t>(vehicle.route)],
                           at(stop.t_start), at(stop.t_end), stop.position.lat, stop.position.lon,
                           std::string(LegKindName(stop.kind)), stop.near_terminal});
  }
  for (const TrueDeparture& d : fleet.departures) {
    const PlannedTrip& trip = plan.trips[static_cast<std::size_t>(d.slot)];
    TruthDeparture departure;
    departure.vehicle_id = id_of(d.vehicle);
    departure.route_id = trip.route_id;
    departure.direction_id = trip.direction_id;
    departure.trip_id = trip.trip_id;
    departure.reported_trip_id = plan.trips[static_cast<std::size_t>(d.reported_slot)].trip_id;
    departure.start_date = start_date;
    departure.start_time = trip.start_time;
    departure.scheduled_us = at(trip.departure_s);
    departure.time_us = at(d.t);
    departure.exit_time_us = at(d.t_exit);
    departure.tagged_late = d.tagged_late;
    departure.never_tagged = d.never_tagged;
    truth.departures.push_back(std::move(departure));
  }
  for (const std::int32_t slot : fleet.never_run) {
    const PlannedTrip& trip = plan.trips[static_cast<std::size_t>(slot)];
    truth.never_run.push_back({trip.trip_id, start_date, trip.start_time, trip.route_id, {}});
  }
  {
    // Slots reported by two or more buses: by duplicate_slot or by a reassignment.
    std::map<std::int32_t, std::vector<std::string>> reporters;
    for (const TrueDeparture& d : fleet.departures) {
      reporters[d.reported_slot].push_back(id_of(d.vehicle));
    }
    for (const Reassignment& r : fleet.reassignments) {
      reporters[r.slot].push_back(id_of(r.vehicle));
    }
    for (auto& [slot, ids] : reporters) {
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      if (ids.size() >= 2) {
        const PlannedTrip& trip = plan.trips[static_cast<std::size_t>(slot)];
        truth.duplicate_slots.push_back(
            {trip.trip_id, start_date, trip.start_time, trip.route_id, ids});
      }
    }
  }
  for (const Reassignment& r : fleet.reassignments) {
    truth.reassignments.push_back({id_of(r.vehicle),
                                   plan.trips[static_cast<std::size_t>(r.slot)].trip_id, start_date,
                                   at(r.t_start), at(r.t_end)});
  }
  for (const auto& [key, sums] : fleet.cell_hours) {
    truth.speed_cells.push_back(
        {DateText(key.local_days), key.hour, key.cell_x, key.cell_y, sums.segments, sums.distance_m,
         sums.duration_s, sums.duration_s > 0 ? 3.6 * sums.distance_m / sums.duration_s : 0});
  }
  const auto by_vehicle_time = [](const auto& a, const auto& b) {
    return std::tie(a.vehicle_id, a.start_us) < std::tie(b.vehicle_id, b.start_us);
  };
  std::sort(truth.stops.begin(), truth.stops.end(), by_vehicle_time);
  std::sort(truth.reassignments.begin(), truth.reassignments.end(), by_vehicle_time);
  std::sort(truth.departures.begin(), truth.departures.end(), [](const auto& a, const auto& b) {
    return std::tie(a.vehicle_id, a.time_us) < std::tie(b.vehicle_id, b.time_us);
  });
  for (const auto& [start, end] : outages) {
    truth.outages.push_back({"", at(start), at(end)});
  }
  for (const LineSilence& silence : silences) {
    truth.line_silences.push_back({fleet.route_ids[static_cast<std::size_t>(silence.route)],
                                   at(silence.start), at(silence.end)});
  }
  truth.stale_plan = stale_plan;
  for (const auto& o : truth.outages) {
    summary.outages_us.emplace_back(o.start_us, o.end_us);
  }
  summary.line_silences = static_cast<std::int64_t>(silences.size());
  for (const auto& r : stale_plan) {
    summary.stale_routes.push_back(r.route_id);
  }
  const auto periods = PlanPeriods(written);
  const FeedCoverage coverage(expected.covered_minutes());
  truth.headways = TrueHeadways(
      fleet, plan, periods, coverage, at, base::FormatDate(plan.service_date),
      [&](const TrueDeparture& d) {
        // Semantics §7 times a departure at a position: the last one of the
        // bus the feed delivered (a record the rules accept) within 1,000 m of
        // the pattern's first point at or before the true crossing of 1,000 m
        // along it. When the feed showed nothing of the bus for longer than
        // the detector's exit gap from there across the crossing, it hid when
        // the bus left: the crossing itself stands (a coverage gap there excludes it).
        const auto& shown = expected.shown(d.vehicle);
        const PlannedTrip& trip = plan.trips[static_cast<std::size_t>(d.slot)];
        const LatLon start =
            plan.shapes[static_cast<std::size_t>(trip.shape)].path.points().front();
        const std::int64_t exit_us = at(d.t_exit);
        const auto after = std::upper_bound(
            shown.begin(), shown.end(), exit_us,
            [](std::int64_t us, const ExpectedOutcomes::Shown& r) { return us < r.event_us; });
        auto inside = after;
        while (inside != shown.begin() && std::prev(inside)->event_us >= exit_us - kMaxExitGapUs &&
               geo::HaversineM(start.lat, start.lon, std::prev(inside)->lat,
                               std::prev(inside)->lon) > kTerminalRadiusM) {
          --inside;
        }
        if (inside == shown.begin() || after == shown.end() ||
            geo::HaversineM(start.lat, start.lon, std::prev(inside)->lat, std::prev(inside)->lon) >
                kTerminalRadiusM ||
            after->event_us - std::prev(inside)->event_us > kMaxExitGapUs) {
          return d.t_exit;
        }
        return d.t_exit - static_cast<double>(exit_us - std::prev(inside)->event_us) / 1e6;
      });
  truth.alerts = TrueAlerts(truth.headways, written, day.windows, periods, coverage,
                            [&at](double s) { return static_cast<std::int64_t>(at(s)); });
}

// Every record a fault touched, with what the rules must make of it: Parquet, for a
// join with the `rejected` table on (feed_id, source_offset).
base::Status WriteFaultRecords(const SimulateOptions& options, const Fleet& fleet,
                               const PollCounts& counts, const ExpectedOutcomes& expected,
                               const SimulateSummary& summary) {
  const std::vector<FaultRow>& fault_rows = counts.fault_rows;
  FROTA_ASSIGN_OR_RETURN(auto db, sink::DuckDbConnection::Open(""));
  FROTA_RETURN_IF_ERROR(db->Execute(
      "CREATE TABLE fault_records (feed_id VARCHAR, source_offset BIGINT, fault VARCHAR, "
      "vehicle_id VARCHAR, expected VARCHAR)"));
  using sink::ColumnType;
  FROTA_ASSIGN_OR_RETURN(
      auto appender,
      sink::ChunkAppender::Create(*db, "fault_records",
                                  {ColumnType::kVarchar, ColumnType::kBigint, ColumnType::kVarchar,
                                   ColumnType::kVarchar, ColumnType::kVarchar}));
  std::array<std::string, model::kRejectReasonCount + 1> outcome_names;
  for (std::size_t i = 0; i < outcome_names.size(); ++i) {
    outcome_names[i] = OutcomeName(static_cast<std::uint8_t>(i));
  }
  for (const FaultRow& row : fault_rows) {
    appender->SetString(0, options.feed_id);
    appender->SetInt64(1, row.offset);
    appender->SetString(2, FaultName(row.fault));
    appender->SetString(3, fleet.vehicles[static_cast<std::size_t>(row.vehicle)].id);
    appender->SetString(4,
                        outcome_names[expected.outcomes()[static_cast<std::size_t>(row.offset)]]);
    FROTA_RETURN_IF_ERROR(appender->EndRow());
  }
  FROTA_RETURN_IF_ERROR(appender->Close());
  const fs::path parquet = fs::absolute(summary.truth).parent_path() / kFaultRecordsFile;
  std::string quoted = parquet.string();
  for (std::size_t pos = 0; (pos = quoted.find('\'', pos)) != std::string::npos; pos += 2) {
    quoted.insert(pos, "'");
  }
  FROTA_RETURN_IF_ERROR(db->Execute(fmt::format(
      "COPY (SELECT * FROM fault_records ORDER BY source_offset) TO '{}' (FORMAT parquet)",
      quoted)));
  return base::Status::Ok();
}

}  // namespace

base::Result<SimulateSummary> Simulate(const SimulateOptions& options) {
  SimulateSummary summary;
  const FaultConfig& faults = options.faults;
  std::error_code ec;
  fs::create_directories(options.out, ec);
  if (ec) {
    return base::IoError("{}: cannot create: {}", options.out.string(), ec.message());
  }
  if (fs::exists(options.out / options.feed_id / "feed.json")) {
    return base::InvalidInput("{}: already holds an archive of feed {}; choose an empty --out",
                              options.out.string(), options.feed_id);
  }
  summary.archive = options.out;
  summary.truth = options.truth.empty() ? options.out / "truth.json" : options.truth;
  FROTA_ASSIGN_OR_RETURN(const Day day, PlanTheDay(options, summary));
  const DayPlan& plan = day.plan;

  // The same loader `frota replay --area` uses, so rule 4 is answered by the same file.
  FROTA_ASSIGN_OR_RETURN(const geo::Area area, geo::Area::LoadGeoJson(summary.area));
  FROTA_ASSIGN_OR_RETURN(const auto zone, base::TimeZone::Load(plan.time_zone));

  Progress(options,
           fmt::format("driving trips={} shapes={}", plan.trips.size(), plan.shapes.size()));
  const Fleet fleet = BuildFleet(plan, day.traffic, faults, options.seed, zone);
  summary.routes = static_cast<std::int64_t>(fleet.route_ids.size());
  summary.vehicles = static_cast<std::int64_t>(fleet.vehicles.size());
  summary.peak_vehicles = fleet.peak_vehicles;
  summary.planned_trips = static_cast<std::int64_t>(plan.trips.size());
  summary.run_trips = static_cast<std::int64_t>(fleet.departures.size());

  // The archive.
  source::FeedInfo info;
  info.feed_id = options.feed_id;
  info.format = codec::Format::kGtfsRt;
  info.mode = model::Mode::kBus;
  info.time_zone = plan.time_zone;
  info.url = "sim://frota/vehicle-positions.pb";
  source::FeedInfo sppo_info = info;
  sppo_info.feed_id = "rio-sppo";
  sppo_info.format = codec::Format::kRioSppo;
  sppo_info.url = "sim://frota/gps/sppo";
  std::optional<fs::path> sppo_root;
  if (options.sppo) {
    sppo_root = options.out / "sppo";
    summary.sppo_archive = *sppo_root;
  }
  FROTA_ASSIGN_OR_RETURN(auto writers, WriterPool::Open(options.out, info, sppo_root, sppo_info,
                                                        options.writers, fleet, plan));

  const std::int64_t day_start_us = base::ToUnixMicros(plan.service_day_start);
  double first_on = fleet.vehicles.front().t_on;
  double last_off = fleet.vehicles.front().t_off;
  for (const auto& vehicle : fleet.vehicles) {
    first_on = std::min(first_on, vehicle.t_on);
    last_off = std::max(last_off, vehicle.t_off);
  }
  const auto first_poll = static_cast<std::int64_t>(std::floor(first_on / kPollS));
  const auto last_poll =
      static_cast<std::int64_t>(std::ceil((last_off + kReportAfterOffS) / kPollS));

  // Feed-wide outages (no poll answered) and line silences, in seconds of the service day.
  PollPlan polled{&options, &plan, &fleet, &area, day_start_us, first_poll, last_poll, {}, {}};
  for (std::size_t i = 0; i < faults.feed_outages.size(); ++i) {
    const OutageSpec& spec = faults.feed_outages[i];
    Rng outage_rng = Rng::For(options.seed, "feed_outage", i);
    const double start = std::floor(outage_rng.Uniform(spec.earliest_start_s, spec.latest_start_s));
    const double end =
        start + std::floor(outage_rng.Uniform(spec.min_duration_s, spec.max_duration_s));
    if (end > first_on && start < last_off + kReportAfterOffS) {
      polled.outages.emplace_back(start, end);
    }
  }
  polled.silences = DrawLineSilences(fleet, faults, options.seed);

  ExpectedOutcomes expected(&area);
  FROTA_ASSIGN_OR_RETURN(const PollCounts counts, PollDay(polled, *writers, expected, summary));
  std::tie(summary.bytes, summary.sppo_bytes) = writers->bytes();

  // The truth.
  Truth truth = TruthHeader(polled, counts, expected, summary);
  AddFaults(truth, polled, day, counts, expected, summary);
  AddTrueEvents(truth, polled, day, expected, summary);
  FROTA_RETURN_IF_ERROR(WriteTruth(truth, summary.truth));
  FROTA_RETURN_IF_ERROR(WriteFaultRecords(options, fleet, counts, expected, summary));
  return summary;
}

}  // namespace frota::sim
