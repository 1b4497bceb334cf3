#include "frota/gtfs/service_day.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <unordered_set>

namespace frota::gtfs {

std::string_view DayTypeName(DayType type) {
  switch (type) {
    case DayType::kWeekday:
      return "weekday";
    case DayType::kSaturday:
      return "saturday";
    case DayType::kSunday:
      return "sunday";
    case DayType::kHoliday:
      return "holiday";
  }
  return "weekday";
}

DayType DayTypeOf(base::LocalDate date, const HolidayCalendar& holidays) {
  if (holidays.IsHoliday(date)) {
    return DayType::kHoliday;
  }
  const std::chrono::weekday weekday(date);
  if (weekday == std::chrono::Saturday) {
    return DayType::kSaturday;
  }
  if (weekday == std::chrono::Sunday) {
    return DayType::kSunday;
  }
  return DayType::kWeekday;
}

std::vector<std::string> ServicesOn(const StaticFeed& feed, base::LocalDate date,
                                    DayType day_type) {
  const bool dated = std::any_of(feed.calendar_dates().begin(), feed.calendar_dates().end(),
                                 [&](const CalendarDate& d) { return d.date == date; });
  if (day_type != DayType::kHoliday || dated) {
    return feed.ActiveServices(date);
  }
  std::vector<std::string> out;
  for (const Calendar& calendar : feed.calendars()) {
    constexpr std::size_t kSunday = 6;  // weekdays[] runs monday .. sunday
    if (calendar.start <= date && date <= calendar.end && calendar.weekdays[kSunday]) {
      out.push_back(calendar.service_id);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

base::Timestamp ServiceDayStart(const base::TimeZone& zone, base::LocalDate date) {
  using std::chrono::hours;
  const std::chrono::local_time<base::Micros> noon(date.time_since_epoch() + hours(12));
  return zone.FromLocal(noon) - hours(12);
}

std::optional<double> RoutePlan::HeadwayAt(std::int32_t seconds) const {
  double per_second = 0;
  for (const PlannedWindow& w : windows_) {
    if (w.start_s <= seconds && seconds < w.end_s && w.headway_s > 0) {
      per_second += 1.0 / w.headway_s;
    }
  }
  if (per_second > 0) {
    return 1.0 / per_second;
  }
  // Between scheduled departures: the gap around `seconds` among distinct times (two
  // patterns leaving together are one gap, not a gap of zero).
  const auto& times = distinct_times_;
  if (times.size() < 2) {
    return std::nullopt;
  }
  auto next = std::upper_bound(times.begin(), times.end(), seconds);
  if (next == times.begin()) {
    ++next;
  } else if (next == times.end()) {
    --next;
  }
  return static_cast<double>(*next - *std::prev(next));
}

ServicePlan ServicePlan::For(const StaticFeed& feed, base::LocalDate date, DayType day_type) {
  ServicePlan plan;
  plan.date_ = date;
  plan.day_type_ = day_type;
  plan.services_ = ServicesOn(feed, date, day_type);
  const std::unordered_set<std::string> running(plan.services_.begin(), plan.services_.end());
  std::unordered_map<std::string_view, std::vector<const Frequency*>> frequencies;
  for (const Frequency& f : feed.frequencies()) {
    frequencies[f.trip_id].push_back(&f);
  }
  for (const Trip& trip : feed.trips()) {
    if (!running.contains(trip.service_id)) {
      continue;
    }
    RoutePlan& route = plan.routes_[{trip.route_id, trip.direction_id}];
    if (const auto it = frequencies.find(trip.id); it != frequencies.end()) {
      for (const Frequency* f : it->second) {
        route.windows_.push_back({f->start_s, f->end_s, f->headway_s});
        if (f->headway_s <= 0) {
          continue;
        }
        for (std::int32_t t = f->start_s; t < f->end_s; t += f->headway_s) {
          route.departures_.push_back(t);
        }
      }
      continue;
    }
    if (const FirstStopDeparture* first = feed.FindFirstStop(trip.id);
        first != nullptr && first->departure_s >= 0) {
      route.departures_.push_back(first->departure_s);
    }
  }
  for (auto& [key, route] : plan.routes_) {
    std::sort(route.departures_.begin(), route.departures_.end());
    route.distinct_times_ = route.departures_;
    route.distinct_times_.erase(
        std::unique(route.distinct_times_.begin(), route.distinct_times_.end()),
        route.distinct_times_.end());
  }
  return plan;
}

const RoutePlan* ServicePlan::Find(std::string_view route_id, int direction_id) const {
  const auto it = routes_.find({std::string(route_id), direction_id});
  return it == routes_.end() ? nullptr : &it->second;
}

}  // namespace frota::gtfs
