#include "frota/batch/headways.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "frota/base/time_zone.h"
#include "frota/gtfs/holidays.h"
#include "frota/gtfs/route_resolver.h"
#include "frota/gtfs/service_day.h"

namespace frota::batch::sql {
extern const std::string_view kHeadwaysSql;
}  // namespace frota::batch::sql

namespace frota::batch {

namespace {

using sink::ColumnType;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kDefaultZone = "America/Sao_Paulo";
// headways.sql: table definitions, then this marker, then the statistics.
constexpr std::string_view kStatisticsMarker = "-- @statistics:";

struct HourKey {
  std::int32_t days;
  int hour;
  auto operator<=>(const HourKey&) const = default;
};

HourKey KeyOf(const base::LocalHour& h) { return {base::DaysSinceEpoch(h.date), h.hour}; }

void SetOptionalDirection(sink::ChunkAppender& a, std::size_t column, int direction_id) {
  direction_id >= 0 ? a.SetInt8(column, static_cast<std::int8_t>(direction_id)) : a.SetNull(column);
}

void SetOptionalDouble(sink::ChunkAppender& a, std::size_t column, std::optional<double> v) {
  v ? a.SetDouble(column, *v) : a.SetNull(column);
}

std::optional<double> OptionalDouble(sink::DuckDbResult& r, std::size_t row, std::size_t column) {
  if (r.IsNull(row, column)) {
    return std::nullopt;
  }
  return r.Double(row, column);
}

// Plans by service date, computed once each.
class PlanCache {
 public:
  PlanCache(const gtfs::StaticFeed& feed, const gtfs::HolidayCalendar& holidays)
      : feed_(feed), holidays_(holidays) {}
  const gtfs::ServicePlan& For(base::LocalDate date) {
    auto it = plans_.find(date);
    if (it == plans_.end()) {
      it = plans_.emplace(date, gtfs::ServicePlan::For(feed_, date,
                                                        gtfs::DayTypeOf(date, holidays_)))
               .first;
    }
    return it->second;
  }

 private:
  const gtfs::StaticFeed& feed_;
  const gtfs::HolidayCalendar& holidays_;
  std::map<base::LocalDate, gtfs::ServicePlan> plans_;
};

}  // namespace

base::Result<HeadwayReport> ComputeHeadways(sink::DuckDbConnection& db,
                                            const gtfs::StaticFeed& feed,
                                            const HeadwayOptions& options) {
  const auto started = Clock::now();
  std::string zone_name = options.time_zone;
  if (zone_name.empty()) {
    zone_name = feed.time_zone().empty() ? std::string(kDefaultZone)
                                         : std::string(feed.time_zone());
  }
  FROTA_ASSIGN_OR_RETURN(const auto zone, base::TimeZone::Load(zone_name));
  gtfs::HolidayCalendar holidays = gtfs::HolidayCalendar::ForTimeZone(zone_name);
  if (!options.holidays.empty()) {
    FROTA_RETURN_IF_ERROR(holidays.AddFile(options.holidays));
  }
  const gtfs::RouteResolver resolver(feed);
  FROTA_ASSIGN_OR_RETURN(auto departures,
                         FindDepartures(db, feed, resolver, zone, options.departures));

  // The hours the feed was observed in: plans count only there, so an outage or the
  // partial first and last day of a capture is not counted as missed service.
  std::set<HourKey> observed_hours;
  std::set<base::LocalDate> observed_dates;
  {
    FROTA_ASSIGN_OR_RETURN(auto rows, db.Query("SELECT DISTINCT local_date, hour FROM "
                                               "quality_hours WHERE accepted > 0"));
    for (std::size_t i = 0; i < rows.rows(); ++i) {
      observed_hours.insert({rows.DateDays(i, 0), static_cast<int>(rows.Int64(i, 1))});
      observed_dates.insert(base::LocalDateFromDays(rows.DateDays(i, 0)));
    }
  }
  // The GTFS routes the feed serves: its route names resolved, and the departures'.
  std::set<std::string> served;
  {
    FROTA_ASSIGN_OR_RETURN(
        auto rows, db.Query("SELECT DISTINCT route_id FROM positions WHERE route_id <> ''"));
    for (std::size_t i = 0; i < rows.rows(); ++i) {
      if (const gtfs::Route* route = resolver.Find(rows.String(i, 0))) {
        served.insert(route->id);
      }
    }
    for (const auto& d : departures) {
      served.insert(d.route_id);
    }
  }

  PlanCache plans(feed, holidays);
  HeadwayReport report;
  FROTA_RETURN_IF_ERROR(db.Execute("BEGIN TRANSACTION"));
  auto write = [&]() -> base::Status {
    const auto marker = sql::kHeadwaysSql.find(kStatisticsMarker);
    if (marker == std::string_view::npos) {
      return base::Internal("headways.sql has no statistics marker");
    }
    FROTA_RETURN_IF_ERROR(db.Execute(sql::kHeadwaysSql.substr(0, marker)));
    FROTA_RETURN_IF_ERROR(db.Execute(
        "DELETE FROM departures; DELETE FROM planned_departures; DELETE FROM observed_dates; "
        "DELETE FROM headways; DELETE FROM headway_routes;"));
    {
      FROTA_ASSIGN_OR_RETURN(
          auto a, sink::ChunkAppender::Create(
                      db, "departures",
                      {ColumnType::kVarchar, ColumnType::kVarchar, ColumnType::kVarchar,
                       ColumnType::kVarchar, ColumnType::kTinyint, ColumnType::kVarchar,
                       ColumnType::kVarchar, ColumnType::kDate, ColumnType::kTimestamp,
                       ColumnType::kBoolean, ColumnType::kDouble}));
      for (const auto& d : departures) {
        a->SetString(0, d.feed_id);
        a->SetString(1, d.vehicle_id);
        a->SetString(2, d.feed_route_id);
        a->SetString(3, d.route_id);
        SetOptionalDirection(*a, 4, d.direction_id);
        a->SetString(5, d.trip_id);
        a->SetString(6, d.shape_id);
        a->SetDateDays(7, base::DaysSinceEpoch(d.service_date));
        a->SetTimestampMicros(8, base::ToUnixMicros(d.departure_time));
        a->SetBool(9, d.inferred);
        a->SetDouble(10, d.distance_m);
        FROTA_RETURN_IF_ERROR(a->EndRow());
        ++report.departures;
        report.inferred_departures += d.inferred ? 1 : 0;
      }
      FROTA_RETURN_IF_ERROR(a->Close());
    }
    {
      FROTA_ASSIGN_OR_RETURN(auto a, sink::ChunkAppender::Create(
                                         db, "observed_dates",
                                         {ColumnType::kDate, ColumnType::kVarchar,
                                          ColumnType::kVarchar}));
      for (const auto date : observed_dates) {
        const auto holiday = holidays.Find(date);
        a->SetDateDays(0, base::DaysSinceEpoch(date));
        a->SetString(1, gtfs::DayTypeName(gtfs::DayTypeOf(date, holidays)));
        holiday ? a->SetString(2, holiday->name) : a->SetNull(2);
        FROTA_RETURN_IF_ERROR(a->EndRow());
      }
      FROTA_RETURN_IF_ERROR(a->Close());
    }
    {
      FROTA_ASSIGN_OR_RETURN(
          auto a, sink::ChunkAppender::Create(
                      db, "planned_departures",
                      {ColumnType::kVarchar, ColumnType::kTinyint, ColumnType::kDate,
                       ColumnType::kVarchar, ColumnType::kTimestamp, ColumnType::kDate,
                       ColumnType::kTinyint}));
      for (const auto date : observed_dates) {
        const gtfs::ServicePlan& plan = plans.For(date);
        const base::Timestamp day_start = gtfs::ServiceDayStart(zone, date);
        bool any = false;
        for (const auto& [key, route] : plan.routes()) {
          if (!served.contains(key.first)) {
            continue;
          }
          for (const std::int32_t s : route.departures()) {
            const base::Timestamp t = day_start + std::chrono::seconds(s);
            const base::LocalHour hour = zone.ToLocalHour(t);
            if (!observed_hours.contains(KeyOf(hour))) {
              continue;
            }
            any = true;
            a->SetString(0, key.first);
            SetOptionalDirection(*a, 1, key.second);
            a->SetDateDays(2, base::DaysSinceEpoch(date));
            a->SetString(3, gtfs::DayTypeName(plan.day_type()));
            a->SetTimestampMicros(4, base::ToUnixMicros(t));
            a->SetDateDays(5, base::DaysSinceEpoch(hour.date));
            a->SetInt8(6, hour.hour);
            FROTA_RETURN_IF_ERROR(a->EndRow());
          }
        }
        if (!any) {
          report.dates_without_plan.push_back(base::FormatDate(date));
        }
      }
      FROTA_RETURN_IF_ERROR(a->Close());
    }
    {
      FROTA_ASSIGN_OR_RETURN(
          auto a, sink::ChunkAppender::Create(
                      db, "headways",
                      {ColumnType::kVarchar, ColumnType::kTinyint, ColumnType::kDate,
                       ColumnType::kVarchar, ColumnType::kTimestamp, ColumnType::kDate,
                       ColumnType::kTinyint, ColumnType::kVarchar, ColumnType::kBoolean,
                       ColumnType::kDouble, ColumnType::kDouble}));
      // Departures come sorted by route, direction and time; a service date's first
      // departure has no headway.
      std::map<std::tuple<std::string, int, base::LocalDate>, base::Timestamp> previous;
      for (const auto& d : departures) {
        const gtfs::ServicePlan& plan = plans.For(d.service_date);
        const auto key = std::make_tuple(d.route_id, d.direction_id, d.service_date);
        std::optional<double> headway;
        if (const auto it = previous.find(key); it != previous.end()) {
          headway = std::chrono::duration<double>(d.departure_time - it->second).count();
        }
        previous[key] = d.departure_time;
        std::optional<double> planned;
        if (const gtfs::RoutePlan* route = plan.Find(d.route_id, d.direction_id)) {
          const auto offset = std::chrono::floor<std::chrono::seconds>(
              d.departure_time - gtfs::ServiceDayStart(zone, d.service_date));
          planned = route->HeadwayAt(static_cast<std::int32_t>(offset.count()));
        }
        const base::LocalHour hour = zone.ToLocalHour(d.departure_time);
        a->SetString(0, d.route_id);
        SetOptionalDirection(*a, 1, d.direction_id);
        a->SetDateDays(2, base::DaysSinceEpoch(d.service_date));
        a->SetString(3, gtfs::DayTypeName(plan.day_type()));
        a->SetTimestampMicros(4, base::ToUnixMicros(d.departure_time));
        a->SetDateDays(5, base::DaysSinceEpoch(hour.date));
        a->SetInt8(6, hour.hour);
        a->SetString(7, d.vehicle_id);
        a->SetBool(8, d.inferred);
        SetOptionalDouble(*a, 9, headway);
        SetOptionalDouble(*a, 10, planned);
        FROTA_RETURN_IF_ERROR(a->EndRow());
      }
      FROTA_RETURN_IF_ERROR(a->Close());
    }
    {
      FROTA_ASSIGN_OR_RETURN(auto a, sink::ChunkAppender::Create(
                                         db, "headway_routes",
                                         {ColumnType::kVarchar, ColumnType::kVarchar}));
      for (const auto& route_id : served) {
        const gtfs::Route* route = feed.FindRoute(route_id);
        a->SetString(0, route_id);
        a->SetString(1, route != nullptr ? route->short_name : std::string());
        FROTA_RETURN_IF_ERROR(a->EndRow());
      }
      FROTA_RETURN_IF_ERROR(a->Close());
    }
    return db.Execute(sql::kHeadwaysSql.substr(marker));
  };
  if (const auto status = write(); !status.ok()) {
    (void)db.Execute("ROLLBACK");
    return status.error().WithContext("writing the headway tables");
  }
  FROTA_RETURN_IF_ERROR(db.Execute("COMMIT"));

  FROTA_ASSIGN_OR_RETURN(
      auto rows,
      db.Query("SELECT route_id, route_short_name, direction_id, inferred, day_type, hour, "
               "service_dates, planned_service_dates, departures_found, departures_planned, "
               "found_ratio, median_headway_s, p10_headway_s, p90_headway_s, "
               "planned_headway_s, bunching_share, gap_share, cv, los, excess_wait_s "
               "FROM headway_summary ORDER BY route_short_name, route_id, direction_id, "
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
    j["direction_id"] = r.direction_id >= 0 ? nlohmann::ordered_json(r.direction_id)
                                            : nlohmann::ordered_json();
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
    routes.push_back(std::move(j));
  }
  nlohmann::ordered_json out;
  out["routes"] = std::move(routes);
  out["departures"] = report.departures;
  out["inferred_departures"] = report.inferred_departures;
  out["dates_without_plan"] = report.dates_without_plan;
  return out.dump(2);
}

std::string HeadwayText(const HeadwayReport& report) {
  std::string out = fmt::format(
      "{:<8} {:>3} {:>8} {:>6} {:>6} {:>7} {:>8} {:>8} {:>6} {:>6} {:>6} {:>3} {:>7}\n", "route",
      "dir", "inferred", "found", "plan", "ratio", "median_h", "plan_h", "bunch", "gap", "cv",
      "los", "ewt_s");
  for (const auto& r : report.routes) {
    const auto& s = r.all;
    out += fmt::format(
        "{:<8} {:>3} {:>8} {:>6} {:>6} {:>7} {:>8} {:>8} {:>6} {:>6} {:>6} {:>3} {:>7}\n",
        r.route_short_name.empty() ? r.route_id : r.route_short_name,
        r.direction_id >= 0 ? std::to_string(r.direction_id) : std::string("-"),
        r.inferred ? "yes" : "no", s.departures_found, s.departures_planned,
        Cell(s.found_ratio, 2), Cell(s.median_headway_s, 0), Cell(s.planned_headway_s, 0),
        Cell(s.bunching_share, 2), Cell(s.gap_share, 2), Cell(s.cv, 2),
        s.los.empty() ? std::string("-") : s.los, Cell(s.excess_wait_s, 0));
  }
  out += fmt::format("\n{} departures ({} inferred); tables departures, headways and "
                     "headway_summary written\n",
                     report.departures, report.inferred_departures);
  if (!report.dates_without_plan.empty()) {
    out += fmt::format("the GTFS plans nothing on {} observed dates (first {}, last {})\n",
                       report.dates_without_plan.size(), report.dates_without_plan.front(),
                       report.dates_without_plan.back());
  }
  return out;
}

}  // namespace frota::batch
