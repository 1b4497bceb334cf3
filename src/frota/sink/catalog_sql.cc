#include "frota/sink/catalog_sql.h"

#include <fmt/format.h>

namespace frota::sink {

namespace {

std::string KeyList(const model::TableSpec& table) {
  std::string out;
  for (const model::Column& column : table.columns) {
    if (column.key) {
      out += fmt::format("{}{}", out.empty() ? "" : ", ", column.name);
    }
  }
  return out;
}

// {'a': a, 'b': b} over the key columns (keys) or the others.
std::string Struct(const model::TableSpec& table, bool keys) {
  std::string out;
  for (const model::Column& column : table.columns) {
    if (column.key == keys) {
      out += fmt::format("{}'{}': {}", out.empty() ? "" : ", ", column.name, column.name);
    }
  }
  return "{" + out + "}";
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
    if (column.derived) {
      continue;
    }
    out += fmt::format("{}  {} {}{}", first ? "" : ",\n", column.name,
                       SqlType(column.type, dialect), column.nullable ? "" : " NOT NULL");
    first = false;
  }
  if (dialect == SqlDialect::kPostgres) {
    out += fmt::format(",\n  PRIMARY KEY ({})", KeyList(table));
  }
  return out + "\n);\n";
}

std::string ExportQuery(const model::TableSpec& table) {
  std::string columns;
  for (const model::Column& column : table.columns) {
    columns += fmt::format("{}{}", columns.empty() ? "" : ", ", column.name);
  }
  return fmt::format("SELECT {} FROM {} ORDER BY {}", columns, table.view, KeyList(table));
}

std::string CompareViewSql(const model::TableSpec& table, std::string_view view_name,
                           std::string_view from, bool batch) {
  return fmt::format(
      "CREATE OR REPLACE VIEW {} AS\nSELECT {} AS k,\n       {} AS v, NULL::BIGINT AS mm{}\nFROM "
      "{};\n",
      view_name, Struct(table, true), Struct(table, false),
      batch ? ", NULL::BIGINT AS mm_allowance" : "", from);
}

std::vector<ColumnType> AppenderTypes(const model::TableSpec& table) {
  std::vector<ColumnType> out;
  for (const model::Column& column : table.columns) {
    if (column.derived) {
      continue;
    }
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
