// The catalog of output tables: each table's name, columns (name, type, nullability), key
// and semantics.md section, with its row type and how a row gives its values.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/time.h"
#include "frota/model/mode.h"

namespace frota::model {

/// A column's type, as both databases have it (sink/table_sql.h spells it per dialect).
enum class ColumnType : std::uint8_t {
  kText,
  kBigint,
  kInteger,
  kSmallint,
  kTinyint,
  kDouble,
  kBoolean,
  kDate,
  kTimestamp,
};

/// One column. A `derived` column is not stored: the table's read view computes it from
/// the stored ones (sink/sql/views_v1.sql), and export and reconcile read it there.
struct Column {
  std::string_view name;
  ColumnType type;
  bool nullable = false;
  bool key = false;
  bool derived = false;
};

/// A table of the catalog. `view` is what readers (export, reconcile, the dashboard) read:
/// the table itself, or a view over it with its derived columns. Export sorts by the key.
struct TableSpec {
  std::string_view name;
  std::string_view view;
  std::string_view semantics;  // the section of ../shared/docs/semantics.md
  std::span<const Column> columns;
};

/// `Table<Row>` is the catalog entry of the table whose rows are `Row`: `kSpec`, and
/// `Write(row, out)`, which hands `out` the value of each stored column in order, through
/// `out.Text(std::string_view)`, `Int64`, `Int32`, `Int16`, `Int8`, `Double`, `Bool`,
/// `Date(base::LocalDate)`, `Timestamp(base::Timestamp)` and `Null()`. The sinks' appender
/// and COPY writer are such `out`s (model_test.cc checks each Write against its columns).
///
/// Adding a table: its row struct and its `Table<Row>` here, its name in `CatalogTables()`
/// (tables.cc); then a migration creating it (sink/README.md says how), and its rows in
/// `EpochRows` (rows.h) for the sinks to write.
template <typename Row>
struct Table;

/// stops: a vehicle standing within 50 m of an anchor for at least 300 s.
struct StopRow {
  std::string feed_id;
  std::string vehicle_id;
  base::Timestamp start_time;
  Mode mode = Mode::kOther;
  std::string route_id;
  base::Timestamp end_time;
  double anchor_lat = 0;
  double anchor_lon = 0;
  std::int64_t positions = 0;
  std::optional<bool> near_terminal;  // null when the route is not in the static GTFS
};

template <>
struct Table<StopRow> {
  static constexpr Column kColumns[] = {
      {"feed_id", ColumnType::kText, false, true},
      {"vehicle_id", ColumnType::kText, false, true},
      {"start_time", ColumnType::kTimestamp, false, true},
      {"mode", ColumnType::kText},
      {"route_id", ColumnType::kText},
      {"end_time", ColumnType::kTimestamp},
      {"duration_s", ColumnType::kDouble, false, false, true},
      {"anchor_lat", ColumnType::kDouble},
      {"anchor_lon", ColumnType::kDouble},
      {"positions", ColumnType::kBigint},
      {"near_terminal", ColumnType::kBoolean, true},
  };
  static constexpr TableSpec kSpec{"stops", "stop_rows", "§4 stops", kColumns};

  template <typename Out>
  static void Write(const StopRow& r, Out& out) {
    out.Text(r.feed_id);
    out.Text(r.vehicle_id);
    out.Timestamp(r.start_time);
    out.Text(ModeName(r.mode));
    out.Text(r.route_id);
    out.Timestamp(r.end_time);
    out.Double(r.anchor_lat);
    out.Double(r.anchor_lon);
    out.Int64(r.positions);
    r.near_terminal ? out.Bool(*r.near_terminal) : out.Null();
  }
};

/// Every table of the catalog, in export order.
const std::vector<const TableSpec*>& CatalogTables();

/// The catalog entry of table `name`; null when it has none.
const TableSpec* FindCatalogTable(std::string_view name);

/// The stored columns (derived ones left out), in order.
std::vector<Column> StoredColumns(const TableSpec& table);

}  // namespace frota::model
