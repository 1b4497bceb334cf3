// `frota headways`: departures, headways and regularity per route, direction, day type and hour
// against the GTFS plan (semantics §7).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
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
  /// A run of at least this many minutes without an accepted position of a feed is a
  /// coverage gap (semantics §7).
  int coverage_gap_minutes = 5;
  /// The distribution's statistics (median, percentiles, shares, cv, excess wait) of a
  /// route, direction, day type and hour need this many measured headways; with fewer,
  /// only the counts are reported (two headways make no coefficient of variation).
  int min_headways = 10;
  /// Also find the departures with trip ids ignored and match them (`--compare-inferred`).
  bool compare_inferred = false;
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
  std::int64_t headways_measured = 0;
  std::int64_t excluded_service_break = 0;
  std::int64_t excluded_coverage_gap = 0;
  std::optional<double> share_under_60s;
  std::int64_t departures_unobserved = 0;  // planned while the feed was blind
  std::int64_t departures_unplanned = 0;   // found outside every service period
  std::int64_t departures_tagged_late = 0;
  std::optional<double> coverage_share;  // covered minutes of planned service
  std::int64_t silent_minutes = 0;       // the route silent, its feed not
  /// Service dates on which the feed watched the route's planned service but the route
  /// delivered no position at all, and their planned departures: neither found nor
  /// missed, so left out of departures_planned and found_ratio.
  std::int64_t line_days_not_seen = 0;
  std::int64_t departures_not_seen = 0;
  /// Of the departures found, those whose trip as a run (regularity::SplitRuns; feeds with
  /// trip ids only) completed its pattern, and those that conformed to Rio's trip
  /// validation (positions on the shape, minutes seen).
  std::int64_t trips_completed = 0;
  std::int64_t trips_conforming = 0;
};

/// `--compare-inferred`: the same positions with trip ids ignored.
struct InferredCheck {
  std::int64_t departures = 0;       // found with trip ids ignored
  std::int64_t matched = 0;          // departures found with trip ids that have one of those
                                     // (same vehicle, within 5 minutes)
  std::int64_t other_direction = 0;  // of the unmatched: matched but in the other direction
};

/// One (route, direction) of the report.
struct RouteHeadways {
  std::string route_id;
  std::string route_short_name;
  int direction_id = -1;
  bool inferred = false;                  // its departures were inferred from geometry
  HeadwayStats all;                       // day type "all", whole day
  std::vector<HeadwayStats> by_hour;      // day type "all", per local hour
  std::vector<HeadwayStats> by_day_type;  // whole day, per day type
  std::optional<InferredCheck> inferred_check;
};

/// Where a feed was blind: its covered minutes and its coverage gaps.
struct FeedCoverage {
  std::int64_t covered_minutes = 0;
  std::vector<std::pair<base::Timestamp, base::Timestamp>> gaps;  // [start, end)
};

/// A table the stream wrote (regularity::Stream, a replay given a GTFS) against its
/// batch recomputation: rows only in one of them, with a few examples.
struct StreamCheck {
  std::string table;  // departures, headways, alerts
  std::int64_t stream_rows = 0;
  std::int64_t batch_rows = 0;
  std::int64_t missing = 0;           // batch rows the stream lacks
  std::int64_t extra = 0;             // stream rows the batch lacks
  std::vector<std::string> examples;  // "missing: (...)", "extra: (...)"
};

/// The rows of `stream_table` against `batch_table` (same columns, no key: a row is
/// missing or extra, by EXCEPT ALL), with up to `examples` of each kind, "missing: (...)"
/// then "extra: (...)". `table` names the check. `frota headways` and `frota reconcile`.
base::Result<StreamCheck> CheckStreamTable(sink::DuckDbConnection& db, std::string table,
                                           std::string_view stream_table,
                                           std::string_view batch_table, std::size_t examples);

/// A route, direction and service date the feed watched without one position of the
/// route (HeadwayStats::line_days_not_seen).
struct LineDayNotSeen {
  std::string route_id;
  std::string route_short_name;
  int direction_id = -1;
  std::string service_date;  // YYYY-MM-DD
  std::string day_type;
  std::int64_t departures_planned = 0;
};

/// What `frota headways` computed.
struct HeadwayReport {
  /// Empty when the database holds no streamed departures, headways or alerts.
  std::vector<StreamCheck> stream_check;
  std::vector<RouteHeadways> routes;
  std::int64_t departures = 0;
  std::int64_t inferred_departures = 0;
  std::vector<std::string> dates_without_plan;     // observed dates on which the GTFS plans nothing
  std::vector<LineDayNotSeen> line_days_not_seen;  // by route, direction, service date
  std::map<std::string, FeedCoverage> feed_coverage;  // by feed id
  std::string time_zone;
  double seconds = 0;
};

/// Finds the departures in the frota database `db` and the trips as runs (FindDepartures),
/// the feeds' coverage
/// gaps and the routes' silences, plans each observed service date from `feed`
/// (gtfs::ServicePlan, day types with holidays) and splits it into service periods,
/// pairs consecutive departures into headways (excluding pairs across a planned break or
/// a coverage gap), writes the tables of sql/headways.sql into `db` (replacing a
/// previous run's, in one transaction), and returns the summary.
base::Result<HeadwayReport> ComputeHeadways(sink::DuckDbConnection& db,
                                            const gtfs::StaticFeed& feed,
                                            const HeadwayOptions& options);

/// The tables ComputeHeadways writes (sql/headways.sql), in the order it writes them.
const std::vector<std::string>& HeadwayTables();

/// The report as the JSON of ../shared/docs/cli.md: `routes` (one per route and direction: the
/// statistics of HeadwayStats with `trips_completed` and `trips_conforming`, `headways_excluded`
/// {service_break, coverage_gap}, `by_hour`, `by_day_type`, and `inferred_check` when asked) and
/// `feed_coverage` (per feed: covered_minutes, gaps as [start, end] local ISO times).
std::string HeadwayJson(const HeadwayReport& report);

/// The report as a table for a terminal, its legend under it.
std::string HeadwayText(const HeadwayReport& report);

/// What each column of HeadwayText means (also `frota headways --help`'s footer).
std::string_view HeadwayTextLegend();

}  // namespace frota::batch
