// `frota reconcile`: every job recomputed in batch SQL from the inputs, then diffed row by row with
// the stream's tables.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "frota/base/status.h"
#include "frota/model/source.h"
#include "frota/runner/replay_runner.h"
#include "frota/sink/duckdb_connection.h"
#include "frota/sink/window.h"
#include "frota/source/replay_source.h"

namespace frota::batch {

/// One row that differs between a stream table and its recomputation.
struct RowDifference {
  std::string
      kind;  // "missing" (the stream lacks it), "extra" (only the stream has it), "different"
  std::string key;         // the row's key columns, as text
  std::string stream_row;  // the stream's other columns; empty when missing
  std::string batch_row;   // the recomputation's; empty when extra
};

/// The comparison of one table (semantics §5 view: partitions summed away).
struct TableComparison {
  std::string table;
  std::int64_t stream_rows = 0;
  std::int64_t batch_rows = 0;
  std::int64_t missing = 0;
  std::int64_t extra = 0;
  std::int64_t different = 0;
  std::vector<RowDifference> examples;  // the first differences in key order

  [[nodiscard]] bool equal() const { return missing == 0 && extra == 0 && different == 0; }
};

/// What `frota reconcile` found.
struct ReconcileReport {
  std::vector<TableComparison> tables;  // in a fixed order: positions, rejected, ...
  bool equal = true;
  std::int64_t records = 0;  // input records recomputed
  int late_rounds = 0;       // rounds of the exact watermark (0: no record could be late)
  std::vector<std::pair<std::string, double>> phase_seconds;  // load, then each SQL file
  std::vector<job::RuleValue> rules;  // the stream database's rules, which the batch used
};

/// The batch recomputation of rules 2-7 and every job (semantics §2-5) in DuckDB SQL
/// (the files in sql/), and its row-by-row comparison with a stream database.
///
/// C++ only loads: each decoded record in arrival order (the merged replay order that
/// decides rule 7), with a dense integer id for its key and, when an area is
/// configured, whether it lies inside (geo::Area::Contains: the point-in-polygon test
/// is the one thing not redone in SQL); the source names; and the terminals of the GTFS
/// routes the feed's route ids resolve to. Everything else, from rule 2 on, is SQL over
/// those rows, in an in-memory database; the stream database is attached read-only.
///
/// Lifecycle: Create(), Add() every record in arrival order, then CompareWith() once.
/// Not thread-safe. `context` and `catalog` must outlive the object.
class BatchRecomputation {
 public:
  struct Options {
    std::size_t examples = 10;  // example differences kept per table
    /// Compute the watermark exactly for every record even when a cheap bound proves
    /// none can be late (tests use it to exercise the exact path).
    bool exact_watermark = false;
    /// DuckDB's memory_limit for the in-memory recomputation ("4GB"); beyond it the
    /// joins, sorts and aggregates spill to a temp folder. Empty: a third of the RAM,
    /// at most 8 GB (DuckDB's own default, 80 % of the RAM, leaves nothing to the rest
    /// of a shared machine).
    std::string memory_limit;
    /// Compare only the rows in this window (local dates in the replay's zone): the
    /// recomputation still runs over every input given, so the state that crosses the
    /// window's first midnight is the one the stream carried (docs/semantics-notes.md).
    sink::DateWindow window;
  };

  static base::Result<std::unique_ptr<BatchRecomputation>> Create(
      const runner::ReplayContext& context, const model::SourceCatalog& catalog, Options options);
  ~BatchRecomputation();
  BatchRecomputation(const BatchRecomputation&) = delete;
  BatchRecomputation& operator=(const BatchRecomputation&) = delete;

  /// Stages one input record; records must come in arrival order.
  base::Status Add(const source::SourceRecord& record);

  /// Runs the SQL and compares every table with the frota database at `stream_db`
  /// (opened read-only; an error when it is not a frota database). With a GTFS in the
  /// context, also the regularity tables (departures, headways, alerts): `frota
  /// headways`' batch computation over the recomputed positions.
  base::Result<ReconcileReport> CompareWith(const std::filesystem::path& stream_db);

  /// The in-memory database with every batch_* table (tests). The staged input rows
  /// and the intermediate steps are dropped once used.
  sink::DuckDbConnection& connection() { return *db_; }

 private:
  BatchRecomputation(const runner::ReplayContext& context, const model::SourceCatalog& catalog,
                     Options options);
  base::Status Flush();
  base::Status LoadSourcesAndTerminals();
  base::Status SetVariables(ReconcileReport& report);
  base::Status RunSqlFile(std::string_view name, std::string_view sql, ReconcileReport& report);
  /// Adds aircraft_positions to the comparison when either side has a row; whether it did.
  base::Result<bool> CompareAircraft();
  /// The window's condition on a date column of the batch side ("TRUE": no window).
  std::string InWindow(const sink::DateColumn& column) const;
  /// The views compare.sql reads the batch side's positions and rejections through,
  /// and the trips duplicate_slots counts, cut to the window.
  base::Status CutBatchToWindow();
  base::Status CompareRegularity(ReconcileReport& report);

  const runner::ReplayContext& context_;
  const model::SourceCatalog& catalog_;
  Options options_;
  std::unique_ptr<sink::DuckDbConnection> db_;
  std::unique_ptr<sink::ChunkAppender> positions_;
  std::unique_ptr<sink::ChunkAppender> rejections_;
  std::unordered_map<std::string, std::int32_t> vehicle_keys_;
  std::unordered_set<std::string> route_ids_;
  std::string key_buffer_;
  std::filesystem::path temp_dir_;
  std::int64_t seq_ = 0;
  double load_seconds_ = 0;
};

/// What `frota reconcile` was asked to compare.
struct ReconcileConfig {
  runner::ReplayConfig replay;  // inputs, --gtfs, --area, --feed-id, --mode, --time-zone
  std::filesystem::path db;     // the stream's DuckDB database
  BatchRecomputation::Options options;
};

/// Loads the context like `frota replay`, reads every input through the project's own
/// decoders in ingest-merge order, recomputes and compares. Errors: unreadable inputs
/// or database (bad input).
base::Result<ReconcileReport> Reconcile(const ReconcileConfig& config);

/// The report as the JSON of ../shared/docs/cli.md: `tables` (name -> {stream_rows, batch_rows,
/// missing, extra, different, examples}), `equal`, plus `records` and `phase_seconds`.
std::string ReconcileJson(const ReconcileReport& report);

/// The report as a table for a terminal, with the example differences under it.
std::string ReconcileText(const ReconcileReport& report);

}  // namespace frota::batch
