// A static GTFS feed loaded from a zip or a folder: routes, trips, shapes, stops, calendars.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"

namespace frota::gtfs {

struct Agency {
  std::string id;  // empty when the feed has a single agency and omits agency_id
  std::string name;
  std::string timezone;
};

struct Route {
  std::string id;
  std::string agency_id;
  std::string short_name;
  std::string long_name;
  int type = 3;  // route_type (3 = bus; extended types such as 700 are kept as written)
};

struct Trip {
  std::string id;
  std::string route_id;
  std::string service_id;
  std::string shape_id;  // empty when the trip has none
  std::string headsign;
  std::string short_name;
  std::int8_t direction_id = -1;  // 0, 1, or -1 when absent
};

struct ShapePoint {
  double lat;
  double lon;
  double dist_traveled = NAN;  // shape_dist_traveled, in the feed's unit; NaN when absent
};

struct Shape {
  std::string id;
  std::vector<ShapePoint> points;  // sorted by shape_pt_sequence
};

struct Stop {
  std::string id;
  std::string name;
  double lat = 0;  // NaN for generic nodes and boarding areas that omit coordinates
  double lon = 0;
  /// 0 (or empty): a stop or platform; 1 station, 2 entrance, 3 generic node, 4 boarding
  /// area. Only location_type 0 is where a vehicle stops (GTFS-RT VehiclePosition.stop_id).
  std::int8_t location_type = 0;
};

struct Frequency {
  std::string trip_id;
  std::int32_t start_s;  // since the service day began (noon minus 12 h); may pass 24 h
  std::int32_t end_s;
  std::int32_t headway_s;
  bool exact_times = false;
};

/// The lowest stop_sequence of each trip that has stop_times.
struct FirstStopDeparture {
  std::string trip_id;
  std::string stop_id;
  std::int32_t departure_s;  // departure_time, else arrival_time; -1 when both are empty
};

/// The highest stop_sequence of each trip that has stop_times.
struct LastStopArrival {
  std::string trip_id;
  std::string stop_id;
  std::int32_t arrival_s;  // arrival_time, else departure_time; -1 when both are empty
};

struct Calendar {
  std::string service_id;
  std::array<bool, 7> weekdays;  // monday .. sunday
  base::LocalDate start;
  base::LocalDate end;  // inclusive
};

struct CalendarDate {
  std::string service_id;
  base::LocalDate date;
  int exception_type;  // 1 = service added on `date`, 2 = removed
};

/// The numbers `frota gtfs-info` prints.
struct FeedCounts {
  std::int64_t agencies = 0;
  std::int64_t routes = 0;
  std::int64_t trips = 0;
  std::int64_t shapes = 0;  // distinct shape_id
  std::int64_t stops = 0;
  std::int64_t stop_times = 0;  // rows
  std::int64_t frequencies = 0;
  std::int64_t services = 0;  // distinct service_id over calendar and calendar_dates
};

/// A static GTFS feed, read whole at Load() and immutable afterwards.
///
/// Reads a zip archive or a folder whose tables are `NAME.txt` or `NAME.csv` (.txt
/// wins when both exist), at the top level or in one subfolder. Columns may come in
/// any order; unknown columns are ignored. Dates are YYYYMMDD or YYYY-MM-DD; times
/// H:MM:SS and may pass 24:00:00. agency, routes, trips and stops are required;
/// stop_times, shapes, frequencies, calendar and calendar_dates are read when present.
/// A missing required column, a malformed value or a malformed CSV record fails the
/// load with an error naming the file, the line and the column; nothing is skipped
/// silently. A present but empty (0-byte) table is an error too.
///
/// stop_times is streamed: only its row count and each trip's first and last stop
/// are kept, so memory stays small for large feeds.
///
/// Lifecycle: Load() returns a value; it is movable (moving keeps the addresses of
/// routes, trips, shapes and stops, which RouteResolver and TerminalIndex hold), and
/// const members are safe to call from any number of threads.
class StaticFeed {
 public:
  static base::Result<StaticFeed> Load(const std::filesystem::path& zip_or_folder);
  /// A zip archive in memory (tests, fuzzing, feeds fetched over HTTP).
  static base::Result<StaticFeed> LoadZipBytes(std::string bytes, std::string_view name_for_errors);

  StaticFeed(StaticFeed&&) noexcept = default;
  StaticFeed& operator=(StaticFeed&&) noexcept = default;
  StaticFeed(const StaticFeed&) = delete;
  StaticFeed& operator=(const StaticFeed&) = delete;
  ~StaticFeed();

  [[nodiscard]] FeedCounts counts() const;

  [[nodiscard]] const std::vector<Agency>& agencies() const { return agencies_; }
  [[nodiscard]] const std::vector<Route>& routes() const { return routes_; }
  [[nodiscard]] const std::vector<Trip>& trips() const { return trips_; }
  [[nodiscard]] const std::vector<Shape>& shapes() const { return shapes_; }
  [[nodiscard]] const std::vector<Stop>& stops() const { return stops_; }
  [[nodiscard]] const std::vector<Frequency>& frequencies() const { return frequencies_; }
  /// In the order trips first appear in stop_times.
  [[nodiscard]] const std::vector<FirstStopDeparture>& first_stop_departures() const {
    return first_stop_departures_;
  }
  /// Parallel to first_stop_departures(): element i is the same trip's last stop.
  [[nodiscard]] const std::vector<LastStopArrival>& last_stop_arrivals() const {
    return last_stop_arrivals_;
  }
  [[nodiscard]] const std::vector<Calendar>& calendars() const { return calendars_; }
  [[nodiscard]] const std::vector<CalendarDate>& calendar_dates() const { return calendar_dates_; }
  [[nodiscard]] std::int64_t stop_time_count() const { return stop_time_count_; }
  /// Distinct service ids of calendar and calendar_dates, sorted.
  [[nodiscard]] const std::vector<std::string>& service_ids() const { return service_ids_; }

  /// nullptr when absent. Hash lookups.
  [[nodiscard]] const Route* FindRoute(std::string_view route_id) const;
  [[nodiscard]] const Trip* FindTrip(std::string_view trip_id) const;
  [[nodiscard]] const Shape* FindShape(std::string_view shape_id) const;
  [[nodiscard]] const Stop* FindStop(std::string_view stop_id) const;
  [[nodiscard]] const FirstStopDeparture* FindFirstStop(std::string_view trip_id) const;
  [[nodiscard]] const LastStopArrival* FindLastStop(std::string_view trip_id) const;

  /// The first agency's agency_timezone (semantics §1: service hours are local to it).
  [[nodiscard]] std::string_view time_zone() const;

  /// Services running on local date `date`: calendar rows whose range holds the date
  /// and whose weekday flag is set, plus calendar_dates exception 1, minus exception 2.
  /// Sorted, distinct.
  [[nodiscard]] std::vector<std::string> ActiveServices(base::LocalDate date) const;

 private:
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const {
      return std::hash<std::string_view>{}(text);
    }
  };
  using Index = std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>>;
  friend class FeedLoader;

  StaticFeed() = default;
  void BuildIndexes();

  std::vector<Agency> agencies_;
  std::vector<Route> routes_;
  std::vector<Trip> trips_;
  std::vector<Shape> shapes_;
  std::vector<Stop> stops_;
  std::vector<Frequency> frequencies_;
  std::vector<FirstStopDeparture> first_stop_departures_;
  std::vector<LastStopArrival> last_stop_arrivals_;
  std::vector<Calendar> calendars_;
  std::vector<CalendarDate> calendar_dates_;
  std::int64_t stop_time_count_ = 0;
  std::vector<std::string> service_ids_;

  Index route_index_;
  Index trip_index_;
  Index shape_index_;
  Index stop_index_;
  Index stop_ends_index_;  // trip_id → index into first_stop_departures_
};

}  // namespace frota::gtfs
