// The scale-out sink: PostgreSQL, each epoch one transaction with fenced source progress.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "frota/base/status.h"
#include "frota/engine/partitioned_sink.h"
#include "frota/engine/transactional_sink.h"
#include "frota/model/rows.h"
#include "frota/model/source.h"
#include "frota/sink/pg_connection.h"
#include "frota/sink/rules_record.h"

namespace frota::sink {

/// The PostgreSQL schema version this binary writes; older databases are migrated.
inline constexpr int kPostgresSchemaVersion = 10;

/// Creates the schema in an empty database, migrates an older one, recreates missing
/// views, and refuses a database whose schema is newer than this binary or that holds
/// other tables but no `frota_schema`. Safe when several processes open one database at
/// once (an advisory lock serialises them).
base::Status EnsurePostgresSchema(PgConnection& db);
/// For readers: the same refusals, and a database without frota's schema is an error
/// instead of being created.
base::Status CheckPostgresSchema(PgConnection& db);

struct PostgresSinkOptions {
  std::string dsn;  // libpq DSN or URI; empty fields come from PG* variables
  std::string run_id;
  /// How long an unreachable server is waited for (retrying with backoff, logging each
  /// attempt) before a commit or a recovery gives up.
  std::chrono::seconds unavailable_wait{600};
  /// The rules this run's results are made with (job::RuleValues), recorded in table
  /// `rules` by the first writer; Open refuses a database recorded with other values
  /// (sink::CheckRecordedRules). Empty: neither recorded nor checked.
  RuleRecord rules;
  /// Fault injection for the crash and fault tests (`frota run --fault
  /// pg-pause-before-commit-ms=N`, docs/scale-out.md "Test hooks"): when positive, step 4
  /// waits this long (real time: it gives a test the window to SIGKILL the process)
  /// after printing "test hook: rows copied, pausing before COMMIT epoch=E" on stderr.
  std::chrono::milliseconds pause_before_commit{0};
};

/// Writes epochs into PostgreSQL (semantics.md section 6).
///
/// Commit (embedded replay, engine::TransactionalSink) and CommitPartitions (Kafka,
/// engine::PartitionedSink) run ONE transaction:
///   1. BEGIN; lock the source_progress rows of the epoch's sources (sorted, FOR UPDATE)
///      and compare their `generation` with the one this sink last saw; any difference:
///      ROLLBACK, kFenced (the embedded replay reports it as an error: another process
///      wrote to this database);
///   2. COPY (binary) the epoch's rows into session temp tables (ON COMMIT DELETE ROWS)
///      and `rejected` (append-only, no natural key). Positions, the bulk of every epoch,
///      are new rows in all but unusual runs (rule 5 keeps one per key and event time,
///      and the fence keeps an epoch from landing twice), so they are copied straight
///      into `positions` under a savepoint; only if a key is already there (unique
///      violation) is the savepoint rolled back and the rows copied into their temp
///      table, to be upserted in step 3 like the others. Either way `positions` ends as
///      the upsert would leave it;
///   3. in one pipeline: INSERT ... SELECT ... ON CONFLICT (natural key) DO UPDATE from
///      each temp table (positions, stops, trips overwrite; aggregates ADD, grouped first
///      so one statement never touches a key twice), the progress rows with generation +
///      1, the state rows, the runner state, the `batches` ledger row;
///   4. COMMIT.
/// Every crash case:
///   - before COMMIT reaches the server (a crash, a kill, the server down): nothing of the
///     epoch exists; the process (or the partition's next owner) restarts from the
///     previous commit and produces the same rows again;
///   - the connection breaks while COMMIT is in flight: the outcome is unknown; after
///     reconnecting, the ledger row (run_id, epoch) says whether it committed, and the
///     epoch is either taken as committed or retried;
///   - an unreachable server: every step retries on a new connection with backoff for
///     `unavailable_wait`, logging each attempt, keeping the epoch; then it fails;
///   - another process committed one of the partitions meanwhile: fenced, nothing written.
///
/// Fault injection: PostgresSinkOptions::pause_before_commit makes step 4 wait, so that a
/// test can SIGKILL the process between COPY and COMMIT.
///
/// Not thread-safe: one thread at a time (the runners hand it over through a mutex).
class PostgresSink : public engine::TransactionalSink<model::EpochRows>,
                     public engine::PartitionedSink<model::EpochRows> {
 public:
  static base::Result<std::unique_ptr<PostgresSink>> Open(PostgresSinkOptions options,
                                                          const model::SourceCatalog* catalog);

  // Embedded replay: stream '' (its sources are input files).
  base::Result<engine::RecoveredCheckpoint> Recover() override;
  base::Status Commit(const model::EpochRows& rows,
                      const engine::EpochCheckpoint& checkpoint) override;

  // Kafka: stream = topic; sources are "topic/partition".
  base::Result<std::vector<engine::PartitionCheckpoint>> Acquire(
      std::string_view stream, const std::vector<base::PartitionId>& partitions) override;
  void Release(const std::vector<base::PartitionId>& partitions) override;
  base::Result<engine::CommitOutcome> CommitPartitions(
      const model::EpochRows& rows, const engine::PartitionedEpoch& epoch) override;
  base::Result<std::int64_t> FinishedPartitions(std::string_view stream) override;

  /// The source name of a Kafka partition: "topic/partition".
  static std::string PartitionSource(std::string_view stream, base::PartitionId partition);

  [[nodiscard]] const std::string& description() const { return description_; }

 private:
  struct Transaction;  // what one epoch writes besides the rows
  PostgresSink(PostgresSinkOptions options, const model::SourceCatalog* catalog);

  // Runs `attempt` on a live connection, reconnecting and retrying while the server is
  // unavailable, for at most unavailable_wait.
  template <typename T, typename F>
  base::Result<T> WithRetry(std::string_view what, F&& attempt);
  base::Status Connect();
  // Records or checks options_.rules (table `rules`) on the live connection.
  base::Status RecordRules();
  base::Result<engine::CommitOutcome> CommitOnce(const model::EpochRows& rows,
                                                 const Transaction& tx);
  base::Result<engine::CommitOutcome> CommitWithRetry(const model::EpochRows& rows,
                                                      const Transaction& tx);
  // Step 2; sets `merge_positions` when the positions went to their temp table (some
  // were already in `positions`) and need the upsert of step 3.
  base::Status CopyRows(const model::EpochRows& rows, bool& merge_positions,
                        std::vector<bool>& copied);
  // Positions straight into their table, or into tmp_positions (merge_positions) when a
  // key is already present; `source_name` names each row's source.
  base::Status CopyPositions(const model::EpochRows& rows,
                             const std::function<std::string_view(model::SourceId)>& source_name,
                             bool& merge_positions);
  base::Status CopyRejected(const model::EpochRows& rows,
                            const std::function<std::string_view(model::SourceId)>& source_name);

  // The day partitions the epoch's rows need (positions, rejected, collector_polls,
  // duplicate_counts: postgres_schema_v9.sql), made where missing in a transaction of
  // their own under an advisory lock, before the epoch's.
  base::Status EnsureDayPartitions(const model::EpochRows& rows);
  // Retention after a committed epoch, in a transaction of its own: day partitions
  // wholly before a cut dropped, the rest of the rows before it deleted (idempotent: a
  // crash leaves it undone or done, and the next epoch's cut redoes what is left).
  base::Status RemoveBefore(const engine::Retention& retention);

  PostgresSinkOptions options_;
  const model::SourceCatalog* catalog_;
  // Day partitions known to exist: (parent table, day).
  std::set<std::pair<std::string, std::int32_t>> day_partitions_;
  std::string description_;
  std::unique_ptr<PgConnection> db_;
  /// The committed generation of every source this sink has recovered, acquired or
  /// committed (0: no row yet): the fence of step 1.
  std::map<std::string, std::int64_t> generations_;
  std::string stream_;  // the stream Acquire() was called for
};

}  // namespace frota::sink
