// `frota evaluate`: how well the stream's tables recover a simulated day's ground truth.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/gtfs/static_feed.h"

namespace frota::sink {
class DuckDbConnection;
}  // namespace frota::sink

namespace frota::sim {

struct EvaluateOptions {
  std::filesystem::path db;        // a DuckDB database written by `frota replay`
  std::filesystem::path truth;     // the truth.json of `frota simulate`
  double min_stop_s = 360;         // stops scored: true and found ones at least this long
  std::int64_t min_segments = 20;  // speed cells scored: at least this many segments
  /// A found departure (the `departures` table of `frota headways`) matches a true one of
  /// the same bus, route and direction from this much before it to `departure_late_s`
  /// after: §7's departure is the last position within 1,000 m of the terminal, which
  /// lags the pull-out by the minutes the bus takes to get there, or comes before it by
  /// up to the detector's 10-minute exit gap when the feed showed nothing in between.
  double departure_early_s = 600;
  double departure_late_s = 600;
  /// Headways: a line's median found headway is within this share of the true one ...
  double headway_tolerance = 0.05;
  /// ... scored for the lines (route and direction) with at least this many true headways.
  std::int64_t min_headways = 5;
};

struct FaultScore {
  std::int64_t injected = 0;
  /// -1 where frota has no rule that could tell the fault (stale_plan,
  /// headerless_response: `null` in the JSON).
  std::int64_t detected = 0;
  /// Record faults: how many the rules of semantics §2 should refuse, and how many were
  /// refused for exactly the reason the truth expects. -1 where it does not apply.
  std::int64_t expected = -1;
  std::int64_t as_expected = -1;
};

struct Evaluation {
  /// Stops, matched one to one per bus: each true stop with the found stop of the bus
  /// that overlaps it longest (pairs taken by overlap, longest first). A found stop that
  /// overlaps a true stop already matched to another found stop is a `fragment` (one
  /// standstill the rule split, as a terminal's GPS drift does): counted apart, in neither
  /// side of precision. True stops overlapping a feed outage or a silence of their route
  /// are stops the feed could not show: left out of recall and counted apart.
  struct StopScores {
    std::int64_t true_stops = 0;  // visible true stops >= min_stop_s
    std::int64_t recalled = 0;    // of those, matched to a found stop
    std::int64_t found = 0;       // found stops >= min_stop_s
    std::int64_t precise = 0;     // of those, matched to a true stop
    std::int64_t fragments = 0;   // of those, pieces of a true stop matched to another
    double precision = 0;         // precise / (found - fragments)
    double recall = 0;            // recalled / true_stops
  };
  struct Stops : StopScores {
    std::int64_t found_near_terminal = 0;
    /// True stops >= min_stop_s the feed could not show, and how many were found anyway.
    std::int64_t left_out = 0;
    std::int64_t left_out_found = 0;
    /// By place: `terminal`, `depot` or `en_route`; a true stop by the truth's kind and
    /// near_terminal, a found one by the `stops` table's place (near_terminal where the
    /// table has no place).
    std::map<std::string, StopScores> by_place;
  } stops;
  struct Departures {
    /// False when the database has no `departures` table (`frota headways` not run).
    bool computed = false;
    /// True departures the feed could show: those whose matching window
    /// [time - departure_early_s, time + departure_late_s] overlaps no feed outage and
    /// no silence of their route.
    std::int64_t true_departures = 0;
    std::int64_t found = 0;  // of those, matched by a found departure
    double found_ratio = 0;
    /// True departures left out of the ratio (hidden by an outage or a line silence),
    /// and how many of them were found anyway.
    std::int64_t left_out = 0;
    std::int64_t left_out_found = 0;
    /// Of the visible ones, those whose trip id the feed showed from the terminal (not
    /// tagged_late, not never_tagged), and how many of those were found.
    std::int64_t true_reported_at_terminal = 0;
    std::int64_t found_reported_at_terminal = 0;
    std::int64_t found_rows = 0;  // rows of the departures table of the truth's feed
    std::int64_t unmatched_rows = 0;
    double early_s = 0;  // the matching window (EvaluateOptions)
    double late_s = 0;
  } departures;
  struct Speed {
    std::int64_t cells = 0;  // cell-hours with >= min_segments segments and a true speed
    double mae_kmh = 0;
    double bias_kmh = 0;  // mean of found - true
    std::int64_t cells_without_truth = 0;
  } speed;
  /// Per line (route and direction, over the whole day): the median and coefficient of
  /// variation (sd / mean) of the measured headways of the `headways` table (exclusion
  /// NULL) against those of the truth's headways with no exclusion, so that a line with
  /// a planned break or an outage is scored on measured headways only; and its true
  /// departures found. Medians interpolate between order statistics, as DuckDB's
  /// quantile_cont does.
  struct Headways {
    /// False when the database has no `headways` table (`frota headways` not run on it).
    bool computed = false;
    double tolerance = 0;  // EvaluateOptions::headway_tolerance
    struct Line {
      std::string route_id;
      std::string route_short_name;  // from headway_summary; empty when it has no row
      std::int32_t direction_id = -1;
      std::int64_t true_headways = 0;  // with no exclusion
      double true_median_s = 0;
      std::optional<double> true_cv;
      std::int64_t found_departures = 0;  // headway_summary's departures_found
      std::int64_t found_headways = 0;    // measured rows of the headways table
      std::optional<double> found_median_s;
      std::optional<double> found_cv;
      std::int64_t true_departures = 0;      // visible true departures (as Departures)
      std::int64_t matched_departures = 0;   // of those, found
      std::optional<double> relative_error;  // |found - true| / true
      bool within = false;                   // relative_error <= headway_tolerance
    };
    /// Lines with at least min_headways true headways, by route and direction.
    std::vector<Line> lines;
    std::int64_t lines_within = 0;
    double within_share = 0;         // lines_within / lines.size()
    std::int64_t lines_too_few = 0;  // lines with true departures but fewer headways
    /// True headways excluded per reason (service_break, coverage_gap).
    std::map<std::string, std::int64_t> true_excluded;
    /// Every line's headways pooled: the true median, and the found one (over the
    /// `headways` table's measured rows).
    double true_median_s = 0;
    std::optional<double> found_median_s;
    /// The median over the scored lines of their relative error (a line without a found
    /// median counts as an infinite error).
    std::optional<double> median_relative_error;
  } headways;
  /// The `alerts` table (the regularity stream's) against the truth's alerts: a found
  /// alert matches an unmatched true one of the same kind, route and direction whose
  /// start lies within one planned headway of its own (feed_blind: within the 5-minute
  /// coverage gap), nearest first.
  struct Alerts {
    bool computed = false;  // false when the database has no `alerts` table
    double window_s_feed_blind = 300;
    std::int64_t true_alerts = 0;
    std::int64_t found = 0;
    std::int64_t matched = 0;
    double precision = 0;  // matched / found (1 when nothing was found)
    double recall = 0;     // matched / true (1 when nothing was true)
    /// kind -> (true, found, matched)
    std::map<std::string, std::array<std::int64_t, 3>> by_kind;
  } alerts;
  std::map<std::string, FaultScore> faults;
  /// semantics §2: reason -> (expected by the truth, reported in the database).
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> rejections;
  std::pair<std::int64_t, std::int64_t> accepted;
};

/// Whether a trip's first position lies within 1,000 m of the first point of its trip's
/// shape (else of its first stop). False for an unknown trip. Used for the tagged_late
/// fault's detection in the `trips` table.
bool IsDeparture(const gtfs::StaticFeed& feed, const std::string& trip_id, double lat, double lon);

struct Truth;

/// The stop scores alone, from the `stops` table (Evaluation::Stops). Evaluate runs it.
base::Status ScoreStops(sink::DuckDbConnection& db, const Truth& truth,
                        const EvaluateOptions& options, Evaluation::Stops& out);

/// The faults the tables cannot show record by record: feed_outage (a `coverage_gaps` row,
/// else a feed_blind alert, overlapping the outage), line_silent (a `line_silences` row
/// of the route overlapping the silence), never_tagged (a departure of the bus in the
/// matching window inferred from geometry), and every other fault kind of the truth's
/// `faults` with its injected count (detected -1 where no rule could tell it). Evaluate
/// runs it after the record and trip faults.
base::Status ScoreDayFaults(sink::DuckDbConnection& db, const Truth& truth,
                            const EvaluateOptions& options,
                            std::map<std::string, FaultScore>& faults);

/// The departure and headway scores alone, from the `departures` and `headways` tables
/// of `frota headways` (and `headway_summary`'s names and counts where present); each
/// left not `computed` when its table is absent. Evaluate runs it.
base::Status ScoreDeparturesAndHeadways(sink::DuckDbConnection& db, const Truth& truth,
                                        const EvaluateOptions& options, Evaluation& out);

/// Reads the database (read-only) and the truth, and scores stops, departures, speeds,
/// faults and the per-reason counts of semantics §2.
base::Result<Evaluation> Evaluate(const EvaluateOptions& options);

/// The JSON document of `frota evaluate --json` (../shared/docs/cli.md fields, plus details).
std::string EvaluationJson(const Evaluation& evaluation);
/// A human-readable summary.
std::string EvaluationText(const Evaluation& evaluation);

}  // namespace frota::sim
