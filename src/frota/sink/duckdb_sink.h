// The embedded sink: one DuckDB file holding every table, each epoch one transaction.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "frota/base/status.h"
#include "frota/engine/transactional_sink.h"
#include "frota/model/rows.h"
#include "frota/model/source.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::sink {

/// The schema version this binary writes; older databases are migrated on open.
inline constexpr int kDuckDbSchemaVersion = 1;

/// Writes epochs into a DuckDB database file (semantics.md section 6).
///
/// Open() creates the schema in a new file, migrates an older one, and refuses a file
/// whose schema is newer than this binary or that is not a frota database. Commit()
/// writes the epoch's rows through the bulk appender, then the source progress, the
/// state of every partition, the runner state and a `batches` ledger row, all in one
/// transaction: a crash at any instant leaves the previous epoch as the last one.
/// Not thread-safe.
class DuckDbSink : public engine::TransactionalSink<model::EpochRows> {
 public:
  static base::Result<std::unique_ptr<DuckDbSink>> Open(const std::filesystem::path& path,
                                                        const model::SourceCatalog* catalog,
                                                        std::string run_id);

  base::Result<engine::RecoveredCheckpoint> Recover() override;
  base::Status Commit(const model::EpochRows& rows,
                      const engine::EpochCheckpoint& checkpoint) override;

  /// Moves everything committed from DuckDB's write-ahead log into the database file,
  /// with a DuckDB thread per core: for the end of a replay, when the pipeline no longer
  /// needs them (epochs commit with one thread, see Open). Closing would do the same
  /// work on one thread.
  base::Status CheckpointWithAllCores();

  DuckDbConnection& connection() { return *connection_; }

 private:
  DuckDbSink(std::unique_ptr<DuckDbConnection> connection, const model::SourceCatalog* catalog,
             std::string run_id)
      : connection_(std::move(connection)), catalog_(catalog), run_id_(std::move(run_id)) {}
  base::Status WriteRows(const model::EpochRows& rows);
  base::Status WriteCheckpoint(const model::EpochRows& rows,
                               const engine::EpochCheckpoint& checkpoint);

  std::unique_ptr<DuckDbConnection> connection_;
  const model::SourceCatalog* catalog_;
  std::string run_id_;
};

/// Opens (creating or migrating) a frota DuckDB database without a sink around it: for
/// commands that only read (export, reconcile, headways, dashboard).
base::Result<std::unique_ptr<DuckDbConnection>> OpenFrotaDuckDb(const std::filesystem::path& path,
                                                                bool must_exist);

}  // namespace frota::sink
