// The data model, reading: every table and view the page draws from, as raw rows.
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

#include "frota/base/time.h"
#include "frota/dashboard/data_model_builder.h"
#include "frota/gtfs/route_resolver.h"
#include "frota/model/mode.h"

namespace frota::dashboard::detail {

base::Status Builder::ReadTables() {
  FROTA_RETURN_IF_ERROR(ReadPositionBuckets());
  FROTA_RETURN_IF_ERROR(ReadFleet());
  FROTA_RETURN_IF_ERROR(ReadSpeedLines());
  FROTA_RETURN_IF_ERROR(ReadSpeedCells());
  FROTA_RETURN_IF_ERROR(ReadStops());
  FROTA_RETURN_IF_ERROR(ReadTrips());
  FROTA_RETURN_IF_ERROR(ReadQuality());
  FROTA_RETURN_IF_ERROR(ReadDuplicateSlots());
  FROTA_RETURN_IF_ERROR(ReadAircraft());
  FROTA_RETURN_IF_ERROR(ReadOptionalTables());
  return base::Status::Ok();
}

// Distinct vehicles per line and local hour come from the positions: grouped by 15-minute
// UTC buckets (every zone's offset is a multiple of 15 minutes), each bucket then mapped to
// its local hour here, since the database stores UTC instants.
base::Status Builder::ReadPositionBuckets() {
  FROTA_ASSIGN_OR_RETURN(auto r,
                         Query(db_, "positions",
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

// Each aircraft's latest accepted position (the largest event time; ties by ingest time,
// then by source and offset, so the choice is the same every time), its position count,
// and that position's origin country and last contact (aircraft_positions, schema
// version 8; NULL for positions written before it).
base::Status Builder::ReadAircraft() {
  FROTA_ASSIGN_OR_RETURN(
      auto r, Query(db_, "aircraft positions",
                    "SELECT p.feed_id, p.vehicle_id, p.route_id, p.lat, p.lon, p.altitude_m, "
                    "p.on_ground, p.reported_speed_kmh, p.bearing_deg, epoch_us(p.event_time), "
                    "p.positions, a.origin_country, a.last_contact FROM ("
                    "SELECT *, count(*) OVER (PARTITION BY feed_id, vehicle_id)::BIGINT AS "
                    "positions FROM positions WHERE mode = 'aircraft' "
                    "QUALIFY row_number() OVER (PARTITION BY feed_id, vehicle_id ORDER BY "
                    "event_time DESC, ingest_time DESC, source DESC, source_offset DESC) = 1) p "
                    "LEFT JOIN aircraft_positions a USING (feed_id, vehicle_id, event_time) "
                    "ORDER BY p.feed_id, p.vehicle_id"));
  auto number = [&r](std::size_t i, std::size_t c) -> std::optional<double> {
    if (r.IsNull(i, c)) {
      return std::nullopt;
    }
    const double v = r.Double(i, c);
    return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
  };
  aircraft_.reserve(r.rows());
  for (std::size_t i = 0; i < r.rows(); ++i) {
    aircraft_.push_back(
        {r.String(i, 0), r.String(i, 1), r.String(i, 2), r.Double(i, 3), r.Double(i, 4),
         number(i, 5), number(i, 7), number(i, 8),
         r.IsNull(i, 6) ? std::nullopt : std::optional<bool>(r.Bool(i, 6)), r.Int64(i, 9),
         r.Int64(i, 10),
         r.IsNull(i, 11) ? std::nullopt : std::optional<std::string>(r.String(i, 11)),
         r.IsNull(i, 12) ? std::nullopt : std::optional<int64_t>(r.Int64(i, 12))});
  }
  return base::Status::Ok();
}

base::Status Builder::ReadFleet() {
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

base::Status Builder::ReadSpeedLines() {
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

base::Status Builder::ReadSpeedCells() {
  FROTA_ASSIGN_OR_RETURN(auto r,
                         Query(db_, "speed_cells",
                               "SELECT mode, hour, cell_x, cell_y, sum(distance_mm)::BIGINT, "
                               "sum(duration_us)::BIGINT, sum(segments)::BIGINT FROM speed_cells "
                               "GROUP BY ALL HAVING sum(segments) > 0 ORDER BY ALL"));
  speed_cells_.reserve(r.rows());
  for (std::size_t i = 0; i < r.rows(); ++i) {
    speed_cells_.push_back(
        {r.String(i, 0), static_cast<int>(r.Int64(i, 1)), static_cast<int32_t>(r.Int64(i, 2)),
         static_cast<int32_t>(r.Int64(i, 3)), r.Int64(i, 4), r.Int64(i, 5), r.Int64(i, 6)});
  }
  return base::Status::Ok();
}

base::Status Builder::ReadStops() {
  // The place (terminal, depot, en_route) is the read view's; a database whose views are
  // older has near_terminal alone.
  FROTA_ASSIGN_OR_RETURN(const auto tables, TableColumns(db_));
  const auto view = tables.find("stop_rows");
  const bool has_place = view != tables.end() && view->second.count("place") != 0;
  FROTA_ASSIGN_OR_RETURN(
      auto r, Query(db_, "stops",
                    fmt::format("SELECT feed_id, vehicle_id, mode, route_id, epoch_us(start_time), "
                                "epoch_us(end_time), anchor_lat, anchor_lon, near_terminal, {} "
                                "FROM {} ORDER BY start_time, feed_id, vehicle_id",
                                has_place ? "CASE place WHEN 'en_route' THEN 0 WHEN 'terminal' "
                                            "THEN 1 WHEN 'depot' THEN 2 END"
                                          : "NULL::INTEGER",
                                has_place ? "stop_rows" : "stops")));
  stops_.reserve(r.rows());
  for (std::size_t i = 0; i < r.rows(); ++i) {
    StopRow row{r.String(i, 0), r.String(i, 1), r.String(i, 2), r.String(i, 3), r.Int64(i, 4),
                r.Int64(i, 5),  r.Double(i, 6), r.Double(i, 7), std::nullopt,   std::nullopt};
    if (!r.IsNull(i, 8)) {
      row.near_terminal = r.Bool(i, 8);
    }
    if (!r.IsNull(i, 9)) {
      row.place = static_cast<int>(r.Int64(i, 9));
    }
    stops_.push_back(std::move(row));
  }
  return base::Status::Ok();
}

base::Status Builder::ReadTrips() {
  FROTA_ASSIGN_OR_RETURN(auto r, Query(db_, "trips",
                                       "SELECT feed_id, vehicle_id, route_id, "
                                       "epoch_us(first_time) FROM trips ORDER BY ALL"));
  for (std::size_t i = 0; i < r.rows(); ++i) {
    trips_.push_back({r.String(i, 0), r.String(i, 1), r.String(i, 2), r.Int64(i, 3)});
  }
  return base::Status::Ok();
}

base::Status Builder::ReadQuality() {
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
  std::string sql =
      "SELECT feed_id, local_date, hour, sum(accepted)::BIGINT, "
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

base::Status Builder::ReadDuplicateSlots() {
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

base::Status Builder::ReadOptionalTables() {
  FROTA_ASSIGN_OR_RETURN(const auto tables, TableColumns(db_));
  headways_table_ = FindTable(
      tables, {"route_id", "direction_id", "headway_s", "planned_headway_s"}, {"headways"});
  if (headways_table_) {
    // Every database of schema 7 has the regularity tables; empty, they were not computed.
    FROTA_ASSIGN_OR_RETURN(auto r,
                           Query(db_, "headways",
                                 fmt::format("SELECT count(*) FROM (SELECT 1 FROM \"{}\" LIMIT 1)",
                                             *headways_table_)));
    if (r.Int64(0, 0) == 0) {
      headways_table_.reset();
    }
  }
  collector_table_ = FindTable(tables, {"feed_id", "http_status"}, {"collector_polls", "polls"});
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
        Query(
            db_, *collector_table_,
            fmt::format(
                "SELECT feed_id, {} AS b, http_status::BIGINT, count(*)::BIGINT, "
                "{}, {}, {} FROM \"{}\" GROUP BY ALL ORDER BY ALL",
                bucket,
                collector_has_repeat_ ? "count(*) FILTER (WHERE \"repeat\")::BIGINT" : "0::BIGINT",
                collector_has_duration_ ? "sum(duration_ms)::DOUBLE" : "0::DOUBLE",
                cols.count("bytes") != 0 ? "sum(bytes)::BIGINT" : "0::BIGINT", *collector_table_)));
    for (std::size_t i = 0; i < r.rows(); ++i) {
      polls_.push_back(
          {r.String(i, 0),
           r.IsNull(i, 1) ? std::optional<int64_t>() : std::optional<int64_t>(r.Int64(i, 1)),
           r.Int64(i, 2), r.Int64(i, 3), r.IsNull(i, 4) ? 0 : r.Int64(i, 4),
           r.IsNull(i, 5) ? 0.0 : r.Double(i, 5), r.IsNull(i, 6) ? 0 : r.Int64(i, 6)});
    }
  }
  return base::Status::Ok();
}

// Departures found and planned per hour (and day type). A `headway_summary` that has
// `departures_unobserved` is preferred: its departures_planned leaves out the
// planned departures inside a coverage gap, which no count of `planned_departures` can.
// Else `frota headways` keeps one row per departure found (in `headways`, the first of a
// day with a NULL headway) and per departure planned (`planned_departures`): counting
// them is exactly its departures_found and departures_planned. Else any summary with
// both counts per hour.
base::Status Builder::ReadHeadwayHours(const TableMap& tables) {
  const std::vector<std::string> summary_cols = {"route_id", "direction_id", "hour",
                                                 "departures_found", "departures_planned"};
  auto new_summary = FindTable(tables,
                               {"route_id", "direction_id", "hour", "day_type", "departures_found",
                                "departures_planned", "departures_unobserved"},
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
  } else if (headways_table_ && tables.at(*headways_table_).count("hour") != 0 && planned_table &&
             *planned_table == "planned_departures") {
    hours_table_ = *headways_table_ + " + " + *planned_table;
    sql = fmt::format(
        "SELECT route_id, dir, hour, day_type, sum(found)::BIGINT, sum(planned)::BIGINT "
        "FROM (SELECT route_id, coalesce(direction_id, -1)::BIGINT AS dir, "
        "hour::BIGINT AS hour, {} AS day_type, 1 AS found, 0 AS planned FROM \"{}\" "
        "UNION ALL SELECT route_id, coalesce(direction_id, -1)::BIGINT, hour::BIGINT, {}, 0, "
        "1 FROM \"{}\") GROUP BY ALL ORDER BY ALL",
        DayTypeExpr(tables, *headways_table_), *headways_table_,
        DayTypeExpr(tables, *planned_table), *planned_table);
  } else if (const auto summary =
                 FindTable(tables, summary_cols, {"headway_summary", "headway_hours"})) {
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
    headway_hours_.push_back({r.String(i, 0), r.IsNull(i, 3) ? "" : r.String(i, 3), r.Int64(i, 1),
                              r.Int64(i, 2), r.Int64(i, 4), r.Int64(i, 5)});
  }
  return base::Status::Ok();
}

std::string Builder::DayTypeExpr(const TableMap& tables, const std::string& table) {
  return tables.at(table).count("day_type") != 0 ? "coalesce(day_type, '')" : "''";
}

// Individual headways, measured only (`exclusion IS NULL` when the column exists: a
// database older than the column has none, and then every headway counts), and
// the excluded ones counted per reason.
base::Status Builder::ReadHeadways(const TableMap& tables) {
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
        {r.String(i, 0), r.String(i, 5), r.Int64(i, 1), local_hour(r, i), planned, r.Int64(i, 3)});
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

// The whole-day summary fields per route, direction and day type ('all' included),
// read only when the summary has them.
base::Status Builder::ReadHeadwaySummary(const TableMap& tables) {
  summary_table_ =
      FindTable(tables, {"route_id", "direction_id", "day_type", "hour"}, {"headway_summary"});
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
base::Status Builder::ReadCoverage(const TableMap& tables) {
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
  feed_hours_table_ = named("feed_coverage", {"feed_id", "local_date", "hour", "covered_minutes"});
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
    FROTA_ASSIGN_OR_RETURN(auto r, Query(db_, *feed_hours_table_,
                                         fmt::format("SELECT feed_id, local_date, hour::BIGINT, "
                                                     "sum(covered_minutes)::BIGINT FROM \"{}\" "
                                                     "GROUP BY ALL ORDER BY ALL",
                                                     *feed_hours_table_)));
    for (std::size_t i = 0; i < r.rows(); ++i) {
      feed_hours_.push_back(
          {r.String(i, 0), r.DateDays(i, 1), static_cast<int>(r.Int64(i, 2)), r.Int64(i, 3)});
    }
  }
  return base::Status::Ok();
}

}  // namespace frota::dashboard::detail
