// The embedded sink: one DuckDB file holding every table, each epoch one transaction.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frota/base/status.h"
#include "frota/engine/transactional_sink.h"
#include "frota/model/rows.h"
#include "frota/model/source.h"
#include "frota/sink/duckdb_connection.h"
#include "frota/sink/garages_record.h"
#include "frota/sink/rules_record.h"

namespace frota::sink {

/// The schema version this binary writes; older databases are migrated on open.
inline constexpr int kDuckDbSchemaVersion = 11;

/// The texts of the `strings` table (schema_v2.sql) by id, kept in step with it: ids
/// handed out in a transaction are forgotten again if it rolls back.
class StoredStrings {
 public:
  /// Reads the table.
  base::Status Load(DuckDbConnection& db);
  /// The id of `text`, new ones numbered after the largest stored (written by Flush).
  std::int32_t IdOf(std::string_view text);
  /// Appends the texts numbered since the last Flush, Commit or Rollback to `strings`,
  /// in the connection's open transaction.
  base::Status Flush(DuckDbConnection& db);
  /// The transaction committed: what it added is stored.
  void Commit() {
    added_.clear();
    flushed_ = 0;
  }
  /// The transaction rolled back: forget what it added.
  void Rollback();
  [[nodiscard]] std::size_t size() const { return ids_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::int32_t, Hash, std::equal_to<>> ids_;
  std::vector<std::string> added_;  // ids next_ - added_.size() ... next_ - 1, in order
  std::size_t flushed_ = 0;         // of added_, already appended to the table
  std::int32_t next_ = 1;
};

/// The rows of the `position_labels` table (schema_v3.sql) by their columns, kept in step
/// with it as StoredStrings is with `strings`: labels numbered in a transaction are
/// forgotten if it rolls back.
class StoredLabels {
 public:
  /// A position's label: stored string ids, mode and direction (-1: none).
  struct Label {
    std::int32_t feed_id = 0;
    std::int32_t vehicle_id = 0;
    std::int32_t route_id = 0;
    std::int32_t trip_id = 0;
    std::int32_t trip_start_date = 0;
    std::int32_t trip_start_time = 0;
    std::uint8_t mode = 0;
    std::int8_t direction_id = -1;
    bool operator==(const Label&) const = default;
  };
  /// Reads the table.
  base::Status Load(DuckDbConnection& db);
  /// The id of `label`, new ones numbered after the largest stored (written by Flush).
  std::int32_t IdOf(const Label& label);
  /// Appends the labels numbered since the last Flush, Commit or Rollback, in the
  /// connection's open transaction.
  base::Status Flush(DuckDbConnection& db);
  void Commit() {
    added_.clear();
    flushed_ = 0;
  }
  void Rollback();

 private:
  struct Hash {
    std::size_t operator()(const Label& l) const;
  };
  std::unordered_map<Label, std::int32_t, Hash> ids_;
  std::vector<Label> added_;  // ids next_ - added_.size() ... next_ - 1, in order
  std::size_t flushed_ = 0;
  std::int32_t next_ = 1;
};

/// How the sink uses DuckDB's memory.
struct DuckDbSinkOptions {
  /// DuckDB's memory_limit ("" for DuckDB's default, 80 % of RAM). The sink only
  /// appends, and the cache of the blocks it wrote, never read back, would otherwise
  /// grow with the database (1.1 GB on a 50 M-record day). Under the limit DuckDB evicts
  /// those blocks. What it cannot evict (an epoch's work, and what it keeps until a
  /// checkpoint) must fit: 192 MB held the Rio-scale day (12.2 M records, epochs of 1 M)
  /// but not one 4 times as large, 384 MB one 8 times as large; 512 MB leaves room.
  std::string memory_limit = "512MB";
  /// Between epochs, DuckDB's cache is brought down to this ("" or not below
  /// memory_limit: never) and the limit then set back: an epoch has all of memory_limit
  /// for its work, while the blocks earlier epochs wrote, never read back, do not pile
  /// up to the limit. Best effort: what DuckDB cannot evict (the held memory a later
  /// checkpoint frees) stays, and the limit is set back all the same. On the simulated
  /// Rio day, 64 MB peaked at 388-403 MB against 466-468 MB with 128 MB, in the same
  /// time (three interleaved runs each; 32 MB gained nothing more).
  std::string idle_memory_limit = "64MB";
  /// After a commit, a checkpoint when DuckDB holds more than this outside its block
  /// cache (row-group metadata, indexes, kept until a checkpoint); 0: never.
  std::int64_t checkpoint_held_bytes = 96LL << 20;
  /// The rules this run's results are made with (job::RuleValues), recorded in table
  /// `rules` by the first run into the database; Open refuses a database recorded with
  /// other values (sink::CheckRecordedRules). Empty: neither recorded nor checked.
  RuleRecord rules;
  /// The garages (`--garages`), written to table `garage_edges` in place of what it held
  /// unless it holds them already. Empty: the table is left as it is.
  GarageRecord garages;
};

/// Writes epochs into a DuckDB database file (semantics.md section 6).
///
/// Open() creates the schema in a new file, migrates an older one, and refuses a file
/// whose schema is newer than this binary or that is not a frota database. Write() and
/// Commit() write the epoch's rows through the bulk appender; Commit() then the source
/// progress, the state of every partition, the runner state and a `batches` ledger row,
/// all in the epoch's one transaction: a crash at any instant leaves the previous epoch
/// as the last one.
/// Not thread-safe.
class DuckDbSink : public engine::TransactionalSink<model::EpochRows> {
 public:
  static base::Result<std::unique_ptr<DuckDbSink>> Open(const std::filesystem::path& path,
                                                        const model::SourceCatalog* catalog,
                                                        std::string run_id,
                                                        DuckDbSinkOptions options = {});

  base::Result<engine::RecoveredCheckpoint> Recover() override;
  base::Status Commit(const model::EpochRows& rows,
                      const engine::EpochCheckpoint& checkpoint) override;
  /// Streams: Write appends rows to the open epoch's transaction (begun by the first
  /// Write or by Commit), so a runner never holds an epoch whole.
  [[nodiscard]] bool StreamsRows() const override { return true; }
  base::Status Write(const model::EpochRows& rows) override;

  /// Moves everything committed from DuckDB's write-ahead log into the database file,
  /// with a DuckDB thread per core: for the end of a replay, when the pipeline no longer
  /// needs them (epochs commit with one thread, see Open). Closing would do the same
  /// work on one thread.
  base::Status CheckpointWithAllCores();

  DuckDbConnection& connection() { return *connection_; }

 private:
  DuckDbSink(std::unique_ptr<DuckDbConnection> connection, const model::SourceCatalog* catalog,
             std::string run_id, DuckDbSinkOptions options)
      : connection_(std::move(connection)),
        catalog_(catalog),
        run_id_(std::move(run_id)),
        options_(std::move(options)) {}
  base::Status CheckpointIfHeld(std::int64_t epoch);
  // After a commit: CheckpointIfHeld, then DuckDB's cache down to idle_memory_limit and
  // memory_limit back.
  base::Status BetweenEpochs(std::int64_t epoch);
  base::Status BeginEpoch();
  // Appends rows of a catalog table (model/tables.h) through the epoch's appender of it.
  template <typename Row>
  base::Status AppendCatalogRows(const std::vector<Row>& rows);
  /// The open epoch's appender to `table` (created on first use, kept until the epoch
  /// ends, so that its rows reach DuckDB in row groups, not in pieces per Write).
  base::Result<ChunkAppender*> EpochAppender(std::string_view table,
                                             std::vector<ColumnType> columns);
  base::Status CloseAppenders();
  base::Error AbortEpoch(const base::Error& error);
  base::Status WriteInEpoch(const model::EpochRows& rows);
  base::Status WriteRows(const model::EpochRows& rows);
  /// A catalog table's rows: appended, or kept for WriteUpserts (model::UpsertedTable).
  template <typename Row>
  base::Status WriteTableRows(const std::vector<Row>& rows);
  /// The epoch's last row of each key of every upserted table, replacing stored rows.
  base::Status WriteUpserts();
  base::Status WriteSilver(const model::EpochRows& rows);
  base::Status WriteCheckpoint(const engine::EpochCheckpoint& checkpoint);
  /// Retention, in the epoch's transaction: deletes the rows placed before the cuts;
  /// the number of rows deleted.
  base::Result<std::int64_t> RemoveBefore(const engine::Retention& retention);
  /// The stored id of a dictionary id of `rows.strings`, of a source (catalog id).
  std::int32_t StringId(const model::StringDictionary& strings, std::uint32_t id);
  std::int32_t SourceStringId(model::SourceId id);
  /// The stored label of `p` (position_labels), through the label its vehicle had last.
  std::int32_t LabelId(const model::StringDictionary& strings, const model::PositionRecord& p);
  /// Forgets the ids looked up through `dictionary_` (another dictionary, or a rollback
  /// that forgot the stored ids they led to).
  void ForgetLookups();

  std::unique_ptr<DuckDbConnection> connection_;
  const model::SourceCatalog* catalog_;
  std::string run_id_;
  DuckDbSinkOptions options_;
  StoredStrings stored_;
  StoredLabels labels_;
  // The open epoch: its transaction, what it wrote (for the ledger row), or why it failed.
  bool in_epoch_ = false;
  struct EpochCounts {
    std::int64_t positions = 0;
    std::int64_t rejected = 0;
    std::int64_t rows = 0;
  };
  EpochCounts epoch_counts_;
  std::vector<std::pair<std::string, std::unique_ptr<ChunkAppender>>> appenders_;
  // Upserted tables (alerts): this epoch's last row of each key, written at commit.
  template <typename Row>
  using LastRowByKey = std::map<std::string, Row, std::less<>>;
  model::SelectTables<model::IsUpsertedTable, LastRowByKey, model::CatalogRowTypes>::type
      epoch_upserts_;
  std::optional<base::Error> failed_epoch_;
  // Stored id + 1 by dictionary id (0: not looked up yet), for `dictionary_`; and by
  // source id. Cleared when a commit rolls back, as the ids it added are forgotten.
  const model::StringDictionary* dictionary_ = nullptr;
  std::vector<std::int32_t> by_dictionary_id_;
  std::vector<std::int32_t> by_source_id_;
  // Per vehicle (by the dictionary's KeyOrdinal of its id), the dictionary ids of its last
  // position's label and that label's stored id + 1 (0: none yet): a vehicle keeps its
  // label for a whole trip, so most positions find theirs here without hashing.
  struct RecentLabel {
    std::uint32_t feed_id = 0;
    std::uint32_t route_id = 0;
    std::uint32_t trip_id = 0;
    std::uint32_t trip_start_date = 0;
    std::uint32_t trip_start_time = 0;
    model::Mode mode = model::Mode::kOther;
    std::int8_t direction_id = -1;
    std::int32_t label = 0;
  };
  std::vector<RecentLabel> recent_labels_;
  // Each source's (partition, next offset) as the database holds it: read by Recover,
  // updated after each COMMIT. WriteCheckpoint writes only the sources that differ
  // (one statement per source cost half a second per epoch).
  std::unordered_map<std::string, std::pair<std::int32_t, std::int64_t>> progress_in_db_;
};

/// Adds silver rows given as text, in the connection's open transaction (or its own):
/// `fill` inserts them into positions_text and rejected_text, created empty with the
/// columns of the views `positions` and `rejected`; their strings are then numbered and
/// the rows moved into positions_data and rejected_data (silver_from_text.sql). For
/// tests and tools that have rows as text; the sink writes ids directly.
base::Status AddSilverText(DuckDbConnection& db, const std::function<base::Status()>& fill);

/// Opens (creating or migrating) a frota DuckDB database without a sink around it: for
/// commands that only read (export, reconcile, headways, dashboard).
base::Result<std::unique_ptr<DuckDbConnection>> OpenFrotaDuckDb(const std::filesystem::path& path,
                                                                bool must_exist);

}  // namespace frota::sink
