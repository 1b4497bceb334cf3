// `frota export`: every result table as one sorted file, comparable with diff -r.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::sink {

/// One exported table: its file name and the query (over the views) that gives its rows
/// in a total order of the table's key.
struct ExportTable {
  std::string_view name;
  std::string_view query;
  /// Written only when the query has rows (aircraft_positions: the export of a database
  /// without aircraft has the files it had before that table).
  bool only_with_rows = false;
};

/// The tables a user sees, in export order (bookkeeping tables are left out).
const std::vector<ExportTable>& ExportTables();

enum class ExportFormat { kCsv, kParquet };

struct ExportSummary {
  std::vector<std::pair<std::string, std::int64_t>> rows_per_table;
};

/// Writes DIR/<table>.csv (or .parquet) for every ExportTables() entry.
base::Result<ExportSummary> ExportDuckDb(DuckDbConnection& db, const std::filesystem::path& dir,
                                         ExportFormat format);

}  // namespace frota::sink
