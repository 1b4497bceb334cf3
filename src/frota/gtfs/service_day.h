// What a static GTFS plans on one service date: day type, services, and each route's departures and
// headways.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frota/base/time.h"
#include "frota/base/time_zone.h"
#include "frota/gtfs/holidays.h"
#include "frota/gtfs/static_feed.h"

namespace frota::gtfs {

/// The kind of day a service date is (semantics §7): holidays first, then the weekday.
enum class DayType : std::uint8_t { kWeekday, kSaturday, kSunday, kHoliday };

/// "weekday", "saturday", "sunday", "holiday".
std::string_view DayTypeName(DayType type);

/// The day type of `date`: holiday when `holidays` has it, else by the day of the week.
DayType DayTypeOf(base::LocalDate date, const HolidayCalendar& holidays);

/// The services running on `date`: StaticFeed::ActiveServices(date), except on a holiday
/// that the feed's calendar_dates do not mention at all: then the Sunday timetable
/// runs (calendar rows whose range holds the date and whose Sunday flag is set), which
/// is what operators do when their GTFS leaves holidays out. When calendar_dates name
/// the date, the feed has said what runs and it is taken as written.
std::vector<std::string> ServicesOn(const StaticFeed& feed, base::LocalDate date, DayType day_type);

/// The instant a service date's GTFS times count from: local noon minus 12 hours (so
/// "25:10:00" is 01:10 the next morning, and DST days stay right).
base::Timestamp ServiceDayStart(const base::TimeZone& zone, base::LocalDate date);

/// One frequencies.txt window of a trip running on the date.
struct PlannedWindow {
  std::int32_t start_s = 0;  // seconds since the service day began
  std::int32_t end_s = 0;
  std::int32_t headway_s = 0;
};

/// The plan of one route in one direction on one service date.
///
/// Departures: for each trip of the route and direction whose service runs that date,
/// every start of its frequencies.txt windows (start, start + headway, ... before end);
/// a trip without frequencies departs at its first stop's departure time. The planned
/// headway at a time t (semantics §7): from the frequency windows holding t, several at
/// once (two patterns of one route) combining as departures per hour add up, i.e.
/// 1 / sum(1 / headway); else the gap between the scheduled departures around t.
class RoutePlan {
 public:
  /// Scheduled departures, seconds since the service day began, sorted.
  [[nodiscard]] const std::vector<std::int32_t>& departures() const { return departures_; }
  [[nodiscard]] const std::vector<PlannedWindow>& windows() const { return windows_; }

  /// The planned headway (seconds) at `seconds` since the service day began; nullopt
  /// when no window holds it and fewer than two departures are scheduled.
  [[nodiscard]] std::optional<double> HeadwayAt(std::int32_t seconds) const;

 private:
  friend class ServicePlan;
  std::vector<std::int32_t> departures_;
  std::vector<std::int32_t> distinct_times_;
  std::vector<PlannedWindow> windows_;
};

/// Every route's plan on one service date.
///
/// Lifecycle: built by For(); immutable; safe to share between threads.
class ServicePlan {
 public:
  /// The plan of `feed` on `date` of type `day_type` (see ServicesOn).
  static ServicePlan For(const StaticFeed& feed, base::LocalDate date, DayType day_type);

  [[nodiscard]] base::LocalDate date() const { return date_; }
  [[nodiscard]] DayType day_type() const { return day_type_; }
  [[nodiscard]] const std::vector<std::string>& services() const { return services_; }
  /// The plan of (GTFS route_id, direction_id; -1 for trips without one), or nullptr
  /// when nothing of that route runs.
  [[nodiscard]] const RoutePlan* Find(std::string_view route_id, int direction_id) const;
  [[nodiscard]] const std::map<std::pair<std::string, int>, RoutePlan>& routes() const {
    return routes_;
  }

 private:
  base::LocalDate date_;
  DayType day_type_ = DayType::kWeekday;
  std::vector<std::string> services_;
  std::map<std::pair<std::string, int>, RoutePlan> routes_;
};

}  // namespace frota::gtfs
