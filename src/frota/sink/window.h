// A reader's window of local dates (`--from`, `--to`): which rows of each table fall in
// it (docs/tables.md "Dates"), and a frota DuckDB database cut down to those rows.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/base/time_zone.h"
#include "frota/model/tables.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::sink {

/// Local dates in the feed's zone, both ends included; an absent end is open.
struct DateWindow {
  std::optional<base::LocalDate> from;
  std::optional<base::LocalDate> to;

  [[nodiscard]] bool bounded() const { return from.has_value() || to.has_value(); }
  /// "2026-03-02 to 2026-03-04", "2026-03-02", "from 2026-03-02", "up to 2026-03-04",
  /// "every date".
  [[nodiscard]] std::string Describe() const;
};

/// The window of `--from` and `--to` (YYYY-MM-DD, either may be empty); an error naming
/// the flag for a malformed date or a `--from` after `--to`.
base::Result<DateWindow> ParseDateWindow(std::string_view from, std::string_view to);

/// How a table places its rows on a local date: `expression` over its columns, a DATE
/// (the local date itself) or a TIMESTAMP (a UTC instant, on the local date it falls on).
struct DateColumn {
  std::string expression;
  model::ColumnType type = model::ColumnType::kDate;
};

/// The date column of stored table `table` (a table name of either database): the
/// catalog's `date_column` for its tables; `event_time` for positions, duplicates and
/// their DuckDB storage; for rejections, their event time, else their ingest time;
/// for any other table, its `service_date`, else `local_date`, else `start_time`
/// among `columns` (its column names; `frota headways`' tables). Nullopt for a table
/// of no date (dictionaries, bookkeeping, `headway_summary`).
std::optional<DateColumn> TableDateColumn(std::string_view table,
                                          const std::vector<std::string>& columns);

/// An SQL condition, valid in DuckDB and PostgreSQL, true of rows whose `column` lies in
/// `window`, local dates taken in `zone`; "TRUE" for an unbounded window. A timestamp is
/// compared with the UTC instants of the window's local midnights, so the condition
/// prunes by zone maps, BRIN indexes and day partitions.
std::string WindowCondition(const DateColumn& column, const DateWindow& window,
                            const base::TimeZone& zone);

/// What a database holds of a window: the local dates of its raw input (positions,
/// rejections) and of its results (every catalog result table), first and last.
struct HeldDates {
  std::optional<base::LocalDate> first_raw;
  std::optional<base::LocalDate> last_raw;
  std::optional<base::LocalDate> first_result;
  std::optional<base::LocalDate> last_result;
  [[nodiscard]] bool empty() const { return !first_raw && !first_result; }
};

/// A new frota DuckDB database at `path` (a new file; empty: in memory) holding the rows
/// of the frota database `source` that lie in `window`: every table of a date column
/// (TableDateColumn) filtered, every other table copied whole (tables the schema does
/// not define, such as `frota headways`', made as they are in `source`). Readers then
/// work on it unchanged, so their output is that of a database holding only the window.
/// `held` is what the copy holds, `description` what DescribeWindow says of it (the whole
/// of `source` is read for it only when the window starts before the copy's data).
struct WindowCopy {
  std::unique_ptr<DuckDbConnection> db;
  HeldDates held;
  std::string description;
};
base::Result<WindowCopy> CopyDuckDbWindow(const std::filesystem::path& source,
                                          const std::filesystem::path& path,
                                          const DateWindow& window, const base::TimeZone& zone);

/// The dates the frota DuckDB database `database` (a name `db` knows it by: "main", or an
/// attached one) holds.
base::Result<HeldDates> FindHeldDates(DuckDbConnection& db, std::string_view database,
                                      const base::TimeZone& zone);

/// Writes the tables `tables` of `copy` (a window's copy a command computed on) back into
/// the frota DuckDB database at `target`, in one transaction: of a table that places rows
/// on dates (TableDateColumn), only the window's rows are replaced; any other is replaced
/// whole; a table `target` lacks is made as `copy` has it.
base::Status ReplaceDuckDbWindowRows(DuckDbConnection& copy, const std::filesystem::path& target,
                                     const std::vector<std::string>& tables,
                                     const DateWindow& window, const base::TimeZone& zone);

/// What a reader says before its output about a window: nothing for an unbounded one; else
/// which dates it covers, whether it holds no data, and the window's dates before
/// everything `all` holds (gone: retention removed them, or they were never loaded).
std::string DescribeWindow(const DateWindow& window, const HeldDates& in_window,
                           const HeldDates& all);

}  // namespace frota::sink
