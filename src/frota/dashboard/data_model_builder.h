// The data model builder shared by data_model*.cc: raw rows, dictionaries and the
// Builder whose methods read the tables (data_model_read.cc), build the core sections
// (data_model_sections.cc) and the optional ones (data_model_optional.cc). Internal to
// the dashboard module.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/base/time_zone.h"
#include "frota/dashboard/data_model.h"
#include "frota/dashboard/data_model_internal.h"
#include "frota/gtfs/route_resolver.h"
#include "frota/model/mode.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::dashboard::detail {

using Json = nlohmann::ordered_json;
using TableMap = std::map<std::string, std::set<std::string>>;
using std::int32_t;
using std::int64_t;

constexpr int kHours = 24;
constexpr double kCoordStep = 1e-4;         // ~11 m: finer than a map pixel at city scale
constexpr double kSimplifyTolerance = 1.5;  // in coordinate steps (~15 m)
constexpr std::size_t kMaxDuplicateSlots = 2000;
constexpr std::size_t kMaxReportEntries = 300;
// The whole-day fields of headway_summary that the page shows, when present.
constexpr const char* kSummaryColumns[] = {
    "departures_found",       "departures_planned",     "departures_unobserved",
    "departures_unplanned",   "departures_tagged_late", "headways_measured",
    "excluded_service_break", "excluded_coverage_gap",  "share_under_60s",
    "coverage_share",         "silent_minutes",         "line_days_not_seen",
    "departures_not_seen",    "trips_completed",        "trips_conforming"};
// Day types in the order a planner reads them; others follow by name.
constexpr const char* kDayTypes[] = {"weekday", "saturday", "sunday", "holiday"};

/// Result columns by index, with errors naming the query's purpose.
inline base::Result<sink::DuckDbResult> Query(sink::DuckDbConnection& db, std::string_view what,
                                              std::string_view sql) {
  auto result = db.Query(sql);
  if (!result.ok()) {
    return result.error().WithContext(fmt::format("dashboard: reading {}", what));
  }
  return result;
}

/// Strings to dense indexes, in insertion order.
class Dictionary {
 public:
  int32_t Add(const std::string& value) {
    const auto [it, inserted] = index_.emplace(value, static_cast<int32_t>(values_.size()));
    if (inserted) {
      values_.push_back(value);
    }
    return it->second;
  }
  [[nodiscard]] std::optional<int32_t> Find(const std::string& value) const {
    const auto it = index_.find(value);
    if (it == index_.end()) {
      return std::nullopt;
    }
    return it->second;
  }
  [[nodiscard]] const std::vector<std::string>& values() const { return values_; }
  [[nodiscard]] std::size_t size() const { return values_.size(); }

 private:
  std::vector<std::string> values_;
  std::unordered_map<std::string, int32_t> index_;
};

/// Integer coordinates in steps of kCoordStep from an origin.
struct CoordGrid {
  double lat0 = 0;
  double lon0 = 0;
  [[nodiscard]] int64_t Lat(double lat) const { return std::llround((lat - lat0) / kCoordStep); }
  [[nodiscard]] int64_t Lon(double lon) const { return std::llround((lon - lon0) / kCoordStep); }
};

// Raw rows as read, before dictionaries exist.
struct BucketRow {
  std::string mode, route, feed, vehicle;
  int64_t bucket_us;
  int64_t positions;
};
struct FleetRow {
  std::string mode;
  int32_t day;
  int hour;
  int64_t vehicles, positions;
};
struct SpeedLineRow {
  std::string mode, route;
  int hour;
  int64_t distance_mm, duration_us;
};
struct SpeedCellRow {
  std::string mode;
  int hour;
  int32_t x, y;
  int64_t distance_mm, duration_us;
  int64_t segments;
};
struct StopRow {
  std::string feed, vehicle, mode, route;
  int64_t start_us, end_us;
  double lat, lon;
  std::optional<bool> near_terminal;
  std::optional<int> place;  // 0 en_route, 1 terminal, 2 depot (stop_rows' place)
};
struct TripRow {
  std::string feed, vehicle, route;
  int64_t first_us;
};
struct QualityRow {
  std::string feed;
  int32_t day;
  int hour;
  int64_t accepted, vehicles;
  std::vector<int64_t> reasons;  // parallel to reason_names
};
struct LatencyRow {
  std::string feed;
  int hour;
  int latency_s;
  int64_t positions;
};
struct SlotRow {
  std::string feed, date, trip, route;
  int64_t vehicles;
};

struct HeadwayHourRow {
  std::string route, day_type;
  int64_t direction, hour, found, planned;
};
struct HeadwayRow {
  std::string route, day_type;
  int64_t direction, hour, planned_s, headway_s;  // planned_s 0: nothing planned
};
struct ExcludedRow {
  std::string route, day_type, reason;
  int64_t direction, hour, count;
};
struct SummaryRow {
  std::string route, day_type;
  int64_t direction;
  std::vector<std::optional<double>> values;  // parallel to summary_columns_
};
struct IntervalRow {  // a coverage gap (route empty) or a line silence
  std::string feed, route;
  int64_t start_us, end_us;
};
struct FeedHourRow {
  std::string feed;
  int32_t day;
  int hour;
  int64_t covered_minutes;
};
struct AircraftRow {  // an aircraft's latest accepted position
  std::string feed, icao24, callsign;
  double lat, lon;
  std::optional<double> altitude_m, speed_kmh, track_deg;
  std::optional<bool> on_ground;
  int64_t time_us, positions;
  // aircraft_positions' row of that position (none: written before schema version 8).
  std::optional<std::string> origin_country;
  std::optional<int64_t> last_contact;
};
struct PollRow {
  std::string feed;
  std::optional<int64_t> bucket_us;
  int64_t status, polls, repeats;
  double duration_ms;
  int64_t bytes;
};

inline int ModeRank(const std::string& mode) {
  const auto parsed = model::ParseMode(mode);
  return parsed ? static_cast<int>(*parsed) : 1000;
}

class Builder {
 public:
  Builder(sink::DuckDbConnection& db, const DataModelOptions& options)
      : db_(db), options_(options) {}

  base::Result<DataModel> Build();

 private:
  // ---- reading -------------------------------------------------------------------------

  base::Status ReadTables();
  base::Status ReadPositionBuckets();
  base::Status ReadFleet();
  base::Status ReadSpeedLines();
  base::Status ReadSpeedCells();
  base::Status ReadStops();
  base::Status ReadTrips();
  base::Status ReadQuality();
  base::Status ReadDuplicateSlots();
  base::Status ReadAircraft();

  // ---- dictionaries --------------------------------------------------------------------

  base::LocalHour LocalHourOf(int64_t utc_us) const;
  void BuildDictionaries();
  // The steps of BuildDictionaries: the modes, lines and feeds every table names (and
  // the days it covers), a mode for each trip, then the lines in display order.
  void CollectNames(std::set<std::string>& mode_names,
                    std::set<std::pair<std::string, std::string>>& line_keys,
                    std::set<std::string>& feed_names);
  void AssignTripModes(std::set<std::pair<std::string, std::string>>& line_keys);
  void IndexLines(const std::set<std::pair<std::string, std::string>>& line_keys);
  static std::string LineRoute(const std::string& mode, const std::string& route);
  int32_t LineOf(const std::string& mode, const std::string& route) const;
  int32_t LineOfRoute(const std::string& route, bool gtfs_first = false) const;
  [[nodiscard]] int32_t DayIndex(int32_t day) const { return day_index_.at(day); }

  // ---- sections ------------------------------------------------------------------------

  Json SourceSection() const;
  Json DatesSection() const;
  Json LinesSection() const;
  static std::vector<int64_t> FullDays(
      const std::map<std::pair<int32_t, int32_t>, int64_t>& positions_by_key_day, std::size_t keys);
  Json TotalsSection();
  Json FleetSection() const;
  Json LineHoursSection() const;
  Json CellsSection() const;
  Json GeoSection();
  std::vector<std::pair<int32_t, const gtfs::Shape*>> LineShapes() const;
  Json StopsSection();
  Json QualitySection() const;
  Json DuplicateSlotsSection() const;
  Json AircraftSection() const;

  // ---- optional sections: present only when their tables exist ------------------------
  //
  // Other commands write them (`frota headways`, the collector). They are found by their
  // columns, so a renamed table still shows; docs/dashboard.md lists the columns read.

  base::Status ReadOptionalTables();
  base::Status ReadHeadwayHours(const TableMap& tables);
  static std::string DayTypeExpr(const TableMap& tables, const std::string& table);
  base::Status ReadHeadways(const TableMap& tables);
  base::Status ReadHeadwaySummary(const TableMap& tables);
  base::Status ReadCoverage(const TableMap& tables);
  int32_t LineOfRouteOrAdd(const std::string& route);
  std::vector<std::string> DayTypes() const;
  Json HeadwaysSection();
  template <typename TypeIndex>
  Json ExcludedSection(const TypeIndex& type_index) const;
  template <typename TypeIndex>
  Json SummarySection(const TypeIndex& type_index) const;
  Json CoverageSection() const;
  Json CollectorSection() const;
  base::Result<Json> ReportsSection() const;
  static void FlattenReport(const Json& value, const std::string& prefix,
                            std::vector<std::pair<std::string, std::string>>& out);

  struct LineInfo {
    int32_t mode;
    std::string route;
    const gtfs::Route* gtfs_route;
  };

  sink::DuckDbConnection& db_;
  const DataModelOptions& options_;
  std::optional<gtfs::RouteResolver> resolver_;
  mutable std::unordered_map<int64_t, base::LocalHour> hour_cache_;
  std::vector<BucketRow> buckets_;
  std::vector<FleetRow> fleet_;
  std::vector<SpeedLineRow> speed_lines_;
  std::vector<SpeedCellRow> speed_cells_;
  std::vector<StopRow> stops_;
  std::vector<TripRow> trips_;
  std::vector<std::string> trip_modes_;  // parallel to trips_
  std::vector<std::string> reason_names_;
  std::vector<QualityRow> quality_;
  std::vector<LatencyRow> latency_;
  std::vector<SlotRow> slots_;
  std::vector<AircraftRow> aircraft_;
  std::optional<std::string> hours_table_, headways_table_, collector_table_;
  std::vector<HeadwayHourRow> headway_hours_;
  std::vector<HeadwayRow> headways_;
  bool has_exclusion_ = false;
  std::vector<ExcludedRow> excluded_;
  std::map<int32_t, std::string> date_day_types_;
  std::optional<std::string> summary_table_;
  std::vector<std::string> summary_columns_;
  std::vector<SummaryRow> summary_;
  std::optional<std::string> gaps_table_, silences_table_, feed_hours_table_;
  std::vector<IntervalRow> gaps_, silences_;
  std::vector<FeedHourRow> feed_hours_;
  std::vector<PollRow> polls_;
  std::string collector_time_;
  bool collector_has_repeat_ = false;
  bool collector_has_duration_ = false;
  Dictionary modes_;
  Dictionary feeds_;
  std::set<int32_t> days_;
  std::map<int32_t, int32_t> day_index_;
  std::vector<LineInfo> lines_;
  std::map<std::pair<std::string, std::string>, int32_t> line_index_;
  std::vector<std::string> vehicle_ids_;
  std::vector<int64_t> line_vehicle_days_;
  std::vector<int64_t> line_positions_;
  CoordGrid grid_;
};

}  // namespace frota::dashboard::detail
