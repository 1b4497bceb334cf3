// `frota headways`: departures, headways and regularity per route, direction, day type and hour against the GTFS plan (semantics §7).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/batch/departures.h"
#include "frota/gtfs/static_feed.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::batch {

/// What `frota headways` was asked.
struct HeadwayOptions {
  DepartureOptions departures;
  std::filesystem::path holidays;  // CSV date,name added to the built-in ones; empty: none
  std::string time_zone;           // empty: the GTFS agency's, else America/Sao_Paulo
};

/// One row of `headway_summary`: a route and direction over a day type ("all" or one)
/// and a local hour (-1: the whole day). Optional numbers are absent when there is
/// nothing to measure (no headway, no plan).
struct HeadwayStats {
  std::string day_type;
  int hour = -1;
  std::int64_t service_dates = 0;          // observed service dates of the day type
  std::int64_t planned_service_dates = 0;  // of those, dates with a planned departure
  std::int64_t departures_found = 0;
  std::int64_t departures_planned = 0;
  std::optional<double> found_ratio;
  std::optional<double> median_headway_s;
  std::optional<double> p10_headway_s;
  std::optional<double> p90_headway_s;
  std::optional<double> planned_headway_s;
  std::optional<double> bunching_share;
  std::optional<double> gap_share;
  std::optional<double> cv;
  std::string los;  // TCQSM headway-adherence band of cv; empty without cv
  std::optional<double> excess_wait_s;
};

/// One (route, direction) of the report.
struct RouteHeadways {
  std::string route_id;
  std::string route_short_name;
  int direction_id = -1;
  bool inferred = false;  // its departures were inferred from geometry
  HeadwayStats all;       // day type "all", whole day
  std::vector<HeadwayStats> by_hour;      // day type "all", per local hour
  std::vector<HeadwayStats> by_day_type;  // whole day, per day type
};

/// What `frota headways` computed.
struct HeadwayReport {
  std::vector<RouteHeadways> routes;
  std::int64_t departures = 0;
  std::int64_t inferred_departures = 0;
  std::vector<std::string> dates_without_plan;  // observed dates on which the GTFS plans nothing
  double seconds = 0;
};

/// Finds the departures in the frota database `db` (FindDepartures), plans each observed
/// service date from `feed` (gtfs::ServicePlan, day types with holidays), writes the
/// tables departures, planned_departures, observed_dates, headways, headway_routes and
/// headway_summary into `db` (replacing a previous run's, in one transaction), and
/// returns the summary.
base::Result<HeadwayReport> ComputeHeadways(sink::DuckDbConnection& db,
                                            const gtfs::StaticFeed& feed,
                                            const HeadwayOptions& options);

/// The report as the JSON of docs/cli.md: `routes` (route_id, route_short_name,
/// direction_id, inferred, departures_found, departures_planned, median_headway_s,
/// p10_headway_s, p90_headway_s, planned_headway_s, bunching_share, gap_share, cv, los,
/// excess_wait_s, by_hour), plus service dates, found_ratio and by_day_type.
std::string HeadwayJson(const HeadwayReport& report);

/// The report as a table for a terminal.
std::string HeadwayText(const HeadwayReport& report);

}  // namespace frota::batch
