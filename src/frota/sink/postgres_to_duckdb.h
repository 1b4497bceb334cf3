// Readers of a PostgreSQL sink: its result tables copied into a DuckDB database, one call.
//
// For every command that reads results (export, reconcile, headways, dashboard,
// evaluate): `--postgres DSN` is
//
//     FROTA_ASSIGN_OR_RETURN(auto db, sink::CopyPostgresToDuckDb(dsn));
//     ... the command's existing DuckDB code on *db ...
//
// where the `--db FILE` path calls sink::OpenFrotaDuckDb(file, true). The copy holds the
// same tables (schema_v1.sql) and views (views_v1.sql) as an embedded database, so every
// query, and every exported byte, is the same as for a DuckDB file with the same rows.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time_zone.h"
#include "frota/sink/duckdb_connection.h"
#include "frota/sink/window.h"

namespace frota::sink {

struct PostgresCopySummary {
  std::vector<std::pair<std::string, std::int64_t>> rows_per_table;
};

/// Copies the result tables of the frota database at `dsn` (positions, rejected,
/// speed_cells, speed_lines, fleet_hours, stops, trips, quality, quality_latency; not the
/// bookkeeping), and every other base table of its schema that an embedded database does
/// not define (those other commands wrote there, such as `frota headways`' tables, with
/// PostgreSQL's column types), into a new DuckDB database: in memory when `scratch` is empty, else
/// a new file at `scratch` (for copies larger than memory). All tables are read in one REPEATABLE
/// READ transaction: a consistent snapshot even while consumers commit. Binary COPY both ways:
/// doubles, reals and timestamps arrive bit for bit. The PostgreSQL database must have frota's
/// schema (not newer than this binary); a password in the DSN never appears in an error.
/// Only the rows in `window` are copied (local dates in `zone`; sink/window.h), each
/// table filtered by its date column, which PostgreSQL prunes to the window's day
/// partitions: the copy costs the window, not the history.
base::Result<std::unique_ptr<DuckDbConnection>> CopyPostgresToDuckDb(
    const std::string& dsn, const std::filesystem::path& scratch = {},
    PostgresCopySummary* summary = nullptr, const DateWindow& window = {},
    const base::TimeZone& zone = base::TimeZone::Utc());

/// Replaces the tables `tables` of the frota database at `dsn` by the DuckDB tables of
/// the same names in `duck`, every row copied by column name, all in one transaction: a
/// reader sees the old tables or the new ones. A table of frota's schema (one
/// CopyPostgresToDuckDb copies, such as departures, headways and alerts) keeps its
/// definition and key and has its rows replaced; any other is dropped and created anew,
/// with PostgreSQL's types for DuckDB's. For commands that compute on a copy (CopyPostgresToDuckDb)
/// and keep what they computed beside the results, as `frota headways --postgres` does.
/// With a bounded `window` (local dates in `zone`), only the window's rows of a table
/// that places rows on dates (sink/window.h TableDateColumn) are replaced; a table
/// without dates is replaced whole.
base::Status ReplacePostgresTables(DuckDbConnection& duck, const std::string& dsn,
                                   const std::vector<std::string>& tables,
                                   const DateWindow& window = {},
                                   const base::TimeZone& zone = base::TimeZone::Utc());

}  // namespace frota::sink
