#include "frota/batch/headways.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "frota/base/time_zone.h"
#include "frota/batch/sql_files.h"
#include "frota/gtfs/holidays.h"
#include "frota/gtfs/route_resolver.h"
#include "frota/gtfs/service_day.h"
#include "frota/regularity/stream.h"
#include "frota/sink/catalog_sql.h"
#include "frota/sink/chunk_reader.h"

namespace frota::batch {

namespace {

using sink::ColumnType;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kDefaultZone = "America/Sao_Paulo";
// headways.sql: table definitions (departures and headways come first, from the
// catalog: RegularityTablesSql), then this marker, then the statistics.
constexpr std::string_view kStatisticsMarker = "-- @statistics:";
// `--compare-inferred`: the same vehicle within this time is the same departure.
constexpr auto kMatchWindow = std::chrono::minutes(5);
constexpr std::int64_t kMinuteUs = regularity::kMinuteUs;

constexpr const model::TableSpec& kDepartures = model::Table<model::DepartureRow>::kSpec;
constexpr const model::TableSpec& kHeadways = model::Table<model::HeadwayRow>::kSpec;

// The stream's tables this command makes anew before headways.sql: the catalog's DDL
// (model/tables.h), so their columns are spelled once.
std::string RegularityTablesSql() {
  std::string out;
  for (const model::TableSpec* table : {&kDepartures, &kHeadways}) {
    out += fmt::format("DROP TABLE IF EXISTS {};\n{}", table->name,
                       sink::CreateTableSql(*table, sink::SqlDialect::kDuckDb));
  }
  return out;
}

using regularity::Coverage;
using regularity::LineKey;
using regularity::LinePlan;
using regularity::MinuteOf;
using regularity::MinuteStart;
using regularity::Period;
using regularity::Placed;
using regularity::PlanCache;
using regularity::SecondsInto;

void SetOptionalDirection(sink::ChunkAppender& a, std::size_t column, int direction_id) {
  direction_id >= 0 ? a.SetInt8(column, static_cast<std::int8_t>(direction_id)) : a.SetNull(column);
}

std::optional<double> OptionalDouble(sink::DuckDbResult& r, std::size_t row, std::size_t column) {
  if (r.IsNull(row, column)) {
    return std::nullopt;
  }
  return r.Double(row, column);
}

// `--compare-inferred`: per line, the trip-id departures matched by the inferred ones.
std::map<std::pair<std::string, int>, InferredCheck> CompareInferred(
    const std::vector<Departure>& with_ids, const std::vector<Departure>& inferred) {
  std::map<std::pair<std::string, int>, InferredCheck> out;
  // Inferred departures by vehicle, in time order, each usable once.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<const Departure*, bool>>>
      by_vehicle;
  for (const Departure& d : inferred) {
    if (d.hidden) {
      continue;
    }
    ++out[{d.route_id, d.direction_id}].departures;
    by_vehicle[{d.feed_id, d.vehicle_id}].emplace_back(&d, false);
  }
  for (auto& [vehicle, list] : by_vehicle) {
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return a.first->departure_time < b.first->departure_time;
    });
  }
  for (const Departure& d : with_ids) {
    if (d.hidden) {
      continue;
    }
    InferredCheck& check = out[{d.route_id, d.direction_id}];
    auto it = by_vehicle.find({d.feed_id, d.vehicle_id});
    if (it == by_vehicle.end()) {
      continue;
    }
    std::pair<const Departure*, bool>* best = nullptr;
    for (auto& candidate : it->second) {
      const auto delta = candidate.first->departure_time - d.departure_time;
      if (candidate.second || candidate.first->route_id != d.route_id || delta > kMatchWindow ||
          delta < -kMatchWindow) {
        continue;
      }
      if (best == nullptr || (best->first->direction_id != d.direction_id &&
                              candidate.first->direction_id == d.direction_id)) {
        best = &candidate;
      }
    }
    if (best != nullptr) {
      best->second = true;
      if (best->first->direction_id == d.direction_id) {
        ++check.matched;
      } else {
        ++check.other_direction;
      }
    }
  }
  return out;
}

void SetOptionalDouble(sink::ChunkAppender& a, std::size_t column, std::optional<double> v) {
  v ? a.SetDouble(column, *v) : a.SetNull(column);
}

void SetOptionalBool(sink::ChunkAppender& a, std::size_t column, std::optional<bool> v) {
  v ? a.SetBool(column, *v) : a.SetNull(column);
}

// The trips as runs (regularity::SplitRuns) into `trip_runs` (sql/headways.sql).
base::Status WriteTripRuns(sink::DuckDbConnection& db, const base::TimeZone& zone,
                           const std::vector<regularity::RunTrip>& runs) {
  FROTA_ASSIGN_OR_RETURN(
      auto a,
      sink::ChunkAppender::Create(
          db, "trip_runs",
          {ColumnType::kVarchar, ColumnType::kVarchar, ColumnType::kVarchar, ColumnType::kVarchar,
           ColumnType::kVarchar, ColumnType::kTinyint, ColumnType::kTimestamp,
           ColumnType::kTimestamp, ColumnType::kTimestamp, ColumnType::kInteger,
           ColumnType::kDouble, ColumnType::kBoolean, ColumnType::kDouble, ColumnType::kDouble,
           ColumnType::kBoolean, ColumnType::kDate}));
  for (const regularity::RunTrip& r : runs) {
    a->SetString(0, r.feed_id);
    a->SetString(1, r.vehicle_id);
    a->SetString(2, r.trip_id);
    a->SetString(3, r.trip_start_date);
    a->SetString(4, r.route_id);
    SetOptionalDirection(*a, 5, r.direction_id);
    if (r.departure) {
      a->SetTimestampMicros(6, base::ToUnixMicros(r.departure->departure_time));
    } else {
      a->SetNull(6);
    }
    a->SetTimestampMicros(7, base::ToUnixMicros(r.first_time));
    a->SetTimestampMicros(8, base::ToUnixMicros(r.last_time));
    a->SetInt32(9, static_cast<std::int32_t>(r.positions));
    a->SetDouble(10, r.distance_m);
    SetOptionalBool(*a, 11, r.completed);
    SetOptionalDouble(*a, 12, r.shape_share);
    SetOptionalDouble(*a, 13, r.minute_share);
    SetOptionalBool(*a, 14, r.conforming);
    a->SetDateDays(15, base::DaysSinceEpoch(zone.ToLocalHour(r.first_time).date));
    FROTA_RETURN_IF_ERROR(a->EndRow());
  }
  return a->Close();
}

// Local ISO 8601 with the offset, e.g. "2022-07-20T08:05:00-03:00".
std::string LocalIso(const base::TimeZone& zone, base::Timestamp t) {
  const auto offset = zone.OffsetAt(t);
  std::string text = base::FormatIso8601(t + offset);
  text.pop_back();  // 'Z'
  const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(offset).count();
  const auto magnitude = minutes < 0 ? -minutes : minutes;
  return text +
         fmt::format("{}{:02d}:{:02d}", minutes < 0 ? '-' : '+', magnitude / 60, magnitude % 60);
}

// The alerts of the regularity stream over every position of `db`, one day of positions
// at a time in time order with the watermark after each chunk: the stream keeps only
// what its horizon needs, so memory stays that of a day however many days `db` holds,
// and the rows are those of one Finish() at the end (regularity/stream.h). The last row
// of each alert (a closing row repeats it), in the order raised.
base::Result<std::vector<model::AlertRow>> StreamAlerts(sink::DuckDbConnection& db,
                                                        regularity::Stream& stream) {
  std::vector<model::AlertRow> alerts;
  std::map<std::string, std::size_t> index;
  const auto keep = [&](model::EpochRows& rows) {
    for (auto& a : rows.of<model::AlertRow>()) {
      const auto [it, inserted] = index.try_emplace(a.alert_id, alerts.size());
      if (inserted) {
        alerts.push_back(std::move(a));
      } else {
        alerts[it->second] = std::move(a);
      }
    }
  };
  FROTA_ASSIGN_OR_RETURN(auto span,
                         db.Query("SELECT epoch_us(min(event_time)), epoch_us(max(event_time)) "
                                  "FROM positions"));
  constexpr std::int64_t kDayUs = 24 * 60 * kMinuteUs;
  const bool any = !span.IsNull(0, 0);
  for (std::int64_t from = any ? span.Int64(0, 0) : 0; any && from <= span.Int64(0, 1);
       from += kDayUs) {
    FROTA_ASSIGN_OR_RETURN(
        auto reader,
        sink::ChunkReader::Run(
            db, fmt::format("SELECT feed_id, vehicle_id, epoch_us(event_time), lat, lon, "
                            "route_id, trip_id, trip_start_date FROM positions "
                            "WHERE event_time >= make_timestamp({}::BIGINT) "
                            "AND event_time < make_timestamp({}::BIGINT) "
                            "ORDER BY event_time, feed_id, vehicle_id",
                            from, from + kDayUs)));
    while (reader->Next()) {
      const auto* times = reader->Column<std::int64_t>(2);
      const auto* lats = reader->Column<double>(3);
      const auto* lons = reader->Column<double>(4);
      for (std::size_t r = 0; r < reader->size(); ++r) {
        stream.Add(reader->Text(0, r), reader->Text(1, r), base::FromUnixMicros(times[r]), lats[r],
                   lons[r], reader->Text(5, r), reader->Text(6, r), reader->Text(7, r));
      }
      // Every position before the chunk's last instant has been added.
      model::EpochRows rows;
      stream.Advance(base::FromUnixMicros(times[reader->size() - 1] - 1), rows);
      keep(rows);
    }
    FROTA_RETURN_IF_ERROR(reader->status());
  }
  model::EpochRows rows;
  stream.Finish(rows);
  keep(rows);
  return alerts;
}

}  // namespace

const std::vector<std::string>& HeadwayTables() {
  static const std::vector<std::string> kTables = {
      "departures",    "trip_runs",       "planned_departures", "observed_dates",
      "headways",      "service_minutes", "feed_coverage",      "coverage_gaps",
      "line_silences", "headway_routes",  "line_days_not_seen", "headway_summary"};
  return kTables;
}

base::Result<StreamCheck> CheckStreamTable(sink::DuckDbConnection& db, std::string table,
                                           std::string_view stream_table,
                                           std::string_view batch_table, std::size_t examples) {
  StreamCheck check;
  check.table = std::move(table);
  FROTA_ASSIGN_OR_RETURN(
      auto counts,
      db.Query(fmt::format("SELECT (SELECT count(*) FROM {0}), (SELECT count(*) FROM {1}), "
                           "(SELECT count(*) FROM (SELECT * FROM {1} EXCEPT ALL "
                           "SELECT * FROM {0})), "
                           "(SELECT count(*) FROM (SELECT * FROM {0} EXCEPT ALL "
                           "SELECT * FROM {1}))",
                           stream_table, batch_table)));
  check.stream_rows = counts.Int64(0, 0);
  check.batch_rows = counts.Int64(0, 1);
  check.missing = counts.Int64(0, 2);
  check.extra = counts.Int64(0, 3);
  FROTA_ASSIGN_OR_RETURN(
      auto rows, db.Query(fmt::format(
                     "(SELECT 'missing: ' || CAST(d AS VARCHAR) FROM (SELECT * FROM {1} EXCEPT ALL "
                     "SELECT * FROM {0}) d ORDER BY ALL LIMIT {2}) UNION ALL "
                     "(SELECT 'extra: ' || CAST(d AS VARCHAR) FROM (SELECT * FROM {0} "
                     "EXCEPT ALL SELECT * FROM {1}) d ORDER BY ALL LIMIT {2})",
                     stream_table, batch_table, examples)));
  for (std::size_t i = 0; i < rows.rows(); ++i) {
    check.examples.push_back(rows.String(i, 0));
  }
  return check;
}

base::Result<HeadwayReport> ComputeHeadways(sink::DuckDbConnection& db,
                                            const gtfs::StaticFeed& feed,
                                            const HeadwayOptions& options) {
  const auto started = Clock::now();
  std::string zone_name = options.time_zone;
  if (zone_name.empty()) {
    zone_name =
        feed.time_zone().empty() ? std::string(kDefaultZone) : std::string(feed.time_zone());
  }
  FROTA_ASSIGN_OR_RETURN(const auto zone, base::TimeZone::Load(zone_name));
  gtfs::HolidayCalendar holidays = gtfs::HolidayCalendar::ForTimeZone(zone_name);
  if (!options.holidays.empty()) {
    FROTA_RETURN_IF_ERROR(holidays.AddFile(options.holidays));
  }
  if (options.min_headways < 1) {
    return base::InvalidInput("--min-headways must be at least 1, not {}", options.min_headways);
  }
  if (options.coverage_gap_minutes < 1) {
    return base::InvalidInput("the coverage gap must be at least 1 minute, not {}",
                              options.coverage_gap_minutes);
  }
  const gtfs::RouteResolver resolver(feed);
  std::vector<regularity::RunTrip> runs;
  FROTA_ASSIGN_OR_RETURN(auto departures,
                         FindDepartures(db, feed, resolver, zone, options.departures, &runs));
  std::map<std::pair<std::string, int>, InferredCheck> checks;
  if (options.compare_inferred) {
    DepartureOptions without_ids = options.departures;
    without_ids.use_trip_ids = false;
    FROTA_ASSIGN_OR_RETURN(const auto inferred,
                           FindDepartures(db, feed, resolver, zone, without_ids));
    checks = CompareInferred(departures, inferred);
  }

  // One pass over the positions' minutes: each feed's coverage and the local dates and
  // hours it was observed in; the minutes each GTFS route delivered positions in, and
  // the feed that carries it (the one with most of its positions).
  std::map<std::string, Coverage> coverage;
  std::set<base::LocalDate> observed_dates;
  std::map<std::tuple<std::string, base::LocalDate, int>, std::int64_t> covered_per_hour;
  std::map<std::string, std::vector<std::int64_t>> route_minutes;
  std::map<std::string, std::string> route_feed;
  {
    FROTA_ASSIGN_OR_RETURN(
        auto rows, db.Query("SELECT feed_id, route_id, epoch_us(event_time) // 60000000, count(*) "
                            "FROM positions GROUP BY ALL ORDER BY ALL"));
    std::map<std::string, std::vector<std::int64_t>> feed_minutes;
    std::map<std::string, const gtfs::Route*> resolved;
    std::map<std::string, std::map<std::string, std::int64_t>> feed_positions;
    for (std::size_t i = 0; i < rows.rows(); ++i) {
      const std::string feed_id = rows.String(i, 0);
      const std::string name = rows.String(i, 1);
      const std::int64_t minute = rows.Int64(i, 2);
      feed_minutes[feed_id].push_back(minute);
      if (name.empty()) {
        continue;
      }
      auto it = resolved.find(name);
      if (it == resolved.end()) {
        it = resolved.emplace(name, resolver.Find(name)).first;
      }
      if (it->second != nullptr) {
        route_minutes[it->second->id].push_back(minute);
        feed_positions[it->second->id][feed_id] += rows.Int64(i, 3);
      }
    }
    for (auto& [feed_id, list] : feed_minutes) {
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
      std::optional<base::TimeZone::HourSpan> span;
      for (const std::int64_t minute : list) {
        const base::Timestamp t = MinuteStart(minute);
        if (!span || t < span->from || t >= span->until) {
          span = zone.LocalHourSpan(t);
        }
        observed_dates.insert(span->hour.date);
        ++covered_per_hour[{feed_id, span->hour.date, span->hour.hour}];
      }
      coverage.emplace(feed_id, Coverage(std::move(list), options.coverage_gap_minutes));
    }
    for (auto& [route, list] : route_minutes) {
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
    }
    for (const auto& [route, feeds] : feed_positions) {
      route_feed[route] =
          std::max_element(feeds.begin(), feeds.end(), [](const auto& a, const auto& b) {
            return a.second < b.second;
          })->first;
    }
  }
  // The GTFS routes the feed serves: its route names resolved, and the departures'.
  std::set<std::string> served;
  for (const auto& [route, list] : route_minutes) {
    served.insert(route);
  }
  for (const auto& d : departures) {
    served.insert(d.route_id);
    route_feed.try_emplace(d.route_id, d.feed_id);
  }
  const Coverage no_coverage;
  const auto coverage_of = [&](const std::string& route_id) -> const Coverage& {
    const auto feed_it = route_feed.find(route_id);
    if (feed_it == route_feed.end()) {
      return no_coverage;
    }
    const auto it = coverage.find(feed_it->second);
    return it == coverage.end() ? no_coverage : it->second;
  };
  const auto route_has = [&](const std::string& route_id, std::int64_t minute) {
    const auto it = route_minutes.find(route_id);
    return it != route_minutes.end() &&
           std::binary_search(it->second.begin(), it->second.end(), minute);
  };

  // Each departure on its service date and in its service period. Without a trip's start
  // date, a departure after midnight may belong to the service date before (a night
  // service whose GTFS times pass 24:00).
  PlanCache plans(feed, holidays, zone);
  std::vector<Placed> placed;
  placed.reserve(departures.size());
  std::set<base::LocalDate> service_dates = observed_dates;
  if (!observed_dates.empty()) {
    service_dates.insert(
        base::LocalDateFromDays(base::DaysSinceEpoch(*observed_dates.begin()) - 1));
  }
  for (const auto& d : departures) {
    const Placed p = regularity::Place(d, plans, holidays);
    service_dates.insert(p.service_date);
    placed.push_back(p);
  }

  HeadwayReport report;
  report.time_zone = zone_name;
  for (const auto& [feed_id, c] : coverage) {
    FeedCoverage& fc = report.feed_coverage[feed_id];
    fc.covered_minutes = static_cast<std::int64_t>(c.minutes().size());
    for (const auto& [from, to] : c.gaps()) {
      fc.gaps.emplace_back(MinuteStart(from), MinuteStart(to));
    }
  }

  // A database the stream wrote regularity rows into: keep them to compare, and recompute
  // the alerts as the stream would in one step at the end of the input.
  FROTA_ASSIGN_OR_RETURN(
      auto has_alerts,
      db.Query("SELECT count(*) FROM information_schema.tables WHERE table_name = 'alerts' "
               "AND table_schema = 'main'"));
  const bool alerts_table = has_alerts.Int64(0, 0) > 0;
  bool streamed = false;
  std::vector<model::AlertRow> batch_alerts;
  if (alerts_table) {
    FROTA_ASSIGN_OR_RETURN(auto counts, db.Query("SELECT (SELECT count(*) FROM departures) + "
                                                 "(SELECT count(*) FROM alerts)"));
    streamed = counts.Int64(0, 0) > 0;
    if (streamed) {
      for (const std::string table : {"departures", "headways", "alerts"}) {
        FROTA_RETURN_IF_ERROR(db.Execute(fmt::format(
            "CREATE OR REPLACE TEMP TABLE stream_{0} AS SELECT * FROM main.{0}", table)));
      }
    }
    regularity::StreamOptions stream_options;
    stream_options.departures = options.departures;
    stream_options.coverage_gap_minutes = options.coverage_gap_minutes;
    regularity::Stream stream(feed, resolver, zone, holidays, stream_options);
    FROTA_ASSIGN_OR_RETURN(batch_alerts, StreamAlerts(db, stream));
  }

  FROTA_RETURN_IF_ERROR(db.Execute("BEGIN TRANSACTION"));
  auto write = [&]() -> base::Status {
    const auto marker = sql::kHeadwaysSql.find(kStatisticsMarker);
    if (marker == std::string_view::npos) {
      return base::Internal("headways.sql has no statistics marker");
    }
    FROTA_RETURN_IF_ERROR(db.Execute(RegularityTablesSql()));
    FROTA_RETURN_IF_ERROR(db.Execute(sql::kHeadwaysSql.substr(0, marker)));
    {
      FROTA_ASSIGN_OR_RETURN(auto a, sink::ChunkAppender::Create(db, kDepartures.name,
                                                                 sink::AppenderTypes(kDepartures)));
      for (const Placed& p : placed) {
        const Departure& d = *p.departure;
        if (d.hidden) {
          continue;  // no row: only its line's headway across it is left out
        }
        FROTA_RETURN_IF_ERROR(sink::AppendRow(*a, regularity::DepartureRowOf(p, zone)));
        ++report.departures;
        report.inferred_departures += d.inferred ? 1 : 0;
      }
      FROTA_RETURN_IF_ERROR(a->Close());
    }
    FROTA_RETURN_IF_ERROR(WriteTripRuns(db, zone, runs));
    {
      FROTA_ASSIGN_OR_RETURN(auto a,
                             sink::ChunkAppender::Create(
                                 db, "observed_dates",
                                 {ColumnType::kDate, ColumnType::kVarchar, ColumnType::kVarchar}));
      for (const auto date : observed_dates) {
        const auto holiday = holidays.Find(date);
        a->SetDateDays(0, base::DaysSinceEpoch(date));
        a->SetString(1, gtfs::DayTypeName(gtfs::DayTypeOf(date, holidays)));
        holiday ? a->SetString(2, holiday->name) : a->SetNull(2);
        FROTA_RETURN_IF_ERROR(a->EndRow());
      }
      FROTA_RETURN_IF_ERROR(a->Close());
    }
    // Planned departures, and the minutes of planned service with what the feed and the
    // route delivered in them. Only local dates the feed was observed on count.
    std::map<std::string, std::set<std::int64_t>> silent_by_route;
    {
      FROTA_ASSIGN_OR_RETURN(
          auto a, sink::ChunkAppender::Create(
                      db, "planned_departures",
                      {ColumnType::kVarchar, ColumnType::kTinyint, ColumnType::kDate,
                       ColumnType::kVarchar, ColumnType::kTimestamp, ColumnType::kDate,
                       ColumnType::kTinyint, ColumnType::kInteger, ColumnType::kBoolean}));
      FROTA_ASSIGN_OR_RETURN(
          auto m, sink::ChunkAppender::Create(
                      db, "service_minutes",
                      {ColumnType::kVarchar, ColumnType::kTinyint, ColumnType::kDate,
                       ColumnType::kVarchar, ColumnType::kDate, ColumnType::kTinyint,
                       ColumnType::kInteger, ColumnType::kInteger, ColumnType::kInteger}));
      std::set<base::LocalDate> planned_dates;
      for (const auto date : service_dates) {
        const gtfs::ServicePlan& day = plans.For(date);
        for (const auto& [key, route] : day.routes()) {
          if (!served.contains(key.first)) {
            continue;
          }
          const LinePlan* plan = plans.Line(key.first, key.second, date);
          if (plan == nullptr) {
            continue;
          }
          const Coverage& cov = coverage_of(key.first);
          const std::string_view day_type = gtfs::DayTypeName(plan->day_type);
          for (const std::int32_t s : route.departures()) {
            const base::Timestamp t = plan->day_start + std::chrono::seconds(s);
            const base::LocalHour hour = zone.ToLocalHour(t);
            if (!observed_dates.contains(hour.date)) {
              continue;
            }
            planned_dates.insert(hour.date);
            a->SetString(0, key.first);
            SetOptionalDirection(*a, 1, key.second);
            a->SetDateDays(2, base::DaysSinceEpoch(date));
            a->SetString(3, day_type);
            a->SetTimestampMicros(4, base::ToUnixMicros(t));
            a->SetDateDays(5, base::DaysSinceEpoch(hour.date));
            a->SetInt8(6, hour.hour);
            a->SetInt32(7, static_cast<std::int32_t>(plan->PeriodOf(s).value_or(0)));
            a->SetBool(8, !cov.Watching(MinuteOf(t)));
            FROTA_RETURN_IF_ERROR(a->EndRow());
          }
          // Planned service: each period from its first planned departure to its last
          // plus one planned headway (at least that last minute), within the feed's span.
          struct Count {
            std::int32_t planned = 0;
            std::int32_t covered = 0;
            std::int32_t silent = 0;
          };
          std::map<base::LocalHour, Count> counts;
          std::optional<base::TimeZone::HourSpan> span;
          for (const Period& p : plan->periods) {
            const base::Timestamp from =
                plan->day_start + std::chrono::seconds(plan->times[p.begin]);
            const base::Timestamp to =
                plan->day_start + std::chrono::seconds(plan->times[p.end - 1]) +
                std::chrono::seconds(std::max<std::int64_t>(60, std::llround(p.last_headway_s)));
            for (std::int64_t minute = MinuteOf(from); MinuteStart(minute) < to; ++minute) {
              const base::Timestamp t = MinuteStart(minute);
              if (!span || t < span->from || t >= span->until) {
                span = zone.LocalHourSpan(t);
              }
              // Before the capture began or after it ended nothing was observed, blind
              // or not: planned service there is not counted.
              if (!observed_dates.contains(span->hour.date) || !cov.InSpan(minute)) {
                continue;
              }
              Count& c = counts[span->hour];
              ++c.planned;
              if (cov.Covered(minute)) {
                ++c.covered;
                if (!route_has(key.first, minute)) {
                  ++c.silent;
                  silent_by_route[key.first].insert(minute);
                }
              }
            }
          }
          for (const auto& [hour, c] : counts) {
            m->SetString(0, key.first);
            SetOptionalDirection(*m, 1, key.second);
            m->SetDateDays(2, base::DaysSinceEpoch(date));
            m->SetString(3, day_type);
            m->SetDateDays(4, base::DaysSinceEpoch(hour.date));
            m->SetInt8(5, hour.hour);
            m->SetInt32(6, c.planned);
            m->SetInt32(7, c.covered);
            m->SetInt32(8, c.silent);
            FROTA_RETURN_IF_ERROR(m->EndRow());
          }
        }
      }
      for (const auto date : observed_dates) {
        if (!planned_dates.contains(date)) {
          report.dates_without_plan.push_back(base::FormatDate(date));
        }
      }
      FROTA_RETURN_IF_ERROR(a->Close());
      FROTA_RETURN_IF_ERROR(m->Close());
    }
    {
      // Consecutive in-period departures of a line and service date, each pair measured
      // or excluded with its reason.
      std::map<LineKey, std::vector<const Placed*>> lines;
      for (const Placed& p : placed) {
        if (p.period) {
          lines[{p.departure->route_id, p.departure->direction_id, p.service_date}].push_back(&p);
        }
      }
      FROTA_ASSIGN_OR_RETURN(
          auto a, sink::ChunkAppender::Create(db, kHeadways.name, sink::AppenderTypes(kHeadways)));
      for (auto& [key, list] : lines) {
        std::sort(list.begin(), list.end(), [](const Placed* x, const Placed* y) {
          return std::tie(x->departure->departure_time, x->departure->vehicle_id) <
                 std::tie(y->departure->departure_time, y->departure->vehicle_id);
        });
        const Coverage& cov = coverage_of(std::get<0>(key));
        const Placed* previous = nullptr;
        bool hidden_between = false;
        for (const Placed* p : list) {
          if (p->departure->hidden) {
            hidden_between = previous != nullptr;
            continue;
          }
          const model::HeadwayRow row = regularity::HeadwayRowOf(
              *p, regularity::MeasureHeadway(previous, *p, cov, hidden_between), zone);
          previous = p;
          hidden_between = false;
          FROTA_RETURN_IF_ERROR(sink::AppendRow(*a, row));
        }
      }
      FROTA_RETURN_IF_ERROR(a->Close());
    }
    {
      FROTA_ASSIGN_OR_RETURN(
          auto a, sink::ChunkAppender::Create(db, "feed_coverage",
                                              {ColumnType::kVarchar, ColumnType::kDate,
                                               ColumnType::kTinyint, ColumnType::kSmallint}));
      for (const auto& [key, minutes] : covered_per_hour) {
        a->SetString(0, std::get<0>(key));
        a->SetDateDays(1, base::DaysSinceEpoch(std::get<1>(key)));
        a->SetInt8(2, static_cast<std::int8_t>(std::get<2>(key)));
        a->SetInt16(3, static_cast<std::int16_t>(minutes));
        FROTA_RETURN_IF_ERROR(a->EndRow());
      }
      FROTA_RETURN_IF_ERROR(a->Close());
    }
    {
      FROTA_ASSIGN_OR_RETURN(
          auto a, sink::ChunkAppender::Create(db, "coverage_gaps",
                                              {ColumnType::kVarchar, ColumnType::kTimestamp,
                                               ColumnType::kTimestamp, ColumnType::kInteger}));
      for (const auto& [feed_id, c] : coverage) {
        for (const auto& [from, to] : c.gaps()) {
          a->SetString(0, feed_id);
          a->SetTimestampMicros(1, from * kMinuteUs);
          a->SetTimestampMicros(2, to * kMinuteUs);
          a->SetInt32(3, static_cast<std::int32_t>(to - from));
          FROTA_RETURN_IF_ERROR(a->EndRow());
        }
      }
      FROTA_RETURN_IF_ERROR(a->Close());
    }
    {
      FROTA_ASSIGN_OR_RETURN(
          auto a, sink::ChunkAppender::Create(
                      db, "line_silences",
                      {ColumnType::kVarchar, ColumnType::kVarchar, ColumnType::kTimestamp,
                       ColumnType::kTimestamp, ColumnType::kInteger}));
      for (const auto& [silent_route, minutes] : silent_by_route) {
        // A named reference for the lambda below (clang 14 cannot capture a binding).
        const std::string& route_id = silent_route;
        const std::string& feed_id = route_feed[route_id];
        const auto emit = [&](std::int64_t from, std::int64_t to) -> base::Status {
          if (to - from < options.coverage_gap_minutes) {
            return base::Status::Ok();
          }
          a->SetString(0, feed_id);
          a->SetString(1, route_id);
          a->SetTimestampMicros(2, from * kMinuteUs);
          a->SetTimestampMicros(3, to * kMinuteUs);
          a->SetInt32(4, static_cast<std::int32_t>(to - from));
          return a->EndRow();
        };
        std::int64_t from = *minutes.begin();
        std::int64_t last = from;
        for (const std::int64_t minute : minutes) {
          if (minute > last + 1) {
            FROTA_RETURN_IF_ERROR(emit(from, last + 1));
            from = minute;
          }
          last = minute;
        }
        FROTA_RETURN_IF_ERROR(emit(from, last + 1));
      }
      FROTA_RETURN_IF_ERROR(a->Close());
    }
    {
      FROTA_ASSIGN_OR_RETURN(
          auto a, sink::ChunkAppender::Create(db, "headway_routes",
                                              {ColumnType::kVarchar, ColumnType::kVarchar}));
      for (const auto& route_id : served) {
        const gtfs::Route* route = feed.FindRoute(route_id);
        a->SetString(0, route_id);
        a->SetString(1, route != nullptr ? route->short_name : std::string());
        FROTA_RETURN_IF_ERROR(a->EndRow());
      }
      FROTA_RETURN_IF_ERROR(a->Close());
    }
    if (alerts_table) {
      FROTA_RETURN_IF_ERROR(db.Execute("DELETE FROM alerts"));
      const auto& alerts = model::Table<model::AlertRow>::kSpec;
      FROTA_ASSIGN_OR_RETURN(
          auto a, sink::ChunkAppender::Create(db, alerts.name, sink::AppenderTypes(alerts)));
      for (const auto& r : batch_alerts) {
        FROTA_RETURN_IF_ERROR(sink::AppendRow(*a, r));
      }
      FROTA_RETURN_IF_ERROR(a->Close());
    }
    FROTA_RETURN_IF_ERROR(db.Execute(
        fmt::format("CREATE OR REPLACE TEMP TABLE headway_options AS SELECT {} AS min_headways",
                    options.min_headways)));
    return db.Execute(sql::kHeadwaysSql.substr(marker));
  };
  if (const auto status = write(); !status.ok()) {
    (void)db.Execute("ROLLBACK");
    return status.error().WithContext("writing the headway tables");
  }
  FROTA_RETURN_IF_ERROR(db.Execute("COMMIT"));

  if (streamed) {
    for (const std::string table : {"departures", "headways", "alerts"}) {
      FROTA_ASSIGN_OR_RETURN(
          auto check, CheckStreamTable(db, table, "temp.stream_" + table, "main." + table, 3));
      report.stream_check.push_back(std::move(check));
    }
  }

  FROTA_ASSIGN_OR_RETURN(
      auto rows,
      db.Query("SELECT route_id, route_short_name, direction_id, inferred, day_type, hour, "
               "service_dates, planned_service_dates, departures_found, departures_planned, "
               "found_ratio, median_headway_s, p10_headway_s, p90_headway_s, "
               "planned_headway_s, bunching_share, gap_share, cv, los, excess_wait_s, "
               "headways_measured, excluded_service_break, excluded_coverage_gap, "
               "share_under_60s, departures_unobserved, departures_unplanned, "
               "departures_tagged_late, coverage_share, silent_minutes, line_days_not_seen, "
               "departures_not_seen, trips_completed, trips_conforming FROM headway_summary "
               "ORDER BY route_short_name, route_id, "
               "direction_id, "
               "day_type, hour"));
  std::map<std::pair<std::string, int>, RouteHeadways> routes;
  std::vector<std::pair<std::string, int>> order;
  for (std::size_t i = 0; i < rows.rows(); ++i) {
    const int direction = rows.IsNull(i, 2) ? -1 : static_cast<int>(rows.Int64(i, 2));
    const auto key = std::make_pair(rows.String(i, 0), direction);
    auto [it, inserted] = routes.try_emplace(key);
    RouteHeadways& r = it->second;
    if (inserted) {
      order.push_back(key);
      r.route_id = key.first;
      r.route_short_name = rows.String(i, 1);
      r.direction_id = direction;
      r.inferred = rows.Bool(i, 3);
      if (options.compare_inferred) {
        const auto check = checks.find(key);
        r.inferred_check = check != checks.end() ? check->second : InferredCheck{};
      }
    }
    HeadwayStats s;
    s.day_type = rows.String(i, 4);
    s.hour = static_cast<int>(rows.Int64(i, 5));
    s.service_dates = rows.Int64(i, 6);
    s.planned_service_dates = rows.Int64(i, 7);
    s.departures_found = rows.Int64(i, 8);
    s.departures_planned = rows.Int64(i, 9);
    s.found_ratio = OptionalDouble(rows, i, 10);
    s.median_headway_s = OptionalDouble(rows, i, 11);
    s.p10_headway_s = OptionalDouble(rows, i, 12);
    s.p90_headway_s = OptionalDouble(rows, i, 13);
    s.planned_headway_s = OptionalDouble(rows, i, 14);
    s.bunching_share = OptionalDouble(rows, i, 15);
    s.gap_share = OptionalDouble(rows, i, 16);
    s.cv = OptionalDouble(rows, i, 17);
    s.los = rows.IsNull(i, 18) ? std::string() : rows.String(i, 18);
    s.excess_wait_s = OptionalDouble(rows, i, 19);
    s.headways_measured = rows.Int64(i, 20);
    s.excluded_service_break = rows.Int64(i, 21);
    s.excluded_coverage_gap = rows.Int64(i, 22);
    s.share_under_60s = OptionalDouble(rows, i, 23);
    s.departures_unobserved = rows.Int64(i, 24);
    s.departures_unplanned = rows.Int64(i, 25);
    s.departures_tagged_late = rows.Int64(i, 26);
    s.coverage_share = OptionalDouble(rows, i, 27);
    s.silent_minutes = rows.Int64(i, 28);
    s.line_days_not_seen = rows.Int64(i, 29);
    s.departures_not_seen = rows.Int64(i, 30);
    s.trips_completed = rows.Int64(i, 31);
    s.trips_conforming = rows.Int64(i, 32);
    if (s.day_type == "all" && s.hour < 0) {
      r.all = std::move(s);
    } else if (s.day_type == "all") {
      r.by_hour.push_back(std::move(s));
    } else if (s.hour < 0) {
      r.by_day_type.push_back(std::move(s));
    }
  }
  for (const auto& key : order) {
    report.routes.push_back(std::move(routes[key]));
  }
  FROTA_ASSIGN_OR_RETURN(
      auto unseen,
      db.Query("SELECT n.route_id, coalesce(r.route_short_name, ''), coalesce(n.direction_id, -1), "
               "strftime(n.service_date, '%Y-%m-%d'), n.day_type, n.departures_planned "
               "FROM line_days_not_seen n LEFT JOIN headway_routes r USING (route_id) "
               "ORDER BY 2, 1, 3, 4"));
  for (std::size_t i = 0; i < unseen.rows(); ++i) {
    report.line_days_not_seen.push_back({unseen.String(i, 0), unseen.String(i, 1),
                                         static_cast<int>(unseen.Int64(i, 2)), unseen.String(i, 3),
                                         unseen.String(i, 4), unseen.Int64(i, 5)});
  }
  report.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return report;
}

namespace {

nlohmann::ordered_json Number(std::optional<double> v, int decimals) {
  if (!v || !std::isfinite(*v)) {
    return nullptr;
  }
  const double scale = std::pow(10.0, decimals);
  return std::round(*v * scale) / scale;
}

nlohmann::ordered_json StatsJson(const HeadwayStats& s) {
  nlohmann::ordered_json j;
  j["service_dates"] = s.service_dates;
  j["planned_service_dates"] = s.planned_service_dates;
  j["departures_found"] = s.departures_found;
  j["departures_planned"] = s.departures_planned;
  j["found_ratio"] = Number(s.found_ratio, 4);
  j["median_headway_s"] = Number(s.median_headway_s, 1);
  j["p10_headway_s"] = Number(s.p10_headway_s, 1);
  j["p90_headway_s"] = Number(s.p90_headway_s, 1);
  j["planned_headway_s"] = Number(s.planned_headway_s, 1);
  j["bunching_share"] = Number(s.bunching_share, 4);
  j["gap_share"] = Number(s.gap_share, 4);
  j["cv"] = Number(s.cv, 4);
  j["los"] = s.los.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s.los);
  j["excess_wait_s"] = Number(s.excess_wait_s, 1);
  j["headways_measured"] = s.headways_measured;
  j["headways_excluded"] = {{"service_break", s.excluded_service_break},
                            {"coverage_gap", s.excluded_coverage_gap}};
  j["coverage_share"] = Number(s.coverage_share, 4);
  j["share_under_60s"] = Number(s.share_under_60s, 4);
  j["departures_unobserved"] = s.departures_unobserved;
  j["departures_unplanned"] = s.departures_unplanned;
  j["departures_tagged_late"] = s.departures_tagged_late;
  j["silent_minutes"] = s.silent_minutes;
  j["line_days_not_seen"] = s.line_days_not_seen;
  j["departures_not_seen"] = s.departures_not_seen;
  j["trips_completed"] = s.trips_completed;
  j["trips_conforming"] = s.trips_conforming;
  return j;
}

std::string Cell(std::optional<double> v, int decimals) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : std::string("-");
}

}  // namespace

std::string HeadwayJson(const HeadwayReport& report) {
  nlohmann::ordered_json routes = nlohmann::ordered_json::array();
  for (const auto& r : report.routes) {
    nlohmann::ordered_json j;
    j["route_id"] = r.route_id;
    j["route_short_name"] = r.route_short_name;
    j["direction_id"] =
        r.direction_id >= 0 ? nlohmann::ordered_json(r.direction_id) : nlohmann::ordered_json();
    j["inferred"] = r.inferred;
    j.update(StatsJson(r.all));
    nlohmann::ordered_json hours = nlohmann::ordered_json::array();
    for (const auto& h : r.by_hour) {
      nlohmann::ordered_json hj;
      hj["hour"] = h.hour;
      hj.update(StatsJson(h));
      hours.push_back(std::move(hj));
    }
    j["by_hour"] = std::move(hours);
    nlohmann::ordered_json types = nlohmann::ordered_json::array();
    for (const auto& t : r.by_day_type) {
      nlohmann::ordered_json tj;
      tj["day_type"] = t.day_type;
      tj.update(StatsJson(t));
      types.push_back(std::move(tj));
    }
    j["by_day_type"] = std::move(types);
    if (r.inferred_check) {
      j["inferred_check"] = {{"departures", r.inferred_check->departures},
                             {"matched", r.inferred_check->matched},
                             {"other_direction", r.inferred_check->other_direction}};
    }
    routes.push_back(std::move(j));
  }
  nlohmann::ordered_json out;
  out["routes"] = std::move(routes);
  out["departures"] = report.departures;
  out["inferred_departures"] = report.inferred_departures;
  out["dates_without_plan"] = report.dates_without_plan;
  nlohmann::ordered_json unseen = nlohmann::ordered_json::array();
  for (const auto& n : report.line_days_not_seen) {
    unseen.push_back({{"route_id", n.route_id},
                      {"route_short_name", n.route_short_name},
                      {"direction_id", n.direction_id >= 0 ? nlohmann::ordered_json(n.direction_id)
                                                           : nlohmann::ordered_json()},
                      {"service_date", n.service_date},
                      {"day_type", n.day_type},
                      {"departures_planned", n.departures_planned}});
  }
  out["line_days_not_seen"] = std::move(unseen);
  const auto zone = base::TimeZone::Load(report.time_zone);
  const base::TimeZone& local = zone.ok() ? *zone : base::TimeZone::Utc();
  nlohmann::ordered_json coverage = nlohmann::ordered_json::object();
  for (const auto& [feed_id, c] : report.feed_coverage) {
    nlohmann::ordered_json gaps = nlohmann::ordered_json::array();
    for (const auto& [from, to] : c.gaps) {
      gaps.push_back({LocalIso(local, from), LocalIso(local, to)});
    }
    coverage[feed_id] = {{"covered_minutes", c.covered_minutes}, {"gaps", std::move(gaps)}};
  }
  out["feed_coverage"] = std::move(coverage);
  if (!report.stream_check.empty()) {
    nlohmann::ordered_json check = nlohmann::ordered_json::array();
    for (const auto& c : report.stream_check) {
      check.push_back({{"table", c.table},
                       {"stream_rows", c.stream_rows},
                       {"batch_rows", c.batch_rows},
                       {"missing", c.missing},
                       {"extra", c.extra},
                       {"examples", c.examples}});
    }
    out["stream_check"] = std::move(check);
  }
  return out.dump(2);
}

std::string_view HeadwayTextLegend() {
  return "route: the GTFS short name; dir: direction_id; inferred: no departure carried a trip "
         "id\n"
         "found: departures found in service periods; plan: planned departures the feed could "
         "observe,\n"
         "  on the days the line was seen; ratio: found / plan\n"
         "median_h, plan_h: median measured and planned headway (s)\n"
         "bunch: share of headways under 0.25 x planned; gap: share over 2 x planned\n"
         "cv: sd(headway - planned) / mean(planned) (TCQSM); los: its A-F band\n"
         "ewt_s: excess wait time (s), AWT - SWT over the measured headways\n"
         "hw: headways measured; excl: headways left out (planned break or coverage gap)\n"
         "cover: share of planned-service minutes in which the feed delivered a position\n"
         "unseen: service dates the feed watched the line's planned service without one "
         "position\n"
         "  of it: their planned departures are in no column (line_days_not_seen)\n"
         "-: nothing to measure, or fewer than --min-headways headways\n";
}

std::string HeadwayText(const HeadwayReport& report) {
  std::string out = fmt::format(
      "{:<8} {:>3} {:>8} {:>6} {:>6} {:>7} {:>8} {:>8} {:>6} {:>6} {:>6} {:>3} {:>7} {:>6} "
      "{:>6} {:>5} {:>6}\n",
      "route", "dir", "inferred", "found", "plan", "ratio", "median_h", "plan_h", "bunch", "gap",
      "cv", "los", "ewt_s", "hw", "excl", "cover", "unseen");
  for (const auto& r : report.routes) {
    const auto& s = r.all;
    out += fmt::format(
        "{:<8} {:>3} {:>8} {:>6} {:>6} {:>7} {:>8} {:>8} {:>6} {:>6} {:>6} {:>3} {:>7} {:>6} "
        "{:>6} {:>5} {:>6}\n",
        r.route_short_name.empty() ? r.route_id : r.route_short_name,
        r.direction_id >= 0 ? std::to_string(r.direction_id) : std::string("-"),
        r.inferred ? "yes" : "no", s.departures_found, s.departures_planned, Cell(s.found_ratio, 2),
        Cell(s.median_headway_s, 0), Cell(s.planned_headway_s, 0), Cell(s.bunching_share, 2),
        Cell(s.gap_share, 2), Cell(s.cv, 2), s.los.empty() ? std::string("-") : s.los,
        Cell(s.excess_wait_s, 0), s.headways_measured,
        s.excluded_service_break + s.excluded_coverage_gap, Cell(s.coverage_share, 2),
        s.line_days_not_seen);
  }
  out += "\n";
  out += HeadwayTextLegend();
  out += fmt::format(
      "\n{} departures ({} inferred); tables departures, headways and "
      "headway_summary written\n",
      report.departures, report.inferred_departures);
  for (const auto& [feed_id, c] : report.feed_coverage) {
    std::int64_t blind = 0;
    for (const auto& [from, to] : c.gaps) {
      blind += std::chrono::duration_cast<std::chrono::minutes>(to - from).count();
    }
    out += fmt::format("feed {}: {} covered minutes, {} coverage gaps ({} minutes blind)\n",
                       feed_id, c.covered_minutes, c.gaps.size(), blind);
  }
  for (const auto& c : report.stream_check) {
    out += fmt::format("stream {}: {} rows, batch {}: {} missing from the stream, {} extra\n",
                       c.table, c.stream_rows, c.batch_rows, c.missing, c.extra);
    for (const auto& e : c.examples) {
      out += fmt::format("  {}\n", e);
    }
  }
  if (!report.line_days_not_seen.empty()) {
    std::int64_t planned = 0;
    for (const auto& n : report.line_days_not_seen) {
      planned += n.departures_planned;
    }
    out += fmt::format(
        "{} line-days without any vehicle of the line seen ({} planned departures left out of "
        "plan; --json lists them)\n",
        report.line_days_not_seen.size(), planned);
  }
  if (!report.dates_without_plan.empty()) {
    out += fmt::format("the GTFS plans nothing on {} observed dates (first {}, last {})\n",
                       report.dates_without_plan.size(), report.dates_without_plan.front(),
                       report.dates_without_plan.back());
  }
  return out;
}

}  // namespace frota::batch
