// The service plan and the feed's coverage as departures and headways read them (semantics §7):
// coverage gaps, service periods, planned headways, a departure's place.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "frota/base/time.h"
#include "frota/base/time_zone.h"
#include "frota/gtfs/holidays.h"
#include "frota/gtfs/service_day.h"
#include "frota/gtfs/static_feed.h"
#include "frota/regularity/departures.h"

namespace frota::regularity {

inline constexpr std::int64_t kMinuteUs = 60'000'000;
// "No two consecutive planned departures more than max(60 min, 3 x the planned headway
// before the gap) apart" (semantics §7).
inline constexpr double kBreakMinS = 3600;
inline constexpr double kBreakHeadways = 3;

inline std::int64_t MinuteOf(base::Timestamp t) {
  const std::int64_t us = base::ToUnixMicros(t);
  return us >= 0 ? us / kMinuteUs : -((-us + kMinuteUs - 1) / kMinuteUs);
}
inline base::Timestamp MinuteStart(std::int64_t minute) {
  return base::FromUnixMicros(minute * kMinuteUs);
}

// What a feed delivered: its covered minutes (at least one accepted position), and its
// coverage gaps, runs of `gap_minutes` or more uncovered minutes between the first and
// the last covered one.
class Coverage {
 public:
  Coverage() = default;
  Coverage(std::vector<std::int64_t> minutes, int gap_minutes) {
    for (const std::int64_t minute : minutes) {
      Add(minute, gap_minutes);
    }
  }
  // The next covered minute, later than every one before (a stream adds them as the
  // watermark passes them; the batch all at once, in order).
  void Add(std::int64_t minute, int gap_minutes) {
    if (!minutes_.empty() && minute - minutes_.back() - 1 >= gap_minutes) {
      gaps_.emplace_back(minutes_.back() + 1, minute);
    }
    minutes_.push_back(minute);
  }
  [[nodiscard]] const std::vector<std::int64_t>& minutes() const { return minutes_; }
  [[nodiscard]] const std::vector<std::pair<std::int64_t, std::int64_t>>& gaps() const {
    return gaps_;
  }
  [[nodiscard]] bool Covered(std::int64_t minute) const {
    return std::binary_search(minutes_.begin(), minutes_.end(), minute);
  }
  // Between the feed's first and last covered minute: a capture's own span.
  [[nodiscard]] bool InSpan(std::int64_t minute) const {
    return !minutes_.empty() && minute >= minutes_.front() && minute <= minutes_.back();
  }
  // The feed was watching: inside its observed span and in no gap.
  [[nodiscard]] bool Watching(std::int64_t minute) const {
    if (!InSpan(minute)) {
      return false;
    }
    const auto it = std::upper_bound(
        gaps_.begin(), gaps_.end(), minute,
        [](std::int64_t m, const std::pair<std::int64_t, std::int64_t>& g) { return m < g.first; });
    return it == gaps_.begin() || minute >= std::prev(it)->second;
  }
  // A gap lies (in part) between instants a < b.
  [[nodiscard]] bool GapBetween(base::Timestamp a, base::Timestamp b) const {
    for (const auto& [from, to] : gaps_) {  // few gaps; a linear scan is fine
      if (MinuteStart(from) < b && MinuteStart(to) > a) {
        return true;
      }
    }
    return false;
  }

 private:
  std::vector<std::int64_t> minutes_;
  std::vector<std::pair<std::int64_t, std::int64_t>> gaps_;
};

// One service period of a route and direction on a service date: a maximal run of its
// planned departures (seconds since the service day began) with no planned break inside.
struct Period {
  std::size_t begin = 0;  // indices into LinePlan::times
  std::size_t end = 0;
  double first_headway_s = 0;  // the planned headway at its first and last departure
  double last_headway_s = 0;
};

// The plan of a route and direction on one service date, split into service periods.
struct LinePlan {
  const gtfs::RoutePlan* route = nullptr;
  gtfs::DayType day_type = gtfs::DayType::kWeekday;
  base::Timestamp day_start;
  std::vector<std::int32_t> times;  // distinct planned departures, sorted
  std::vector<Period> periods;

  [[nodiscard]] bool InWindow(std::int32_t s) const {
    return std::any_of(route->windows().begin(), route->windows().end(),
                       [s](const gtfs::PlannedWindow& w) { return w.start_s <= s && s < w.end_s; });
  }

  // The planned headway at `s` seconds into the day within period `p`: the frequency
  // windows' where one holds it, else the gap between the period's departures around it
  // (the first or last gap beyond its ends); nullopt for a period of one departure.
  [[nodiscard]] std::optional<double> HeadwayIn(const Period& p, std::int32_t s) const {
    if (InWindow(s)) {
      return route->HeadwayAt(s);
    }
    if (p.end - p.begin < 2) {
      return std::nullopt;
    }
    const auto first = times.begin() + static_cast<std::ptrdiff_t>(p.begin);
    const auto last = times.begin() + static_cast<std::ptrdiff_t>(p.end);
    auto it = std::upper_bound(first, last, s);
    if (it == first) {
      ++it;
    } else if (it == last) {
      --it;
    }
    return static_cast<double>(*it - *std::prev(it));
  }

  // The period whose departures, widened by one planned headway at each end, hold `s`.
  [[nodiscard]] std::optional<std::size_t> PeriodOf(std::int32_t s) const {
    for (std::size_t i = 0; i < periods.size(); ++i) {
      const Period& p = periods[i];
      if (s >= times[p.begin] - p.first_headway_s && s <= times[p.end - 1] + p.last_headway_s) {
        return i;
      }
    }
    return std::nullopt;
  }

  static LinePlan Build(const gtfs::RoutePlan& route, gtfs::DayType day_type,
                        base::Timestamp day_start) {
    LinePlan plan;
    plan.route = &route;
    plan.day_type = day_type;
    plan.day_start = day_start;
    plan.times = route.departures();
    plan.times.erase(std::unique(plan.times.begin(), plan.times.end()), plan.times.end());
    if (plan.times.empty()) {
      return plan;
    }
    // The planned headway before the gap after departure i: the windows' at it, else
    // the scheduled gap before it.
    const auto before = [&plan](std::size_t i) -> std::optional<double> {
      if (plan.InWindow(plan.times[i])) {
        return plan.route->HeadwayAt(plan.times[i]);
      }
      if (i == 0) {
        return std::nullopt;
      }
      return static_cast<double>(plan.times[i] - plan.times[i - 1]);
    };
    std::size_t start = 0;
    for (std::size_t i = 1; i <= plan.times.size(); ++i) {
      bool split = i == plan.times.size();
      if (!split) {
        const double gap = plan.times[i] - plan.times[i - 1];
        split = gap > std::max(kBreakMinS, kBreakHeadways * before(i - 1).value_or(0));
      }
      if (split) {
        Period p{start, i, 0, 0};
        p.first_headway_s = plan.HeadwayIn(p, plan.times[start]).value_or(0);
        p.last_headway_s = plan.HeadwayIn(p, plan.times[i - 1]).value_or(0);
        plan.periods.push_back(p);
        start = i;
      }
    }
    return plan;
  }
};

using LineKey = std::tuple<std::string, int, base::LocalDate>;

// Plans by service date and line, computed once each.
class PlanCache {
 public:
  PlanCache(const gtfs::StaticFeed& feed, const gtfs::HolidayCalendar& holidays,
            const base::TimeZone& zone)
      : feed_(feed), holidays_(holidays), zone_(zone) {}
  const gtfs::ServicePlan& For(base::LocalDate date) {
    auto it = plans_.find(date);
    if (it == plans_.end()) {
      it = plans_
               .emplace(date, gtfs::ServicePlan::For(feed_, date, gtfs::DayTypeOf(date, holidays_)))
               .first;
    }
    return it->second;
  }
  // nullptr when the line has no planned departure that date.
  const LinePlan* Line(const std::string& route_id, int direction_id, base::LocalDate date) {
    const LineKey key{route_id, direction_id, date};
    auto it = lines_.find(key);
    if (it == lines_.end()) {
      const gtfs::ServicePlan& plan = For(date);
      std::optional<LinePlan> line;
      if (const gtfs::RoutePlan* route = plan.Find(route_id, direction_id);
          route != nullptr && !route->departures().empty()) {
        line = LinePlan::Build(*route, plan.day_type(), gtfs::ServiceDayStart(zone_, date));
      }
      it = lines_.emplace(key, std::move(line)).first;
    }
    return it->second ? &*it->second : nullptr;
  }

 private:
  const gtfs::StaticFeed& feed_;
  const gtfs::HolidayCalendar& holidays_;
  const base::TimeZone& zone_;
  std::map<base::LocalDate, gtfs::ServicePlan> plans_;
  std::map<LineKey, std::optional<LinePlan>> lines_;
};

inline std::int32_t SecondsInto(const LinePlan& plan, base::Timestamp t) {
  return static_cast<std::int32_t>(
      std::chrono::floor<std::chrono::seconds>(t - plan.day_start).count());
}

// A departure placed on its service date and period.
struct Placed {
  const Departure* departure = nullptr;
  base::LocalDate service_date;
  gtfs::DayType day_type = gtfs::DayType::kWeekday;
  const LinePlan* plan = nullptr;     // nullptr: nothing planned for the line that date
  std::optional<std::size_t> period;  // nullopt: unplanned
};

/// A headway between consecutive in-period departures of a line (batch and stream).
struct MeasuredHeadway {
  std::optional<double> headway_s;          // nullopt for the line's first departure
  std::optional<double> planned_headway_s;  // the plan's at the later departure
  std::string_view exclusion;               // empty (measured), "service_break" or "coverage_gap"
};
/// `previous` is the line's previous in-period departure (nullptr: none), `p` the next;
/// `coverage` the line's feed's; `hidden_between`: a hidden departure of the line
/// (Departure::hidden) came between them, which leaves the pair out as a coverage gap.
MeasuredHeadway MeasureHeadway(const Placed* previous, const Placed& p, const Coverage& coverage,
                               bool hidden_between);

/// Places a departure on its service date and in its service period: its date, or
/// without a trip start date the day before when only that one's plan (a night service
/// whose times pass 24:00) holds it; `plan` is the line's plan of the date it lands on,
/// `period` nullopt when it is outside every service period (unplanned).
Placed Place(const Departure& d, PlanCache& plans, const gtfs::HolidayCalendar& holidays);

}  // namespace frota::regularity
