// What the sinks, export and reconcile derive from the table catalog (model/tables.h):
// each dialect's DDL and column types, export's query, the comparison's key and values,
// and the adapters through which a catalog row reaches a DuckDB appender or a COPY.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/model/tables.h"
#include "frota/sink/duckdb_connection.h"
#include "frota/sink/pg_copy.h"

namespace frota::sink {

enum class SqlDialect { kDuckDb, kPostgres };

/// The column's type in `dialect` (DuckDB TINYINT is PostgreSQL smallint).
std::string_view SqlType(model::ColumnType type, SqlDialect dialect);

/// CREATE TABLE of the table's stored columns as the current schema has it: NOT NULL
/// where not nullable; in PostgreSQL with its stored key (partition first) as PRIMARY KEY
/// (upserts need it); in DuckDB only where `duckdb_key` says (since schema version 4 each
/// epoch's transaction writes a row once; `alerts` keeps its key).
std::string CreateTableSql(const model::TableSpec& table, SqlDialect dialect);

/// Export's query: the exported columns of the table's read view, sorted by the key.
std::string ExportQuery(const model::TableSpec& table);

/// reconcile's view of one side of the table: `k`, a struct of the key columns, `v`, one
/// of the others compared exactly, and `mm`, the distance compared within an allowance
/// (or NULL), read from `from` (a relation with the view's columns), as
/// batch/sql/compare.sql's table_differences wants them; `batch` adds the allowance. A
/// partitioned table read as stored (quality_latency) is summed over partitions on the
/// stream side.
std::string CompareViewSql(const model::TableSpec& table, std::string_view view_name,
                           std::string_view from, bool batch);

/// The key column of a table upserted by its one key (model::UpsertedTable).
std::string_view UpsertKeyColumn(const model::TableSpec& table);

/// The last row of each key of an upserted table, ordered by key.
template <typename Row>
requires model::UpsertedTable<Row> std::vector<Row> LastRowOfEachKey(const std::vector<Row>& rows) {
  std::map<std::string_view, const Row*> last;
  for (const Row& row : rows) {
    last[model::Table<Row>::UpsertKey(row)] = &row;
  }
  std::vector<Row> out;
  out.reserve(last.size());
  for (const auto& [key, row] : last) {
    out.push_back(*row);
  }
  return out;
}

/// The ChunkAppender column types of the table's stored columns.
std::vector<ColumnType> AppenderTypes(const model::TableSpec& table);

/// Hands a catalog row's values to a ChunkAppender, column after column.
class AppenderOut {
 public:
  explicit AppenderOut(ChunkAppender& appender) : a_(appender) {}
  void Text(std::string_view v) { a_.SetString(column_++, v); }
  void Int64(std::int64_t v) { a_.SetInt64(column_++, v); }
  void Int32(std::int32_t v) { a_.SetInt32(column_++, v); }
  void Int16(std::int16_t v) { a_.SetInt16(column_++, v); }
  void Int8(std::int8_t v) { a_.SetInt8(column_++, v); }
  void Double(double v) { a_.SetDouble(column_++, v); }
  void Bool(bool v) { a_.SetBool(column_++, v); }
  void Date(base::LocalDate d) { a_.SetDateDays(column_++, base::DaysSinceEpoch(d)); }
  void Timestamp(base::Timestamp t) { a_.SetTimestampMicros(column_++, base::ToUnixMicros(t)); }
  void Null() { a_.SetNull(column_++); }
  base::Status EndRow() {
    column_ = 0;
    return a_.EndRow();
  }

 private:
  ChunkAppender& a_;
  std::size_t column_ = 0;
};

/// Appends a row of a catalog table to `appender` (made with AppenderTypes).
template <typename Row>
base::Status AppendRow(ChunkAppender& appender, const Row& row) {
  AppenderOut out(appender);
  model::Table<Row>::Write(row, out);
  return out.EndRow();
}

/// Appends `rows` of a catalog table to `appender` (made with AppenderTypes).
template <typename Row>
base::Status AppendRows(ChunkAppender& appender, const std::vector<Row>& rows) {
  AppenderOut out(appender);
  for (const Row& row : rows) {
    model::Table<Row>::Write(row, out);
    FROTA_RETURN_IF_ERROR(out.EndRow());
  }
  return base::Status::Ok();
}

/// Hands a catalog row's values to a binary COPY, in PostgreSQL's types.
class CopyOut {
 public:
  explicit CopyOut(PgCopyWriter& writer) : w_(writer) {}
  void Text(std::string_view v) { w_.Text(v); }
  void Int64(std::int64_t v) { w_.Int64(v); }
  void Int32(std::int32_t v) { w_.Int32(v); }
  void Int16(std::int16_t v) { w_.Int16(v); }
  void Int8(std::int8_t v) { w_.Int16(v); }
  void Double(double v) { w_.Float64(v); }
  void Bool(bool v) { w_.Bool(v); }
  void Date(base::LocalDate d) { w_.DateDays(base::DaysSinceEpoch(d)); }
  void Timestamp(base::Timestamp t) { w_.TimestampMicros(base::ToUnixMicros(t)); }
  void Null() { w_.Null(); }

 private:
  PgCopyWriter& w_;
};

/// `rows` of a catalog table as one binary COPY payload of its stored columns.
template <typename Row>
std::string CopyPayload(const std::vector<Row>& rows) {
  const auto columns =
      static_cast<std::int16_t>(model::StoredColumns(model::Table<Row>::kSpec).size());
  PgCopyWriter w;
  CopyOut out(w);
  for (const Row& row : rows) {
    w.Row(columns);
    model::Table<Row>::Write(row, out);
  }
  return w.Finish();
}

}  // namespace frota::sink
