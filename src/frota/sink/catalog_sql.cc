#include "frota/sink/catalog_sql.h"

#include <fmt/format.h>

#include <algorithm>

namespace frota::sink {

namespace {

// A column's name as SQL: quoted, so that a keyword (collector_polls' "repeat") is a name.
std::string Ident(std::string_view name) { return fmt::format("\"{}\"", name); }

// The key columns, in order: the stored table's (with its partition) or the read view's.
std::string KeyList(const model::TableSpec& table, bool stored) {
  std::string out;
  for (const model::Column& column : table.columns) {
    if (stored ? column.stored_key() : column.role == model::Role::kKey) {
      out += fmt::format("{}{}", out.empty() ? "" : ", ", Ident(column.name));
    }
  }
  return out;
}

// {'a': a, 'b': b} over the read view's key columns (keys) or its exactly compared others.
std::string Struct(const model::TableSpec& table, bool keys) {
  std::string out;
  for (const model::Column& column : model::ViewColumns(table)) {
    const bool key = column.role == model::Role::kKey;
    if (key == keys && (key || column.compare == model::Compare::kExact)) {
      out += fmt::format("{}'{}': {}", out.empty() ? "" : ", ", column.name, Ident(column.name));
    }
  }
  return "{" + out + "}";
}

// The distance compared within an allowance, in millimetres; NULL when the table has none.
std::string Millimetres(const model::TableSpec& table) {
  for (const model::Column& column : model::ViewColumns(table)) {
    if (column.compare == model::Compare::kMillimetres) {
      return Ident(column.name);
    }
    if (column.compare == model::Compare::kMetres) {
      return fmt::format("round({} * 1000)::BIGINT", Ident(column.name));
    }
  }
  return "NULL::BIGINT";
}

}  // namespace

std::string_view SqlType(model::ColumnType type, SqlDialect dialect) {
  const bool duck = dialect == SqlDialect::kDuckDb;
  switch (type) {
    case model::ColumnType::kText:
      return duck ? "VARCHAR" : "text";
    case model::ColumnType::kBigint:
      return duck ? "BIGINT" : "bigint";
    case model::ColumnType::kInteger:
      return duck ? "INTEGER" : "integer";
    case model::ColumnType::kSmallint:
      return duck ? "SMALLINT" : "smallint";
    case model::ColumnType::kTinyint:
      return duck ? "TINYINT" : "smallint";
    case model::ColumnType::kDouble:
      return duck ? "DOUBLE" : "double precision";
    case model::ColumnType::kBoolean:
      return duck ? "BOOLEAN" : "boolean";
    case model::ColumnType::kDate:
      return duck ? "DATE" : "date";
    case model::ColumnType::kTimestamp:
      return duck ? "TIMESTAMP" : "timestamp";
  }
  return "?";
}

std::string CreateTableSql(const model::TableSpec& table, SqlDialect dialect) {
  std::string out = fmt::format("CREATE TABLE {} (\n", table.name);
  bool first = true;
  for (const model::Column& column : table.columns) {
    if (!column.stored()) {
      continue;
    }
    out += fmt::format("{}  {} {}{}", first ? "" : ",\n", Ident(column.name),
                       SqlType(column.type, dialect), column.nullable ? "" : " NOT NULL");
    first = false;
  }
  if (dialect == SqlDialect::kPostgres || table.duckdb_key) {
    out += fmt::format(",\n  PRIMARY KEY ({})", KeyList(table, /*stored=*/true));
  }
  return out + "\n);\n";
}

std::string ExportQuery(const model::TableSpec& table) {
  std::string columns;
  for (const model::Column& column : model::ViewColumns(table)) {
    if (column.exported) {
      columns += fmt::format("{}{}", columns.empty() ? "" : ", ", Ident(column.name));
    }
  }
  return fmt::format("SELECT {} FROM {} ORDER BY {}", columns, table.view,
                     KeyList(table, /*stored=*/false));
}

std::string CompareViewSql(const model::TableSpec& table, std::string_view view_name,
                           std::string_view from, bool batch) {
  std::string allowance;
  if (batch) {
    allowance = fmt::format(", {} AS mm_allowance", table.mm_allowance.empty()
                                                        ? std::string("NULL::BIGINT")
                                                        : std::string(table.mm_allowance));
  }
  std::string source(from);
  const bool partitioned = std::ranges::any_of(
      table.columns, [](const model::Column& c) { return c.role == model::Role::kPartition; });
  if (!batch && partitioned && table.view == table.name) {
    // Read as stored, one row per partition: summed here, as a read view would.
    std::string sums;
    for (const model::Column& column : model::ViewColumns(table)) {
      if (column.role == model::Role::kSum) {
        sums += fmt::format(", sum({0})::BIGINT AS {0}", Ident(column.name));
      }
    }
    const std::string keys = KeyList(table, /*stored=*/false);
    source = fmt::format("(SELECT {}{} FROM {} GROUP BY {})", keys, sums, from, keys);
  }
  return fmt::format(
      "CREATE OR REPLACE VIEW {} AS\nSELECT {} AS k,\n       {} AS v, {} AS mm{}\nFROM {};\n",
      view_name, Struct(table, true), Struct(table, false), Millimetres(table), allowance, source);
}

std::string_view UpsertKeyColumn(const model::TableSpec& table) {
  std::string_view key;
  for (const model::Column& column : table.columns) {
    if (column.role == model::Role::kKey) {
      key = column.name;  // an upserted table has one (tables_test.cc checks it)
    }
  }
  return key;
}

std::vector<ColumnType> AppenderTypes(const model::TableSpec& table) {
  std::vector<ColumnType> out;
  for (const model::Column& column : model::StoredColumns(table)) {
    switch (column.type) {
      case model::ColumnType::kText:
        out.push_back(ColumnType::kVarchar);
        break;
      case model::ColumnType::kBigint:
        out.push_back(ColumnType::kBigint);
        break;
      case model::ColumnType::kInteger:
        out.push_back(ColumnType::kInteger);
        break;
      case model::ColumnType::kSmallint:
        out.push_back(ColumnType::kSmallint);
        break;
      case model::ColumnType::kTinyint:
        out.push_back(ColumnType::kTinyint);
        break;
      case model::ColumnType::kDouble:
        out.push_back(ColumnType::kDouble);
        break;
      case model::ColumnType::kBoolean:
        out.push_back(ColumnType::kBoolean);
        break;
      case model::ColumnType::kDate:
        out.push_back(ColumnType::kDate);
        break;
      case model::ColumnType::kTimestamp:
        out.push_back(ColumnType::kTimestamp);
        break;
    }
  }
  return out;
}

}  // namespace frota::sink
