#include "frota/dashboard/data_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "frota/base/file.h"
#include "frota/base/time.h"
#include "frota/dashboard/data_model_internal.h"
#include "frota/gtfs/route_resolver.h"
#include "frota/model/mode.h"

namespace frota::dashboard {

namespace {

using Json = nlohmann::ordered_json;
using TableMap = std::map<std::string, std::set<std::string>>;
using std::int32_t;
using std::int64_t;

constexpr int kHours = 24;
constexpr double kCoordStep = 1e-4;           // ~11 m: finer than a map pixel at city scale
constexpr double kSimplifyTolerance = 1.5;    // in coordinate steps (~15 m)
constexpr std::size_t kMaxDuplicateSlots = 2000;
constexpr std::size_t kMaxReportEntries = 300;
// Issue 34's whole-day fields of headway_summary that the page shows, when present.
constexpr const char* kSummaryColumns[] = {
    "departures_found",       "departures_planned",     "departures_unobserved",
    "departures_unplanned",   "departures_tagged_late", "headways_measured",
    "excluded_service_break", "excluded_coverage_gap",  "share_under_60s",
    "coverage_share",         "silent_minutes"};
// Day types in the order a planner reads them; others follow by name.
constexpr const char* kDayTypes[] = {"weekday", "saturday", "sunday", "holiday"};

/// Result columns by index, with errors naming the query's purpose.
base::Result<sink::DuckDbResult> Query(sink::DuckDbConnection& db, std::string_view what,
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
};
struct StopRow {
  std::string feed, vehicle, mode, route;
  int64_t start_us, end_us;
  double lat, lon;
  std::optional<bool> near_terminal;
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
struct PollRow {
  std::string feed;
  std::optional<int64_t> bucket_us;
  int64_t status, polls, repeats;
  double duration_ms;
  int64_t bytes;
};

int ModeRank(const std::string& mode) {
  const auto parsed = model::ParseMode(mode);
  return parsed ? static_cast<int>(*parsed) : 1000;
}

class Builder {
 public:
  Builder(sink::DuckDbConnection& db, const DataModelOptions& options)
      : db_(db), options_(options) {}

  base::Result<DataModel> Build() {
    FROTA_RETURN_IF_ERROR(ReadTables());
    BuildDictionaries();
    Json doc;
    doc["version"] = kDataModelVersion;
    doc["source"] = SourceSection();
    doc["dates"] = DatesSection();
    doc["modes"] = modes_.values();
    doc["feeds"] = feeds_.values();
    doc["lines"] = LinesSection();
    doc["totals"] = TotalsSection();
    doc["fleet"] = FleetSection();
    doc["line_hours"] = LineHoursSection();
    doc["cells"] = CellsSection();
    doc["geo"] = GeoSection();
    doc["stops"] = StopsSection();
    doc["quality"] = QualitySection();
    doc["duplicate_slots"] = DuplicateSlotsSection();
    doc["headways"] = HeadwaysSection();
    doc["coverage"] = CoverageSection();
    doc["collector"] = CollectorSection();
    FROTA_ASSIGN_OR_RETURN(doc["reports"], ReportsSection());

    DataModel out;
    for (const auto& [key, value] : doc.items()) {
      out.section_bytes.emplace_back(key, value.dump().size());
    }
    out.json = doc.dump();
    return out;
  }

 private:
  // ---- reading -------------------------------------------------------------------------

  base::Status ReadTables() {
    FROTA_RETURN_IF_ERROR(ReadPositionBuckets());
    FROTA_RETURN_IF_ERROR(ReadFleet());
    FROTA_RETURN_IF_ERROR(ReadSpeedLines());
    FROTA_RETURN_IF_ERROR(ReadSpeedCells());
    FROTA_RETURN_IF_ERROR(ReadStops());
    FROTA_RETURN_IF_ERROR(ReadTrips());
    FROTA_RETURN_IF_ERROR(ReadQuality());
    FROTA_RETURN_IF_ERROR(ReadDuplicateSlots());
    FROTA_RETURN_IF_ERROR(ReadOptionalTables());
    return base::Status::Ok();
  }

  // Distinct vehicles per line and local hour come from the positions: grouped by 15-minute
  // UTC buckets (every zone's offset is a multiple of 15 minutes), each bucket then mapped to
  // its local hour here, since the database stores UTC instants.
  base::Status ReadPositionBuckets() {
    FROTA_ASSIGN_OR_RETURN(
        auto r, Query(db_, "positions",
                      "SELECT mode, route_id, feed_id, vehicle_id, "
                      "epoch_us(time_bucket(INTERVAL 15 MINUTE, event_time)) AS bucket, "
                      "count(*)::BIGINT FROM positions GROUP BY ALL ORDER BY ALL"));
    buckets_.reserve(r.rows());
    for (std::size_t i = 0; i < r.rows(); ++i) {
      buckets_.push_back({r.String(i, 0), r.String(i, 1), r.String(i, 2), r.String(i, 3),
                          r.Int64(i, 4), r.Int64(i, 5)});
    }
    return base::Status::Ok();
  }

  base::Status ReadFleet() {
    FROTA_ASSIGN_OR_RETURN(
        auto r, Query(db_, "fleet_hours",
                      "SELECT mode, local_date, hour, sum(vehicles)::BIGINT, "
                      "sum(positions)::BIGINT FROM fleet_hours GROUP BY ALL ORDER BY ALL"));
    for (std::size_t i = 0; i < r.rows(); ++i) {
      fleet_.push_back({r.String(i, 0), r.DateDays(i, 1), static_cast<int>(r.Int64(i, 2)),
                        r.Int64(i, 3), r.Int64(i, 4)});
    }
    return base::Status::Ok();
  }

  base::Status ReadSpeedLines() {
    FROTA_ASSIGN_OR_RETURN(
        auto r, Query(db_, "speed_lines",
                      "SELECT mode, route_id, hour, sum(distance_mm)::BIGINT, "
                      "sum(duration_us)::BIGINT FROM speed_lines GROUP BY ALL ORDER BY ALL"));
    for (std::size_t i = 0; i < r.rows(); ++i) {
      speed_lines_.push_back({r.String(i, 0), r.String(i, 1), static_cast<int>(r.Int64(i, 2)),
                              r.Int64(i, 3), r.Int64(i, 4)});
    }
    return base::Status::Ok();
  }

  base::Status ReadSpeedCells() {
    FROTA_ASSIGN_OR_RETURN(
        auto r, Query(db_, "speed_cells",
                      "SELECT mode, hour, cell_x, cell_y, sum(distance_mm)::BIGINT, "
                      "sum(duration_us)::BIGINT FROM speed_cells GROUP BY ALL ORDER BY ALL"));
    speed_cells_.reserve(r.rows());
    for (std::size_t i = 0; i < r.rows(); ++i) {
      speed_cells_.push_back({r.String(i, 0), static_cast<int>(r.Int64(i, 1)),
                              static_cast<int32_t>(r.Int64(i, 2)),
                              static_cast<int32_t>(r.Int64(i, 3)), r.Int64(i, 4), r.Int64(i, 5)});
    }
    return base::Status::Ok();
  }

  base::Status ReadStops() {
    FROTA_ASSIGN_OR_RETURN(
        auto r, Query(db_, "stops",
                      "SELECT feed_id, vehicle_id, mode, route_id, epoch_us(start_time), "
                      "epoch_us(end_time), anchor_lat, anchor_lon, near_terminal FROM stops "
                      "ORDER BY start_time, feed_id, vehicle_id"));
    stops_.reserve(r.rows());
    for (std::size_t i = 0; i < r.rows(); ++i) {
      StopRow row{r.String(i, 0), r.String(i, 1), r.String(i, 2), r.String(i, 3),
                  r.Int64(i, 4),  r.Int64(i, 5),  r.Double(i, 6), r.Double(i, 7),
                  std::nullopt};
      if (!r.IsNull(i, 8)) {
        row.near_terminal = r.Bool(i, 8);
      }
      stops_.push_back(std::move(row));
    }
    return base::Status::Ok();
  }

  base::Status ReadTrips() {
    FROTA_ASSIGN_OR_RETURN(auto r, Query(db_, "trips",
                                         "SELECT feed_id, vehicle_id, route_id, "
                                         "epoch_us(first_time) FROM trips ORDER BY ALL"));
    for (std::size_t i = 0; i < r.rows(); ++i) {
      trips_.push_back({r.String(i, 0), r.String(i, 1), r.String(i, 2), r.Int64(i, 3)});
    }
    return base::Status::Ok();
  }

  base::Status ReadQuality() {
    // Reason columns are read from the table itself, so a reason added to the schema shows
    // up without a change here.
    FROTA_ASSIGN_OR_RETURN(
        auto cols, Query(db_, "quality columns",
                         "SELECT column_name FROM information_schema.columns WHERE table_name = "
                         "'quality' AND table_schema = 'main' ORDER BY ordinal_position"));
    for (std::size_t i = 0; i < cols.rows(); ++i) {
      const std::string name = cols.String(i, 0);
      if (name != "partition_id" && name != "feed_id" && name != "local_date" && name != "hour" &&
          name != "accepted" && name != "vehicles") {
        reason_names_.push_back(name);
      }
    }
    std::string sql = "SELECT feed_id, local_date, hour, sum(accepted)::BIGINT, "
                      "sum(vehicles)::BIGINT";
    for (const auto& reason : reason_names_) {
      sql += fmt::format(", sum(\"{}\")::BIGINT", reason);
    }
    sql += " FROM quality GROUP BY ALL ORDER BY ALL";
    FROTA_ASSIGN_OR_RETURN(auto r, Query(db_, "quality", sql));
    for (std::size_t i = 0; i < r.rows(); ++i) {
      QualityRow row{r.String(i, 0), r.DateDays(i, 1), static_cast<int>(r.Int64(i, 2)),
                     r.Int64(i, 3),  r.Int64(i, 4),    {}};
      for (std::size_t k = 0; k < reason_names_.size(); ++k) {
        row.reasons.push_back(r.Int64(i, 5 + k));
      }
      quality_.push_back(std::move(row));
    }
    FROTA_ASSIGN_OR_RETURN(
        auto lat, Query(db_, "quality_latency",
                        "SELECT feed_id, hour, latency_s, sum(positions)::BIGINT FROM "
                        "quality_latency GROUP BY ALL HAVING sum(positions) > 0 ORDER BY ALL"));
    for (std::size_t i = 0; i < lat.rows(); ++i) {
      latency_.push_back({lat.String(i, 0), static_cast<int>(lat.Int64(i, 1)),
                          static_cast<int>(lat.Int64(i, 2)), lat.Int64(i, 3)});
    }
    return base::Status::Ok();
  }

  base::Status ReadDuplicateSlots() {
    FROTA_ASSIGN_OR_RETURN(
        auto r, Query(db_, "duplicate_slots",
                      "SELECT d.feed_id, d.trip_start_date, d.trip_id, d.vehicles, "
                      "(SELECT min(t.route_id) FROM trips t WHERE t.feed_id = d.feed_id AND "
                      "t.trip_id = d.trip_id AND t.trip_start_date = d.trip_start_date) "
                      "FROM duplicate_slots d "
                      "ORDER BY d.vehicles DESC, d.feed_id, d.trip_start_date, d.trip_id"));
    for (std::size_t i = 0; i < r.rows(); ++i) {
      slots_.push_back(
          {r.String(i, 0), r.String(i, 1), r.String(i, 2), r.String(i, 4), r.Int64(i, 3)});
    }
    return base::Status::Ok();
  }

  // ---- dictionaries --------------------------------------------------------------------

  base::LocalHour LocalHourOf(int64_t utc_us) const {
    const auto it = hour_cache_.find(utc_us);
    if (it != hour_cache_.end()) {
      return it->second;
    }
    const auto local = options_.time_zone.ToLocalHour(base::FromUnixMicros(utc_us));
    hour_cache_.emplace(utc_us, local);
    return local;
  }

  void BuildDictionaries() {
    std::set<std::string> mode_names;
    std::set<std::pair<std::string, std::string>> line_keys;
    std::set<std::string> feed_names;
    for (const auto& b : buckets_) {
      mode_names.insert(b.mode);
      line_keys.emplace(b.mode, b.route);
      feed_names.insert(b.feed);
      days_.insert(base::DaysSinceEpoch(LocalHourOf(b.bucket_us).date));
    }
    for (const auto& f : fleet_) {
      mode_names.insert(f.mode);
      days_.insert(f.day);
    }
    for (const auto& s : speed_lines_) {
      mode_names.insert(s.mode);
      line_keys.emplace(s.mode, s.route);
    }
    for (const auto& c : speed_cells_) {
      mode_names.insert(c.mode);
    }
    for (const auto& s : stops_) {
      mode_names.insert(s.mode);
      line_keys.emplace(s.mode, s.route);
      feed_names.insert(s.feed);
      days_.insert(base::DaysSinceEpoch(LocalHourOf(s.start_us).date));
    }
    for (const auto& t : trips_) {
      feed_names.insert(t.feed);
      days_.insert(base::DaysSinceEpoch(LocalHourOf(t.first_us).date));
    }
    for (const auto& q : quality_) {
      feed_names.insert(q.feed);
      days_.insert(q.day);
    }
    for (const auto& l : latency_) {
      feed_names.insert(l.feed);
    }
    for (const auto& s : slots_) {
      feed_names.insert(s.feed);
    }
    for (const auto& p : polls_) {
      feed_names.insert(p.feed);
    }
    for (const auto* intervals : {&gaps_, &silences_}) {
      for (const auto& g : *intervals) {
        feed_names.insert(g.feed);
        days_.insert(base::DaysSinceEpoch(LocalHourOf(g.start_us).date));
      }
    }
    for (const auto& f : feed_hours_) {
      feed_names.insert(f.feed);
      days_.insert(f.day);
    }
    for (const auto& [day, type] : date_day_types_) {
      days_.insert(day);
    }

    std::vector<std::string> modes(mode_names.begin(), mode_names.end());
    std::stable_sort(modes.begin(), modes.end(), [](const std::string& a, const std::string& b) {
      return ModeRank(a) < ModeRank(b);
    });
    for (const auto& m : modes) {
      modes_.Add(m);
    }
    for (const auto& f : feed_names) {
      feeds_.Add(f);
    }
    for (const int32_t day : days_) {
      day_index_.emplace(day, static_cast<int32_t>(day_index_.size()));
    }

    // Trips carry no mode: a trip's line is the (mode, route) its vehicle reported.
    std::map<std::tuple<std::string, std::string, std::string>, std::string> vehicle_route_mode;
    for (const auto& b : buckets_) {
      vehicle_route_mode.emplace(std::make_tuple(b.feed, b.vehicle, b.route), b.mode);
    }
    for (const auto& t : trips_) {
      const auto it = vehicle_route_mode.find({t.feed, t.vehicle, t.route});
      std::string mode;
      if (it != vehicle_route_mode.end()) {
        mode = it->second;
      } else {
        const auto any = std::find_if(line_keys.begin(), line_keys.end(),
                                      [&](const auto& key) { return key.second == t.route; });
        mode = any != line_keys.end() ? any->first : std::string(model::ModeName(model::Mode::kOther));
        mode_names.insert(mode);
        if (!modes_.Find(mode)) {
          modes_.Add(mode);
        }
      }
      trip_modes_.push_back(mode);
      line_keys.emplace(mode, t.route);
    }

    std::vector<std::pair<std::string, std::string>> lines(line_keys.begin(), line_keys.end());
    std::sort(lines.begin(), lines.end(), [this](const auto& a, const auto& b) {
      const int32_t ma = *modes_.Find(a.first);
      const int32_t mb = *modes_.Find(b.first);
      if (ma != mb) {
        return ma < mb;
      }
      return NaturalLess(a.second, b.second);
    });
    if (options_.feed != nullptr) {
      resolver_.emplace(*options_.feed);
    }
    for (const auto& [mode, route] : lines) {
      const int32_t index = static_cast<int32_t>(lines_.size());
      LineInfo info{*modes_.Find(mode), route, nullptr};
      if (resolver_) {
        info.gtfs_route = resolver_->Find(route);
      }
      lines_.push_back(info);
      line_index_.emplace(std::make_pair(mode, route), index);
    }
    // Routes that only the headway tables name join at the end.
    for (const auto& h : headway_hours_) {
      LineOfRouteOrAdd(h.route);
    }
    for (const auto& h : headways_) {
      LineOfRouteOrAdd(h.route);
    }
    for (const auto& x : excluded_) {
      LineOfRouteOrAdd(x.route);
    }
    for (const auto& row : summary_) {
      LineOfRouteOrAdd(row.route);
    }
    for (const auto& silence : silences_) {
      LineOfRouteOrAdd(silence.route);
    }
  }

  int32_t LineOf(const std::string& mode, const std::string& route) const {
    return line_index_.at(std::make_pair(mode, route));
  }

  /// A line for a route id named by a table without mode: the first line with that feed
  /// route id, or the first whose GTFS route has that id, in the order `gtfs_first` says
  /// (headways name GTFS routes, trips name the feed's); -1 if none.
  int32_t LineOfRoute(const std::string& route, bool gtfs_first = false) const {
    for (int pass = 0; pass < 2; ++pass) {
      const bool by_gtfs = (pass == 0) == gtfs_first;
      for (std::size_t i = 0; i < lines_.size(); ++i) {
        const bool match = by_gtfs ? lines_[i].gtfs_route != nullptr &&
                                         lines_[i].gtfs_route->id == route
                                   : lines_[i].route == route;
        if (match) {
          return static_cast<int32_t>(i);
        }
      }
    }
    return -1;
  }

  [[nodiscard]] int32_t DayIndex(int32_t day) const { return day_index_.at(day); }

  // ---- sections ------------------------------------------------------------------------

  Json SourceSection() const {
    Json s;
    s["db"] = options_.db_name;
    s["gtfs"] = options_.gtfs_name;
    s["area"] = options_.area_name;
    s["time_zone"] = options_.time_zone.name();
    return s;
  }

  Json DatesSection() const {
    Json dates = Json::array();
    for (const int32_t day : days_) {
      dates.push_back(base::FormatDate(base::LocalDateFromDays(day)));
    }
    return dates;
  }

  Json LinesSection() const {
    std::vector<int32_t> mode;
    std::vector<std::string> route, name, long_name;
    for (const auto& line : lines_) {
      mode.push_back(line.mode);
      route.push_back(line.route);
      name.push_back(line.gtfs_route != nullptr ? line.gtfs_route->short_name : "");
      long_name.push_back(line.gtfs_route != nullptr ? line.gtfs_route->long_name : "");
    }
    Json s;
    s["mode"] = mode;
    s["route"] = route;
    s["name"] = name;
    s["long_name"] = long_name;
    s["in_gtfs"] = Json::array();
    for (const auto& line : lines_) {
      s["in_gtfs"].push_back(line.gtfs_route != nullptr ? 1 : 0);
    }
    return s;
  }

  /// Days that count as "a day" when hour tables summed over dates are divided into a mean
  /// per day: the dates with at least a tenth of the busiest date's positions, per key. A
  /// service day spills a little into the dates around it (trips after midnight, a vehicle
  /// leaving the depot at 23:50); those slivers add to the sums but are not days of their
  /// own, or a single simulated day would read as three and every mean as a third.
  static std::vector<int64_t> FullDays(
      const std::map<std::pair<int32_t, int32_t>, int64_t>& positions_by_key_day,
      std::size_t keys) {
    std::vector<int64_t> busiest(keys, 0), days(keys, 0);
    for (const auto& [key_day, n] : positions_by_key_day) {
      busiest[key_day.first] = std::max(busiest[key_day.first], n);
    }
    for (const auto& [key_day, n] : positions_by_key_day) {
      if (n * 10 >= busiest[key_day.first] && n > 0) {
        ++days[key_day.first];
      }
    }
    return days;
  }

  // Distinct counts that cannot be summed from hour tables: vehicles and service days per
  // line, per mode and overall, from the positions.
  Json TotalsSection() {
    const auto n_lines = lines_.size();
    // (line, hour, day, vehicle) distinct → vehicle-days per line-hour.
    Dictionary vehicles;
    std::vector<std::tuple<int32_t, int32_t, int32_t, int32_t>> lhdv;
    line_positions_.assign(n_lines * kHours, 0);
    for (const auto& b : buckets_) {
      const int32_t line = LineOf(b.mode, b.route);
      const auto local = LocalHourOf(b.bucket_us);
      const int32_t vehicle = vehicles.Add(b.feed + '\x1f' + b.vehicle);
      lhdv.emplace_back(line, local.hour, base::DaysSinceEpoch(local.date), vehicle);
      line_positions_[static_cast<std::size_t>(line) * kHours + local.hour] += b.positions;
    }
    std::sort(lhdv.begin(), lhdv.end());
    lhdv.erase(std::unique(lhdv.begin(), lhdv.end()), lhdv.end());
    line_vehicle_days_.assign(n_lines * kHours, 0);
    std::set<std::pair<int32_t, int32_t>> line_vehicle, mode_vehicle;
    // Which feeds carry each line and mode: quality is per feed, the page maps filters to feeds.
    std::set<std::pair<int32_t, int32_t>> line_feed, feed_mode;
    for (const auto& b : buckets_) {
      const int32_t line = LineOf(b.mode, b.route);
      line_feed.emplace(line, *feeds_.Find(b.feed));
      feed_mode.emplace(*feeds_.Find(b.feed), lines_[line].mode);
    }
    for (const auto& st : stops_) {
      const int32_t line = LineOf(st.mode, st.route);
      line_feed.emplace(line, *feeds_.Find(st.feed));
      feed_mode.emplace(*feeds_.Find(st.feed), lines_[line].mode);
    }
    std::set<int32_t> all_vehicles;
    for (const auto& [line, hour, day, vehicle] : lhdv) {
      ++line_vehicle_days_[static_cast<std::size_t>(line) * kHours + hour];
      line_vehicle.emplace(line, vehicle);
      mode_vehicle.emplace(lines_[line].mode, vehicle);
      all_vehicles.insert(vehicle);
    }
    std::vector<int64_t> per_line(n_lines, 0);
    for (const auto& [line, vehicle] : line_vehicle) {
      ++per_line[line];
    }
    std::map<std::pair<int32_t, int32_t>, int64_t> line_day_positions;
    for (const auto& b : buckets_) {
      line_day_positions[{LineOf(b.mode, b.route),
                          base::DaysSinceEpoch(LocalHourOf(b.bucket_us).date)}] += b.positions;
    }
    const auto line_days = FullDays(line_day_positions, n_lines);
    std::vector<int64_t> per_mode(modes_.size(), 0);
    for (const auto& [mode, vehicle] : mode_vehicle) {
      ++per_mode[mode];
    }
    // Service days per mode from fleet_hours (it has every mode's hours, even without a line).
    std::map<std::pair<int32_t, int32_t>, int64_t> mode_day_positions;
    std::map<std::pair<int32_t, int32_t>, int64_t> day_positions;
    for (const auto& f : fleet_) {
      mode_day_positions[{*modes_.Find(f.mode), f.day}] += f.positions;
      day_positions[{0, f.day}] += f.positions;
    }
    const auto mode_days = FullDays(mode_day_positions, modes_.size());
    Json s;
    s["vehicles"] = static_cast<int64_t>(all_vehicles.size());
    s["full_days"] = FullDays(day_positions, 1)[0];
    s["mode_vehicles"] = per_mode;
    s["mode_days"] = mode_days;
    s["line_vehicles"] = per_line;
    s["line_days"] = line_days;
    s["line_feeds"] = Json::array();
    for (const auto& [line, feed] : line_feed) {
      s["line_feeds"].push_back({line, feed});
    }
    s["feed_modes"] = Json::array();
    for (const auto& [feed, mode] : feed_mode) {
      s["feed_modes"].push_back({feed, mode});
    }
    return s;
  }

  Json FleetSection() const {
    std::vector<int64_t> vehicles(modes_.size() * kHours, 0), positions(modes_.size() * kHours, 0);
    for (const auto& f : fleet_) {
      const auto k = static_cast<std::size_t>(*modes_.Find(f.mode)) * kHours + f.hour;
      vehicles[k] += f.vehicles;
      positions[k] += f.positions;
    }
    // Per date, all modes: the overview's "positions per day" strip.
    std::vector<int64_t> day_positions(days_.size(), 0);
    for (const auto& f : fleet_) {
      day_positions[DayIndex(f.day)] += f.positions;
    }
    Json s;
    s["vehicle_days"] = vehicles;
    s["positions"] = positions;
    s["day_positions"] = day_positions;
    return s;
  }

  Json LineHoursSection() const {
    const auto n = lines_.size() * kHours;
    std::vector<int64_t> distance(n, 0), duration(n, 0), trips(n, 0);
    for (const auto& s : speed_lines_) {
      const auto k = static_cast<std::size_t>(LineOf(s.mode, s.route)) * kHours + s.hour;
      distance[k] += s.distance_mm;
      duration[k] += s.duration_us;
    }
    for (std::size_t i = 0; i < trips_.size(); ++i) {
      const auto& t = trips_[i];
      const auto k = static_cast<std::size_t>(LineOf(trip_modes_[i], t.route)) * kHours +
                     LocalHourOf(t.first_us).hour;
      ++trips[k];
    }
    for (auto& d : distance) {
      d = RoundDiv(d, 1000);  // mm → m
    }
    for (auto& d : duration) {
      d = RoundDiv(d, 1'000'000);  // µs → s
    }
    Json s;
    s["vehicle_days"] = line_vehicle_days_;
    s["positions"] = line_positions_;
    s["distance_m"] = distance;
    s["duration_s"] = duration;
    s["trips"] = trips;
    return s;
  }

  Json CellsSection() const {
    // Cell dictionary sorted by (y, x); cell-hours grouped by (mode, hour).
    std::set<std::pair<int32_t, int32_t>> cells;
    for (const auto& c : speed_cells_) {
      cells.emplace(c.y, c.x);
    }
    std::map<std::pair<int32_t, int32_t>, int32_t> cell_index;
    int32_t x0 = 0, y0 = 0;
    if (!cells.empty()) {
      x0 = std::min_element(cells.begin(), cells.end(), [](const auto& a, const auto& b) {
             return a.second < b.second;
           })->second;
      y0 = cells.begin()->first;
    }
    std::vector<int32_t> xs, ys;
    for (const auto& [y, x] : cells) {
      cell_index.emplace(std::make_pair(y, x), static_cast<int32_t>(xs.size()));
      xs.push_back(x - x0);
      ys.push_back(y - y0);
    }
    struct Entry {
      int32_t mode, hour, cell;
      int64_t distance_mm, duration_us;
    };
    std::vector<Entry> entries;
    entries.reserve(speed_cells_.size());
    for (const auto& c : speed_cells_) {
      entries.push_back({*modes_.Find(c.mode), c.hour, cell_index.at({c.y, c.x}), c.distance_mm,
                         c.duration_us});
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.mode, a.hour, a.cell) < std::tie(b.mode, b.hour, b.cell);
    });
    std::vector<int32_t> group_mode, group_hour, group_len, cell_delta;
    std::vector<int64_t> distance, duration;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto& e = entries[i];
      const bool new_group = i == 0 || e.mode != entries[i - 1].mode || e.hour != entries[i - 1].hour;
      if (new_group) {
        group_mode.push_back(e.mode);
        group_hour.push_back(e.hour);
        group_len.push_back(0);
      }
      ++group_len.back();
      cell_delta.push_back(new_group ? e.cell : e.cell - entries[i - 1].cell);
      distance.push_back(RoundDiv(e.distance_mm, 1000));
      duration.push_back(RoundDiv(e.duration_us, 1'000'000));
    }
    Json s;
    s["size_deg"] = options_.cell_size_deg;
    s["x0"] = x0;
    s["y0"] = y0;
    s["x"] = xs;
    s["y"] = ys;
    s["group_mode"] = group_mode;
    s["group_hour"] = group_hour;
    s["group_len"] = group_len;
    s["cell_delta"] = cell_delta;
    s["distance_m"] = distance;
    s["duration_s"] = duration;
    return s;
  }

  Json GeoSection() {
    // The origin: the south-west corner of everything drawn, rounded down to 0.01°.
    double min_lat = 90, min_lon = 180, max_lat = -90, max_lon = -180;
    auto extend = [&](double lat, double lon) {
      if (!std::isfinite(lat) || !std::isfinite(lon)) {
        return;
      }
      min_lat = std::min(min_lat, lat);
      max_lat = std::max(max_lat, lat);
      min_lon = std::min(min_lon, lon);
      max_lon = std::max(max_lon, lon);
    };
    if (options_.area != nullptr) {
      const auto& box = options_.area->bounding_box();
      extend(box.min_lat, box.min_lon);
      extend(box.max_lat, box.max_lon);
    }
    for (const auto& s : stops_) {
      extend(s.lat, s.lon);
    }
    for (const auto& c : speed_cells_) {
      extend(c.y * options_.cell_size_deg, c.x * options_.cell_size_deg);
      extend((c.y + 1) * options_.cell_size_deg, (c.x + 1) * options_.cell_size_deg);
    }
    const auto shapes = LineShapes();
    for (const auto& [line, shape] : shapes) {
      for (const auto& p : shape->points) {
        extend(p.lat, p.lon);
      }
    }
    Json s;
    if (min_lat > max_lat) {  // nothing to draw
      min_lat = max_lat = min_lon = max_lon = 0;
    }
    grid_.lat0 = std::floor(min_lat * 100) / 100;
    grid_.lon0 = std::floor(min_lon * 100) / 100;
    s["step_deg"] = kCoordStep;
    s["lat0"] = grid_.lat0;
    s["lon0"] = grid_.lon0;
    s["bbox"] = {grid_.Lat(min_lat), grid_.Lon(min_lon), grid_.Lat(max_lat), grid_.Lon(max_lon)};
    Json rings = Json::array();
    if (options_.area != nullptr) {
      for (const auto& ring : options_.area->rings()) {
        std::vector<std::array<int64_t, 2>> points;
        for (const auto& [lon, lat] : ring) {
          points.push_back({grid_.Lon(lon), grid_.Lat(lat)});
        }
        auto simple = SimplifyPolyline(points, kSimplifyTolerance);
        if (simple.size() >= 4) {
          rings.push_back(DeltaEncode(simple));
        }
      }
    }
    s["area"] = rings;
    std::vector<int32_t> shape_line;
    Json shape_points = Json::array();
    for (const auto& [line, shape] : shapes) {
      std::vector<std::array<int64_t, 2>> points;
      for (const auto& p : shape->points) {
        points.push_back({grid_.Lon(p.lon), grid_.Lat(p.lat)});
      }
      auto simple = SimplifyPolyline(points, kSimplifyTolerance);
      if (simple.size() >= 2) {
        shape_line.push_back(line);
        shape_points.push_back(DeltaEncode(simple));
      }
    }
    s["shape_line"] = shape_line;
    s["shapes"] = shape_points;
    return s;
  }

  /// Every distinct shape of each line's GTFS route, in line order then shape id order.
  std::vector<std::pair<int32_t, const gtfs::Shape*>> LineShapes() const {
    std::vector<std::pair<int32_t, const gtfs::Shape*>> out;
    if (options_.feed == nullptr) {
      return out;
    }
    std::unordered_map<std::string, std::set<std::string>> shapes_of_route;
    for (const auto& trip : options_.feed->trips()) {
      if (!trip.shape_id.empty()) {
        shapes_of_route[trip.route_id].insert(trip.shape_id);
      }
    }
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      if (lines_[i].gtfs_route == nullptr) {
        continue;
      }
      const auto it = shapes_of_route.find(lines_[i].gtfs_route->id);
      if (it == shapes_of_route.end()) {
        continue;
      }
      for (const auto& shape_id : it->second) {
        if (const auto* shape = options_.feed->FindShape(shape_id); shape != nullptr) {
          out.emplace_back(static_cast<int32_t>(i), shape);
        }
      }
    }
    return out;
  }

  Json StopsSection() {
    Dictionary vehicles;
    std::vector<int32_t> vehicle_feed;
    std::vector<int32_t> line, vehicle, start, duration;
    std::vector<int64_t> lat, lon;
    Json terminal = Json::array();
    for (const auto& s : stops_) {
      const std::string key = s.feed + '\x1f' + s.vehicle;
      const auto before = vehicles.size();
      const int32_t v = vehicles.Add(key);
      if (vehicles.size() != before) {
        vehicle_feed.push_back(*feeds_.Find(s.feed));
        vehicle_ids_.push_back(s.vehicle);
      }
      const auto local = options_.time_zone.ToLocal(base::FromUnixMicros(s.start_us));
      const auto day = std::chrono::floor<std::chrono::days>(local);
      const auto minute =
          std::chrono::duration_cast<std::chrono::minutes>(local - day).count();
      line.push_back(LineOf(s.mode, s.route));
      vehicle.push_back(v);
      start.push_back(DayIndex(base::DaysSinceEpoch(day)) * (kHours * 60) +
                      static_cast<int32_t>(minute));
      duration.push_back(static_cast<int32_t>(RoundDiv(s.end_us - s.start_us, 1'000'000)));
      lat.push_back(grid_.Lat(s.lat));
      lon.push_back(grid_.Lon(s.lon));
      if (s.near_terminal) {
        terminal.push_back(*s.near_terminal ? 1 : 0);
      } else {
        terminal.push_back(nullptr);
      }
    }
    Json s;
    s["vehicle_id"] = vehicle_ids_;
    s["vehicle_feed"] = vehicle_feed;
    s["line"] = line;
    s["vehicle"] = vehicle;
    s["start_min"] = start;
    s["duration_s"] = duration;
    s["lat"] = lat;
    s["lon"] = lon;
    s["near_terminal"] = terminal;
    return s;
  }

  Json QualitySection() const {
    const auto n_feeds = feeds_.size();
    const auto n_days = days_.size();
    std::vector<int64_t> accepted(n_feeds * kHours, 0), vehicles(n_feeds * kHours, 0);
    std::vector<std::vector<int64_t>> reasons(reason_names_.size(),
                                              std::vector<int64_t>(n_feeds * kHours, 0));
    std::vector<int64_t> day_accepted(n_feeds * n_days, 0), day_errors(n_feeds * n_days, 0),
        day_duplicates(n_feeds * n_days, 0);
    for (const auto& q : quality_) {
      const auto feed = static_cast<std::size_t>(*feeds_.Find(q.feed));
      const auto k = feed * kHours + q.hour;
      const auto d = feed * n_days + DayIndex(q.day);
      accepted[k] += q.accepted;
      vehicles[k] += q.vehicles;
      day_accepted[d] += q.accepted;
      for (std::size_t r = 0; r < reason_names_.size(); ++r) {
        reasons[r][k] += q.reasons[r];
        (reason_names_[r] == "duplicate" ? day_duplicates : day_errors)[d] += q.reasons[r];
      }
    }
    Json s;
    s["accepted"] = accepted;
    s["vehicle_days"] = vehicles;
    // Every reason the schema knows, so the page can say "0" for the ones that never fired.
    s["reason_names"] = reason_names_;
    Json by_reason = Json::object();
    for (std::size_t r = 0; r < reason_names_.size(); ++r) {
      const bool any = std::any_of(reasons[r].begin(), reasons[r].end(),
                                   [](int64_t v) { return v != 0; });
      if (any) {
        by_reason[reason_names_[r]] = reasons[r];
      }
    }
    s["rejected"] = by_reason;
    s["day_accepted"] = day_accepted;
    s["day_errors"] = day_errors;
    s["day_duplicates"] = day_duplicates;
    std::vector<int32_t> feed, hour, latency;
    std::vector<int64_t> positions;
    for (const auto& l : latency_) {
      feed.push_back(*feeds_.Find(l.feed));
      hour.push_back(l.hour);
      latency.push_back(l.latency_s);
      positions.push_back(l.positions);
    }
    Json lat;
    lat["feed"] = feed;
    lat["hour"] = hour;
    lat["latency_s"] = latency;
    lat["positions"] = positions;
    s["latency"] = lat;
    return s;
  }

  Json DuplicateSlotsSection() const {
    Json s;
    s["total"] = static_cast<int64_t>(slots_.size());
    std::vector<int64_t> per_day(days_.size(), 0);
    for (const auto& slot : slots_) {
      if (const auto date = base::ParseDate(slot.date)) {
        const auto it = day_index_.find(base::DaysSinceEpoch(*date));
        if (it != day_index_.end()) {
          ++per_day[it->second];
        }
      }
    }
    s["per_day"] = per_day;
    std::vector<int32_t> feed, line;
    std::vector<std::string> date, trip;
    std::vector<int64_t> vehicles;
    for (std::size_t i = 0; i < slots_.size() && i < kMaxDuplicateSlots; ++i) {
      const auto& slot = slots_[i];
      feed.push_back(*feeds_.Find(slot.feed));
      date.push_back(slot.date);
      trip.push_back(slot.trip);
      line.push_back(LineOfRoute(slot.route));
      vehicles.push_back(slot.vehicles);
    }
    s["feed"] = feed;
    s["date"] = date;
    s["trip_id"] = trip;
    s["line"] = line;
    s["vehicles"] = vehicles;
    return s;
  }

  // ---- optional sections: present only when their tables exist ------------------------
  //
  // Other commands write them (`frota headways`, the collector). They are found by their
  // columns, so a renamed table still shows; docs/dashboard.md lists the columns read.

  base::Status ReadOptionalTables() {
    FROTA_ASSIGN_OR_RETURN(const auto tables, TableColumns(db_));
    headways_table_ = FindTable(tables, {"route_id", "direction_id", "headway_s",
                                         "planned_headway_s"},
                                {"headways"});
    collector_table_ =
        FindTable(tables, {"feed_id", "http_status"}, {"collector_polls", "polls"});
    FROTA_RETURN_IF_ERROR(ReadHeadwayHours(tables));
    FROTA_RETURN_IF_ERROR(ReadHeadways(tables));
    FROTA_RETURN_IF_ERROR(ReadHeadwaySummary(tables));
    FROTA_RETURN_IF_ERROR(ReadCoverage(tables));
    if (collector_table_) {
      const auto& cols = tables.at(*collector_table_);
      for (const char* candidate : {"polled_at", "ingest_time", "poll_time", "started_at"}) {
        if (cols.count(candidate) != 0) {
          collector_time_ = candidate;
          break;
        }
      }
      collector_has_repeat_ = cols.count("repeat") != 0;
      collector_has_duration_ = cols.count("duration_ms") != 0;
      const std::string bucket =
          collector_time_.empty()
              ? "NULL::BIGINT"
              : fmt::format("epoch_us(time_bucket(INTERVAL 15 MINUTE, \"{}\"::TIMESTAMP))",
                            collector_time_);
      FROTA_ASSIGN_OR_RETURN(
          auto r,
          Query(db_, *collector_table_,
                fmt::format("SELECT feed_id, {} AS b, http_status::BIGINT, count(*)::BIGINT, "
                            "{}, {}, {} FROM \"{}\" GROUP BY ALL ORDER BY ALL",
                            bucket,
                            collector_has_repeat_ ? "count(*) FILTER (WHERE \"repeat\")::BIGINT"
                                                  : "0::BIGINT",
                            collector_has_duration_ ? "sum(duration_ms)::DOUBLE" : "0::DOUBLE",
                            cols.count("bytes") != 0 ? "sum(bytes)::BIGINT" : "0::BIGINT",
                            *collector_table_)));
      for (std::size_t i = 0; i < r.rows(); ++i) {
        polls_.push_back({r.String(i, 0), r.IsNull(i, 1) ? std::optional<int64_t>()
                                                         : std::optional<int64_t>(r.Int64(i, 1)),
                          r.Int64(i, 2), r.Int64(i, 3), r.IsNull(i, 4) ? 0 : r.Int64(i, 4),
                          r.IsNull(i, 5) ? 0.0 : r.Double(i, 5),
                          r.IsNull(i, 6) ? 0 : r.Int64(i, 6)});
      }
    }
    return base::Status::Ok();
  }

  // Departures found and planned per hour (and day type). Issue 34's `headway_summary`
  // (it has `departures_unobserved`) is preferred: its departures_planned leaves out the
  // planned departures inside a coverage gap, which no count of `planned_departures` can.
  // Else `frota headways` keeps one row per departure found (in `headways`, the first of a
  // day with a NULL headway) and per departure planned (`planned_departures`): counting
  // them is exactly its departures_found and departures_planned. Else any summary with
  // both counts per hour.
  base::Status ReadHeadwayHours(const TableMap& tables) {
    const std::vector<std::string> summary_cols = {"route_id", "direction_id", "hour",
                                                   "departures_found", "departures_planned"};
    auto new_summary = FindTable(tables, {"route_id", "direction_id", "hour", "day_type",
                                          "departures_found", "departures_planned",
                                          "departures_unobserved"},
                                 {"headway_summary"});
    const auto planned_table =
        FindTable(tables, {"route_id", "direction_id", "hour"}, {"planned_departures"});
    std::string sql;
    if (new_summary) {
      hours_table_ = *new_summary;
      sql = fmt::format(
          "SELECT route_id, coalesce(direction_id, -1)::BIGINT, hour::BIGINT, day_type, "
          "sum(departures_found)::BIGINT, sum(departures_planned)::BIGINT FROM \"{}\" "
          "WHERE hour >= 0 AND day_type <> 'all' GROUP BY ALL ORDER BY ALL",
          *new_summary);
    } else if (headways_table_ && tables.at(*headways_table_).count("hour") != 0 &&
               planned_table && *planned_table == "planned_departures") {
      hours_table_ = *headways_table_ + " + " + *planned_table;
      sql = fmt::format(
          "SELECT route_id, dir, hour, day_type, sum(found)::BIGINT, sum(planned)::BIGINT "
          "FROM (SELECT route_id, coalesce(direction_id, -1)::BIGINT AS dir, "
          "hour::BIGINT AS hour, {} AS day_type, 1 AS found, 0 AS planned FROM \"{}\" "
          "UNION ALL SELECT route_id, coalesce(direction_id, -1)::BIGINT, hour::BIGINT, {}, 0, "
          "1 FROM \"{}\") GROUP BY ALL ORDER BY ALL",
          DayTypeExpr(tables, *headways_table_), *headways_table_,
          DayTypeExpr(tables, *planned_table), *planned_table);
    } else if (const auto summary = FindTable(tables, summary_cols,
                                              {"headway_summary", "headway_hours"})) {
      hours_table_ = *summary;
      const bool typed = tables.at(*summary).count("day_type") != 0;
      sql = fmt::format(
          "SELECT route_id, coalesce(direction_id, -1)::BIGINT, hour::BIGINT, '' AS day_type, "
          "sum(departures_found)::BIGINT, sum(departures_planned)::BIGINT FROM \"{}\" "
          "WHERE hour >= 0 {} GROUP BY ALL ORDER BY ALL",
          *summary, typed ? "AND day_type = 'all'" : "");
    }
    if (!hours_table_) {
      return base::Status::Ok();
    }
    FROTA_ASSIGN_OR_RETURN(auto r, Query(db_, *hours_table_, sql));
    for (std::size_t i = 0; i < r.rows(); ++i) {
      headway_hours_.push_back({r.String(i, 0), r.IsNull(i, 3) ? "" : r.String(i, 3),
                                r.Int64(i, 1), r.Int64(i, 2), r.Int64(i, 4), r.Int64(i, 5)});
    }
    return base::Status::Ok();
  }

  static std::string DayTypeExpr(const TableMap& tables, const std::string& table) {
    return tables.at(table).count("day_type") != 0 ? "coalesce(day_type, '')" : "''";
  }

  // Individual headways, measured only (`exclusion IS NULL` when the column exists: a
  // database older than issue 34 has none, and then every headway counts, as it did), and
  // the excluded ones counted per reason.
  base::Status ReadHeadways(const TableMap& tables) {
    if (!headways_table_) {
      return base::Status::Ok();
    }
    // The hour of a headway: its `hour` column, else the local hour of `departure_time`.
    const auto& cols = tables.at(*headways_table_);
    std::string hour_expr = "0::BIGINT";
    bool utc_time = false;
    if (cols.count("hour") != 0) {
      hour_expr = "hour::BIGINT";
    } else if (cols.count("departure_time") != 0) {
      hour_expr = "epoch_us(departure_time)";
      utc_time = true;
    }
    auto local_hour = [&](sink::DuckDbResult& r, std::size_t i) -> int64_t {
      if (r.IsNull(i, 2)) {
        return 0;
      }
      return utc_time ? LocalHourOf(r.Int64(i, 2)).hour : r.Int64(i, 2);
    };
    const std::string day_type = DayTypeExpr(tables, *headways_table_);
    has_exclusion_ = cols.count("exclusion") != 0;
    FROTA_ASSIGN_OR_RETURN(
        auto r, Query(db_, *headways_table_,
                      fmt::format("SELECT route_id, coalesce(direction_id, -1)::BIGINT, {}, "
                                  "round(headway_s)::BIGINT, "
                                  "coalesce(round(planned_headway_s), 0)::BIGINT, {} "
                                  "FROM \"{}\" WHERE headway_s IS NOT NULL {} ORDER BY ALL",
                                  hour_expr, day_type, *headways_table_,
                                  has_exclusion_ ? "AND exclusion IS NULL" : "")));
    for (std::size_t i = 0; i < r.rows(); ++i) {
      const int64_t planned = std::max<int64_t>(0, r.Int64(i, 4));
      headways_.push_back(
          {r.String(i, 0), r.String(i, 5), r.Int64(i, 1), local_hour(r, i), planned,
           r.Int64(i, 3)});
    }
    if (has_exclusion_) {
      FROTA_ASSIGN_OR_RETURN(
          auto x, Query(db_, *headways_table_,
                        fmt::format("SELECT route_id, coalesce(direction_id, -1)::BIGINT, {}, "
                                    "exclusion, {}, count(*)::BIGINT FROM \"{}\" "
                                    "WHERE exclusion IS NOT NULL GROUP BY ALL ORDER BY ALL",
                                    hour_expr, day_type, *headways_table_)));
      for (std::size_t i = 0; i < x.rows(); ++i) {
        excluded_.push_back({x.String(i, 0), x.String(i, 4), x.String(i, 3), x.Int64(i, 1),
                             local_hour(x, i), x.Int64(i, 5)});
      }
    }
    // Which day type each local date is, so coverage intervals follow the day-type selector.
    if (cols.count("local_date") != 0 && cols.count("day_type") != 0) {
      FROTA_ASSIGN_OR_RETURN(
          auto d, Query(db_, *headways_table_,
                        fmt::format("SELECT DISTINCT local_date, day_type FROM \"{}\" WHERE "
                                    "local_date IS NOT NULL AND day_type IS NOT NULL ORDER BY ALL",
                                    *headways_table_)));
      for (std::size_t i = 0; i < d.rows(); ++i) {
        date_day_types_.emplace(d.DateDays(i, 0), d.String(i, 1));
      }
    }
    return base::Status::Ok();
  }

  // Issue 34's whole-day summary fields per route, direction and day type ('all' included),
  // read only when the summary has them.
  base::Status ReadHeadwaySummary(const TableMap& tables) {
    summary_table_ = FindTable(tables, {"route_id", "direction_id", "day_type", "hour"},
                               {"headway_summary"});
    if (!summary_table_) {
      return base::Status::Ok();
    }
    const auto& cols = tables.at(*summary_table_);
    std::string select;
    for (const char* name : kSummaryColumns) {
      if (cols.count(name) != 0) {
        summary_columns_.emplace_back(name);
        select += fmt::format(", \"{}\"::DOUBLE", name);
      }
    }
    if (summary_columns_.empty()) {
      summary_table_.reset();
      return base::Status::Ok();
    }
    FROTA_ASSIGN_OR_RETURN(
        auto r, Query(db_, *summary_table_,
                      fmt::format("SELECT route_id, coalesce(direction_id, -1)::BIGINT, "
                                  "day_type{} FROM \"{}\" WHERE hour = -1 ORDER BY 1, 2, 3",
                                  select, *summary_table_)));
    for (std::size_t i = 0; i < r.rows(); ++i) {
      SummaryRow row{r.String(i, 0), r.String(i, 2), r.Int64(i, 1), {}};
      for (std::size_t k = 0; k < summary_columns_.size(); ++k) {
        row.values.push_back(r.IsNull(i, 3 + k) ? std::nullopt
                                                : std::optional<double>(r.Double(i, 3 + k)));
      }
      summary_.push_back(std::move(row));
    }
    return base::Status::Ok();
  }

  // When the feed was blind (`coverage_gaps`), when a line was silent while it was not
  // (`line_silences`), and covered minutes per feed and hour (`feed_coverage`).
  base::Status ReadCoverage(const TableMap& tables) {
    // By name only: other tables (stops) have the same columns and mean something else.
    auto named = [&](const std::string& name,
                     const std::vector<std::string>& required) -> std::optional<std::string> {
      const auto it = tables.find(name);
      if (it == tables.end()) {
        return std::nullopt;
      }
      for (const auto& column : required) {
        if (it->second.count(column) == 0) {
          return std::nullopt;
        }
      }
      return name;
    };
    gaps_table_ = named("coverage_gaps", {"feed_id", "start_time", "end_time"});
    silences_table_ = named("line_silences", {"feed_id", "route_id", "start_time", "end_time"});
    feed_hours_table_ =
        named("feed_coverage", {"feed_id", "local_date", "hour", "covered_minutes"});
    for (const auto& [table, with_route] :
         {std::make_pair(gaps_table_, false), std::make_pair(silences_table_, true)}) {
      if (!table) {
        continue;
      }
      FROTA_ASSIGN_OR_RETURN(
          auto r, Query(db_, *table,
                        fmt::format("SELECT feed_id, {}, epoch_us(start_time), epoch_us(end_time) "
                                    "FROM \"{}\" WHERE end_time > start_time ORDER BY ALL",
                                    with_route ? "route_id" : "''", *table)));
      for (std::size_t i = 0; i < r.rows(); ++i) {
        (with_route ? silences_ : gaps_)
            .push_back({r.String(i, 0), r.String(i, 1), r.Int64(i, 2), r.Int64(i, 3)});
      }
    }
    if (feed_hours_table_) {
      FROTA_ASSIGN_OR_RETURN(
          auto r, Query(db_, *feed_hours_table_,
                        fmt::format("SELECT feed_id, local_date, hour::BIGINT, "
                                    "sum(covered_minutes)::BIGINT FROM \"{}\" "
                                    "GROUP BY ALL ORDER BY ALL",
                                    *feed_hours_table_)));
      for (std::size_t i = 0; i < r.rows(); ++i) {
        feed_hours_.push_back({r.String(i, 0), r.DateDays(i, 1), static_cast<int>(r.Int64(i, 2)),
                               r.Int64(i, 3)});
      }
    }
    return base::Status::Ok();
  }

  /// A line for a GTFS route id named by the headway tables: as LineOfRoute, else a new line
  /// (mode from the GTFS route type, or "other").
  int32_t LineOfRouteOrAdd(const std::string& route) {
    const int32_t found = LineOfRoute(route, /*gtfs_first=*/true);
    if (found >= 0) {
      return found;
    }
    LineInfo info{0, route, nullptr};
    if (resolver_) {
      info.gtfs_route = resolver_->Find(route);
    }
    const std::string mode(info.gtfs_route != nullptr
                               ? model::ModeName(model::ModeFromGtfsRouteType(info.gtfs_route->type))
                               : model::ModeName(model::Mode::kOther));
    info.mode = modes_.Add(mode);
    lines_.push_back(info);
    line_index_.emplace(std::make_pair(mode, route), static_cast<int32_t>(lines_.size() - 1));
    return static_cast<int32_t>(lines_.size() - 1);
  }

  /// Day types named by the headway tables, weekday, saturday, sunday, holiday first, then
  /// others by name; "" (a table without day types) last. "all" is not one: rows of every
  /// day type pooled say -1.
  std::vector<std::string> DayTypes() const {
    std::set<std::string> names;
    for (const auto& h : headway_hours_) names.insert(h.day_type);
    for (const auto& h : headways_) names.insert(h.day_type);
    for (const auto& x : excluded_) names.insert(x.day_type);
    for (const auto& row : summary_) names.insert(row.day_type);
    for (const auto& [day, type] : date_day_types_) names.insert(type);
    names.erase("all");
    std::vector<std::string> out;
    for (const char* known : kDayTypes) {
      if (names.erase(known) != 0) {
        out.emplace_back(known);
      }
    }
    const bool unknown = names.erase("") != 0;
    out.insert(out.end(), names.begin(), names.end());
    if (unknown) {
      out.emplace_back("");
    }
    return out;
  }

  Json HeadwaysSection() {
    if (!hours_table_ && !headways_table_) {
      return nullptr;
    }
    const auto day_types = DayTypes();
    auto type_index = [&](const std::string& name) -> int64_t {
      const auto it = std::find(day_types.begin(), day_types.end(), name);
      return it == day_types.end() ? -1 : it - day_types.begin();
    };
    Json s;
    s["hours_table"] = hours_table_.value_or("");
    s["headways_table"] = headways_table_.value_or("");
    s["day_types"] = day_types;
    if (hours_table_) {
      std::vector<int64_t> line, dir, day_type, hour, found, planned;
      for (const auto& h : headway_hours_) {
        line.push_back(LineOfRoute(h.route, /*gtfs_first=*/true));
        dir.push_back(h.direction);
        day_type.push_back(type_index(h.day_type));
        hour.push_back(h.hour);
        found.push_back(h.found);
        planned.push_back(h.planned);
      }
      s["hours"] = {{"line", line},         {"direction", dir}, {"day_type", day_type},
                    {"hour", hour},         {"found", found},   {"planned", planned}};
    } else {
      s["hours"] = nullptr;
    }
    if (headways_table_) {
      // Measured headways grouped by (line, direction, day type, hour, planned headway);
      // planned_s 0 when nothing was planned (they enter medians, not the planned ratios).
      struct H {
        int64_t line, dir, day_type, hour, planned, h;
      };
      std::vector<H> rows;
      for (const auto& h : headways_) {
        rows.push_back({LineOfRoute(h.route, /*gtfs_first=*/true), h.direction,
                        type_index(h.day_type), h.hour, h.planned_s, h.headway_s});
      }
      auto key = [](const H& h) { return std::tie(h.line, h.dir, h.day_type, h.hour, h.planned); };
      std::sort(rows.begin(), rows.end(), [&](const H& a, const H& b) {
        return std::tuple_cat(key(a), std::tie(a.h)) < std::tuple_cat(key(b), std::tie(b.h));
      });
      std::vector<int64_t> g_line, g_dir, g_type, g_hour, g_planned, g_len, values;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& h = rows[i];
        if (i == 0 || key(h) != key(rows[i - 1])) {
          g_line.push_back(h.line);
          g_dir.push_back(h.dir);
          g_type.push_back(h.day_type);
          g_hour.push_back(h.hour);
          g_planned.push_back(h.planned);
          g_len.push_back(0);
        }
        ++g_len.back();
        values.push_back(h.h);
      }
      s["measured_only"] = has_exclusion_;
      s["headways"] = {{"line", g_line},   {"direction", g_dir},       {"day_type", g_type},
                       {"hour", g_hour},   {"planned_s", g_planned},   {"len", g_len},
                       {"headway_s", values}};
    } else {
      s["measured_only"] = false;
      s["headways"] = nullptr;
    }
    s["excluded"] = ExcludedSection(type_index);
    std::vector<int64_t> date_type;
    for (const int32_t day : days_) {
      const auto it = date_day_types_.find(day);
      date_type.push_back(it == date_day_types_.end() ? -1 : type_index(it->second));
    }
    s["date_day_type"] = date_type;
    s["summary"] = SummarySection(type_index);
    return s;
  }

  /// Excluded headways counted per (line, direction, day type, hour, reason); null when the
  /// table has no `exclusion` column. Both reasons of semantics §7 are always named.
  template <typename TypeIndex>
  Json ExcludedSection(const TypeIndex& type_index) const {
    if (!has_exclusion_) {
      return nullptr;
    }
    std::vector<std::string> reasons = {"service_break", "coverage_gap"};
    for (const auto& x : excluded_) {
      if (std::find(reasons.begin(), reasons.end(), x.reason) == reasons.end()) {
        reasons.push_back(x.reason);
      }
    }
    std::vector<int64_t> line, dir, day_type, hour, reason, count;
    for (const auto& x : excluded_) {
      line.push_back(LineOfRoute(x.route, /*gtfs_first=*/true));
      dir.push_back(x.direction);
      day_type.push_back(type_index(x.day_type));
      hour.push_back(x.hour);
      reason.push_back(std::find(reasons.begin(), reasons.end(), x.reason) - reasons.begin());
      count.push_back(x.count);
    }
    return {{"reasons", reasons}, {"line", line},     {"direction", dir}, {"day_type", day_type},
            {"hour", hour},       {"reason", reason}, {"n", count}};
  }

  /// headway_summary's whole-day issue-34 fields, one row per (line, direction, day type;
  /// -1 = all); shares rounded to 4 decimals, counts whole. Null without those columns.
  template <typename TypeIndex>
  Json SummarySection(const TypeIndex& type_index) const {
    if (!summary_table_) {
      return nullptr;
    }
    std::vector<int64_t> line, dir, day_type;
    std::vector<Json> columns(summary_columns_.size(), Json::array());
    for (const auto& row : summary_) {
      line.push_back(LineOfRoute(row.route, /*gtfs_first=*/true));
      dir.push_back(row.direction);
      day_type.push_back(row.day_type == "all" ? -1 : type_index(row.day_type));
      for (std::size_t k = 0; k < summary_columns_.size(); ++k) {
        const auto& v = row.values[k];
        if (!v || !std::isfinite(*v)) {
          columns[k].push_back(nullptr);
        } else if (summary_columns_[k].find("share") != std::string::npos) {
          columns[k].push_back(std::round(*v * 10000) / 10000);
        } else {
          columns[k].push_back(std::llround(*v));
        }
      }
    }
    Json s;
    s["table"] = *summary_table_;
    s["line"] = line;
    s["direction"] = dir;
    s["day_type"] = day_type;
    for (std::size_t k = 0; k < summary_columns_.size(); ++k) {
      s[summary_columns_[k]] = columns[k];
    }
    return s;
  }

  /// Feed blind intervals, line silences and covered minutes per feed and hour; each part
  /// null without its table, the whole section null without all three. Intervals start at
  /// `date index * 1440 + local minute` (as stops do) and last whole minutes.
  Json CoverageSection() const {
    if (!gaps_table_ && !silences_table_ && !feed_hours_table_) {
      return nullptr;
    }
    auto start_minute = [&](int64_t utc_us) {
      const auto local = options_.time_zone.ToLocal(base::FromUnixMicros(utc_us));
      const auto day = std::chrono::floor<std::chrono::days>(local);
      const auto minute = std::chrono::duration_cast<std::chrono::minutes>(local - day).count();
      return static_cast<int64_t>(DayIndex(base::DaysSinceEpoch(day))) * (kHours * 60) + minute;
    };
    auto intervals = [&](const std::optional<std::string>& table,
                         const std::vector<IntervalRow>& rows, bool with_line) -> Json {
      if (!table) {
        return nullptr;
      }
      std::vector<int64_t> feed, line, start, minutes;
      for (const auto& g : rows) {
        feed.push_back(*feeds_.Find(g.feed));
        if (with_line) {
          line.push_back(LineOfRoute(g.route, /*gtfs_first=*/true));
        }
        start.push_back(start_minute(g.start_us));
        minutes.push_back(std::max<int64_t>(1, RoundDiv(g.end_us - g.start_us, 60'000'000)));
      }
      Json out;
      out["table"] = *table;
      out["feed"] = feed;
      if (with_line) {
        out["line"] = line;
      }
      out["start_min"] = start;
      out["minutes"] = minutes;
      return out;
    };
    Json s;
    s["gaps"] = intervals(gaps_table_, gaps_, false);
    s["silences"] = intervals(silences_table_, silences_, true);
    if (feed_hours_table_) {
      std::vector<int64_t> feed, day, hour, covered;
      for (const auto& f : feed_hours_) {
        feed.push_back(*feeds_.Find(f.feed));
        day.push_back(DayIndex(f.day));
        hour.push_back(f.hour);
        covered.push_back(f.covered_minutes);
      }
      s["feed_hours"] = {{"table", *feed_hours_table_}, {"feed", feed}, {"day", day},
                         {"hour", hour}, {"covered_minutes", covered}};
    } else {
      s["feed_hours"] = nullptr;
    }
    return s;
  }

  Json CollectorSection() const {
    // Every frota database has collector_polls; only a run that collected fills it.
    if (!collector_table_ || polls_.empty()) {
      return nullptr;
    }
    const auto n = feeds_.size() * kHours;
    std::vector<int64_t> polls(n, 0), failed(n, 0), repeats(n, 0), duration_ms(n, 0),
        bytes(n, 0);
    std::map<int64_t, int64_t> statuses;
    for (const auto& p : polls_) {
      const int hour = p.bucket_us ? options_.time_zone.ToLocalHour(base::FromUnixMicros(*p.bucket_us)).hour : 0;
      const auto k = static_cast<std::size_t>(*feeds_.Find(p.feed)) * kHours + hour;
      polls[k] += p.polls;
      statuses[p.status] += p.polls;
      if (p.status != 200) {
        failed[k] += p.polls;
      }
      repeats[k] += p.repeats;
      duration_ms[k] += std::llround(p.duration_ms);
      bytes[k] += p.bytes;
    }
    Json s;
    s["table"] = *collector_table_;
    s["has_time"] = !collector_time_.empty();
    s["has_repeat"] = collector_has_repeat_;
    s["has_duration"] = collector_has_duration_;
    s["polls"] = polls;
    s["failed"] = failed;
    s["repeats"] = repeats;
    s["duration_ms"] = duration_ms;
    s["bytes"] = bytes;
    Json st = Json::array();
    for (const auto& [status, count] : statuses) {
      st.push_back({status, count});
    }
    s["statuses"] = st;
    return s;
  }

  base::Result<Json> ReportsSection() const {
    Json out = Json::array();
    for (const auto& path : options_.reports) {
      FROTA_ASSIGN_OR_RETURN(const auto text, base::ReadFile(path));
      auto parsed = Json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (parsed.is_discarded() || !parsed.is_object()) {
        return base::InvalidInput("{}: not a JSON object (a stage report must be one)",
                                  path.string());
      }
      std::vector<std::pair<std::string, std::string>> entries;
      FlattenReport(parsed, "", entries);
      if (entries.size() > kMaxReportEntries) {
        entries.resize(kMaxReportEntries);
      }
      Json keys = Json::array(), values = Json::array();
      for (const auto& [key, value] : entries) {
        keys.push_back(key);
        values.push_back(value);
      }
      out.push_back({{"name", path.filename().string()}, {"keys", keys}, {"values", values}});
    }
    return out;
  }

  static void FlattenReport(const Json& value, const std::string& prefix,
                            std::vector<std::pair<std::string, std::string>>& out) {
    if (value.is_object()) {
      for (const auto& [key, child] : value.items()) {
        FlattenReport(child, prefix.empty() ? key : prefix + "." + key, out);
      }
      return;
    }
    if (value.is_array()) {
      const bool scalars = std::all_of(value.begin(), value.end(),
                                       [](const Json& v) { return v.is_primitive(); });
      if (scalars) {
        std::string joined;
        for (const auto& v : value) {
          joined += (joined.empty() ? "" : ", ") + (v.is_string() ? v.get<std::string>() : v.dump());
        }
        out.emplace_back(prefix, joined);
        return;
      }
      for (std::size_t i = 0; i < value.size(); ++i) {
        FlattenReport(value[i], fmt::format("{}[{}]", prefix, i), out);
      }
      return;
    }
    out.emplace_back(prefix, value.is_string() ? value.get<std::string>() : value.dump());
  }

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

}  // namespace

// ---- internal helpers (data_model_internal.h) ------------------------------------------

bool NaturalLess(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && is_digit(a[ie])) ++ie;
      while (je < b.size() && is_digit(b[je])) ++je;
      // Compare digit runs as numbers: strip leading zeros, then by length, then by text.
      std::size_t ia = i, jb = j;
      while (ia + 1 < ie && a[ia] == '0') ++ia;
      while (jb + 1 < je && b[jb] == '0') ++jb;
      if (ie - ia != je - jb) {
        return ie - ia < je - jb;
      }
      const auto cmp = a.substr(ia, ie - ia).compare(b.substr(jb, je - jb));
      if (cmp != 0) {
        return cmp < 0;
      }
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) {
      return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    }
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j) {
    return a.size() - i < b.size() - j;
  }
  return a < b;  // equal under the natural order ("07" vs "7"): fall back to bytes
}

int64_t RoundDiv(int64_t value, int64_t divisor) {
  const int64_t q = value / divisor;
  const int64_t r = value % divisor;
  if (2 * (r < 0 ? -r : r) >= divisor) {
    return q + (value < 0 ? -1 : 1);
  }
  return q;
}

std::vector<std::array<int64_t, 2>> SimplifyPolyline(const std::vector<std::array<int64_t, 2>>& points,
                                                     double tolerance) {
  // Drop repeated points first, then Douglas-Peucker (iterative, so long shapes cannot
  // overflow the stack).
  std::vector<std::array<int64_t, 2>> p;
  for (const auto& q : points) {
    if (p.empty() || p.back() != q) {
      p.push_back(q);
    }
  }
  if (p.size() <= 2) {
    return p;
  }
  std::vector<bool> keep(p.size(), false);
  keep.front() = keep.back() = true;
  std::vector<std::pair<std::size_t, std::size_t>> stack{{0, p.size() - 1}};
  while (!stack.empty()) {
    const auto [first, last] = stack.back();
    stack.pop_back();
    const double ax = static_cast<double>(p[first][0]), ay = static_cast<double>(p[first][1]);
    const double bx = static_cast<double>(p[last][0]), by = static_cast<double>(p[last][1]);
    const double dx = bx - ax, dy = by - ay;
    const double length2 = dx * dx + dy * dy;
    double worst = -1;
    std::size_t worst_index = first;
    for (std::size_t k = first + 1; k < last; ++k) {
      const double px = static_cast<double>(p[k][0]) - ax, py = static_cast<double>(p[k][1]) - ay;
      double distance;
      if (length2 == 0) {
        distance = std::hypot(px, py);  // a closed ring: distance to the shared end point
      } else {
        const double t = std::clamp((px * dx + py * dy) / length2, 0.0, 1.0);
        distance = std::hypot(px - t * dx, py - t * dy);
      }
      if (distance > worst) {
        worst = distance;
        worst_index = k;
      }
    }
    if (worst > tolerance) {
      keep[worst_index] = true;
      stack.emplace_back(first, worst_index);
      stack.emplace_back(worst_index, last);
    }
  }
  std::vector<std::array<int64_t, 2>> out;
  for (std::size_t k = 0; k < p.size(); ++k) {
    if (keep[k]) {
      out.push_back(p[k]);
    }
  }
  return out;
}

std::vector<int64_t> DeltaEncode(const std::vector<std::array<int64_t, 2>>& points) {
  std::vector<int64_t> out;
  out.reserve(points.size() * 2);
  std::array<int64_t, 2> previous{0, 0};
  for (const auto& p : points) {
    out.push_back(p[0] - previous[0]);
    out.push_back(p[1] - previous[1]);
    previous = p;
  }
  return out;
}

base::Result<std::map<std::string, std::set<std::string>>> TableColumns(
    sink::DuckDbConnection& db) {
  FROTA_ASSIGN_OR_RETURN(auto r, Query(db, "the catalog",
                                       "SELECT table_name, column_name FROM "
                                       "information_schema.columns WHERE table_schema = 'main' "
                                       "ORDER BY ALL"));
  std::map<std::string, std::set<std::string>> out;
  for (std::size_t i = 0; i < r.rows(); ++i) {
    out[r.String(i, 0)].insert(r.String(i, 1));
  }
  return out;
}

std::optional<std::string> FindTable(const std::map<std::string, std::set<std::string>>& tables,
                                     const std::vector<std::string>& required,
                                     const std::vector<std::string>& preferred) {
  auto has_all = [&](const std::set<std::string>& columns) {
    return std::all_of(required.begin(), required.end(),
                       [&](const std::string& c) { return columns.count(c) != 0; });
  };
  for (const auto& name : preferred) {
    const auto it = tables.find(name);
    if (it != tables.end() && has_all(it->second)) {
      return name;
    }
  }
  for (const auto& [name, columns] : tables) {  // std::map: the first by name, stable
    if (has_all(columns)) {
      return name;
    }
  }
  return std::nullopt;
}

base::Result<DataModel> BuildDataModel(sink::DuckDbConnection& db,
                                       const DataModelOptions& options) {
  Builder builder(db, options);
  return builder.Build();
}

std::string PrettyJson(const std::string& json) {
  const Json doc = Json::parse(json);
  std::string out;
  auto write = [&out](const Json& value, int indent, const auto& self) -> void {
    const std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
    const std::string inner(static_cast<std::size_t>(indent + 1) * 2, ' ');
    if (value.is_object() && !value.empty()) {
      out += "{\n";
      bool first = true;
      for (const auto& [key, child] : value.items()) {
        out += first ? "" : ",\n";
        first = false;
        out += inner + Json(key).dump() + ": ";
        self(child, indent + 1, self);
      }
      out += "\n" + pad + "}";
      return;
    }
    const bool scalars = value.is_array() && std::all_of(value.begin(), value.end(),
                                                        [](const Json& v) { return v.is_primitive(); });
    if (value.is_array() && !value.empty() && !scalars) {
      out += "[\n";
      bool first = true;
      for (const auto& child : value) {
        out += first ? "" : ",\n";
        first = false;
        out += inner;
        self(child, indent + 1, self);
      }
      out += "\n" + pad + "]";
      return;
    }
    out += value.dump(-1, ' ', false, Json::error_handler_t::strict);
  };
  write(doc, 0, write);
  out += "\n";
  return out;
}

}  // namespace frota::dashboard
