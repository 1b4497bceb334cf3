#include "frota/sink/postgres_to_duckdb.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>

#include "frota/sink/catalog_sql.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/sink/pg_connection.h"
#include "frota/sink/pg_copy.h"
#include "frota/sink/postgres_sink.h"
#include "frota/sink/window.h"

namespace frota::sink {

namespace {

using CT = ColumnType;

struct CopiedTable {
  std::string name;                 // in PostgreSQL
  std::vector<ColumnType> columns;  // DuckDB's types, in the tables' shared column order
  std::string target = name;        // in DuckDB
};

// The silver tables arrive as text in positions_text and rejected_text (AddSilverText),
// whose columns are PostgreSQL's.

// The silver tables and `rules`, then every table of the catalog (model/tables.h) with
// its stored columns' types.
const std::vector<CopiedTable>& CopiedTables() {
  static const std::vector<CopiedTable> kTables = [] {
    std::vector<CopiedTable> tables = {
        {"positions",
         {CT::kVarchar, CT::kVarchar, CT::kVarchar, CT::kVarchar, CT::kVarchar, CT::kVarchar,
          CT::kVarchar, CT::kTinyint, CT::kDouble, CT::kDouble, CT::kFloat, CT::kFloat, CT::kFloat,
          CT::kBoolean, CT::kTimestamp, CT::kTimestamp, CT::kBoolean, CT::kVarchar, CT::kBigint},
         "positions_text"},
        {"rejected",
         {CT::kVarchar, CT::kVarchar, CT::kVarchar, CT::kTimestamp, CT::kTimestamp, CT::kVarchar,
          CT::kBigint, CT::kVarchar},
         "rejected_text"},
        {"rules", {CT::kVarchar, CT::kDouble}},
    };
    for (const model::TableSpec* table : model::CatalogTables()) {
      tables.push_back({std::string(table->name), AppenderTypes(*table)});
    }
    return tables;
  }();
  return kTables;
}

// Decodes one binary COPY field (PostgreSQL's type for the column) into the appender.
base::Status SetField(ChunkAppender& a, std::size_t column, ColumnType type,
                      std::string_view field) {
  const auto be = type == CT::kVarchar ? 0 : PgCopyReader::BigEndian(field);
  const auto expect = [&](std::size_t size) -> base::Status {
    if (field.size() != size) {
      return base::Internal("copy: column {} has {} bytes, expected {}", column, field.size(),
                            size);
    }
    return base::Status::Ok();
  };
  switch (type) {
    case CT::kVarchar:
      a.SetString(column, field);
      break;
    case CT::kBigint:
      FROTA_RETURN_IF_ERROR(expect(8));
      a.SetInt64(column, static_cast<std::int64_t>(be));
      break;
    case CT::kInteger:
      FROTA_RETURN_IF_ERROR(expect(4));
      a.SetInt32(column, static_cast<std::int32_t>(static_cast<std::uint32_t>(be)));
      break;
    case CT::kTinyint:  // smallint in PostgreSQL
      FROTA_RETURN_IF_ERROR(expect(2));
      a.SetInt8(column, static_cast<std::int8_t>(static_cast<std::int16_t>(be)));
      break;
    case CT::kSmallint:
      FROTA_RETURN_IF_ERROR(expect(2));
      a.SetInt16(column, static_cast<std::int16_t>(be));
      break;
    case CT::kDouble: {
      FROTA_RETURN_IF_ERROR(expect(8));
      double v = 0;
      std::memcpy(&v, &be, sizeof v);
      a.SetDouble(column, v);
      break;
    }
    case CT::kFloat: {
      FROTA_RETURN_IF_ERROR(expect(4));
      const auto bits = static_cast<std::uint32_t>(be);
      float v = 0;
      std::memcpy(&v, &bits, sizeof v);
      a.SetFloat(column, v);
      break;
    }
    case CT::kBoolean:
      FROTA_RETURN_IF_ERROR(expect(1));
      a.SetBool(column, field[0] != 0);
      break;
    case CT::kTimestamp:
      FROTA_RETURN_IF_ERROR(expect(8));
      a.SetTimestampMicros(column, static_cast<std::int64_t>(be) + kPgEpochMicros);
      break;
    case CT::kDate:
      FROTA_RETURN_IF_ERROR(expect(4));
      a.SetDateDays(column,
                    static_cast<std::int32_t>(static_cast<std::uint32_t>(be)) + kPgEpochDays);
      break;
    case CT::kUtinyint:  // no PostgreSQL column maps to it
      return base::Internal("copy: column {} has no PostgreSQL counterpart", column);
  }
  return base::Status::Ok();
}

// Parses a binary COPY stream that arrives in pieces, appending complete rows.
class StreamingCopy {
 public:
  StreamingCopy(ChunkAppender& appender, const CopiedTable& table)
      : appender_(appender), table_(table) {}

  base::Status Feed(std::string_view piece) {
    return rows_.Feed(piece, [this](PgCopyReader& row) { return AppendRow(row); });
  }
  [[nodiscard]] bool ended() const { return rows_.ended(); }
  [[nodiscard]] std::int64_t rows() const { return rows_.rows(); }

 private:
  base::Status AppendRow(PgCopyReader& r) {
    FROTA_ASSIGN_OR_RETURN(const auto fields, r.NextRow());
    if (!fields || static_cast<std::size_t>(*fields) != table_.columns.size()) {
      return base::Internal("copy of {}: rows have {} columns, this frota expects {}", table_.name,
                            fields ? *fields : -1, table_.columns.size());
    }
    for (std::size_t c = 0; c < table_.columns.size(); ++c) {
      FROTA_ASSIGN_OR_RETURN(const auto field, r.Field());
      if (!field) {
        appender_.SetNull(c);
      } else {
        FROTA_RETURN_IF_ERROR(SetField(appender_, c, table_.columns[c], *field));
      }
    }
    return appender_.EndRow();
  }

  ChunkAppender& appender_;
  const CopiedTable& table_;
  PgCopyRows rows_;
};

// A PostgreSQL column type as the DuckDB type it is copied into; nullopt for a type no
// frota table uses.
std::optional<ColumnType> DuckTypeOf(std::string_view pg_type) {
  if (pg_type == "text" || pg_type == "character varying") {
    return CT::kVarchar;
  }
  if (pg_type == "smallint") {
    return CT::kSmallint;
  }
  if (pg_type == "integer") {
    return CT::kInteger;
  }
  if (pg_type == "bigint") {
    return CT::kBigint;
  }
  if (pg_type == "double precision") {
    return CT::kDouble;
  }
  if (pg_type == "real") {
    return CT::kFloat;
  }
  if (pg_type == "boolean") {
    return CT::kBoolean;
  }
  if (pg_type == "timestamp without time zone") {
    return CT::kTimestamp;
  }
  if (pg_type == "date") {
    return CT::kDate;
  }
  return std::nullopt;
}

std::string_view DuckTypeName(ColumnType type) {
  switch (type) {
    case CT::kVarchar:
      return "VARCHAR";
    case CT::kBigint:
      return "BIGINT";
    case CT::kInteger:
      return "INTEGER";
    case CT::kTinyint:
      return "TINYINT";
    case CT::kSmallint:
      return "SMALLINT";
    case CT::kDouble:
      return "DOUBLE";
    case CT::kFloat:
      return "FLOAT";
    case CT::kBoolean:
      return "BOOLEAN";
    case CT::kTimestamp:
      return "TIMESTAMP";
    case CT::kDate:
      return "DATE";
    case CT::kUtinyint:
      return "UTINYINT";
  }
  return "VARCHAR";
}

// A DuckDB column type as PostgreSQL's; nullopt for a type no frota table uses.
std::optional<std::string_view> PgTypeOf(std::string_view duck_type) {
  static const std::vector<std::pair<std::string_view, std::string_view>> kTypes = {
      {"VARCHAR", "text"},    {"TINYINT", "smallint"}, {"SMALLINT", "smallint"},
      {"INTEGER", "integer"}, {"BIGINT", "bigint"},    {"DOUBLE", "double precision"},
      {"FLOAT", "real"},      {"BOOLEAN", "boolean"},  {"TIMESTAMP", "timestamp"},
      {"DATE", "date"}};
  for (const auto& [duck, pg] : kTypes) {
    if (duck == duck_type) {
      return pg;
    }
  }
  return std::nullopt;
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) {
    out += c;
    if (c == '"') {
      out += '"';
    }
  }
  return out + "\"";
}

// One value in PostgreSQL's COPY text format.
void AppendCopyText(std::string& out, std::string_view value) {
  for (const char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
}

}  // namespace

base::Result<std::unique_ptr<DuckDbConnection>> CopyPostgresToDuckDb(
    const std::string& dsn, const std::filesystem::path& scratch, PostgresCopySummary* summary,
    const DateWindow& window, const base::TimeZone& zone) {
  FROTA_ASSIGN_OR_RETURN(auto pg, PgConnection::Open(dsn));
  FROTA_RETURN_IF_ERROR(CheckPostgresSchema(*pg));
  if (!scratch.empty() && std::filesystem::exists(scratch)) {
    return base::InvalidInput("{}: exists; the copy needs a new file", scratch.string());
  }
  FROTA_ASSIGN_OR_RETURN(auto duck, OpenFrotaDuckDb(scratch, /*must_exist=*/false));
  FROTA_RETURN_IF_ERROR(pg->Execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
  FROTA_RETURN_IF_ERROR(duck->Execute("BEGIN TRANSACTION"));
  const auto copy_table = [&](const CopiedTable& table,
                              const std::vector<std::string>& columns) -> base::Status {
    const auto date = TableDateColumn(table.name, columns);
    const std::string condition = date ? WindowCondition(*date, window, zone) : "TRUE";
    FROTA_ASSIGN_OR_RETURN(auto appender,
                           ChunkAppender::Create(*duck, table.target, table.columns));
    StreamingCopy copy(*appender, table);
    const auto status =
        // A query, not the table: the raw tables are partitioned (postgres_schema_v9.sql),
        // and COPY reads a partitioned table only through one.
        // The window's condition prunes them to its days.
        pg->CopyOut(fmt::format("COPY (SELECT * FROM {} WHERE {}) TO STDOUT (FORMAT binary)",
                                QuoteIdentifier(table.name), condition),
                    [&](std::string_view piece) { return copy.Feed(piece); });
    if (!status.ok()) {
      return status.error().WithContext(fmt::format("copying table {}", table.name));
    }
    if (!copy.ended()) {
      return base::Internal("copying table {}: the stream ended without its trailer", table.name);
    }
    FROTA_RETURN_IF_ERROR(appender->Close());
    if (summary != nullptr) {
      summary->rows_per_table.emplace_back(table.name, copy.rows());
    }
    return base::Status::Ok();
  };
  const auto& tables = CopiedTables();
  const auto silver = AddSilverText(*duck, [&]() -> base::Status {
    const auto positions = copy_table(tables[0], {});
    return positions.ok() ? copy_table(tables[1], {}) : positions;  // then rejected
  });
  FROTA_RETURN_IF_ERROR(silver);
  for (std::size_t i = 2; i < tables.size(); ++i) {
    FROTA_RETURN_IF_ERROR(copy_table(tables[i], {}));
  }
  // Tables other commands wrote into the same database (`frota headways`' tables, say):
  // every base table the embedded schema does not have, as it is.
  FROTA_ASSIGN_OR_RETURN(
      auto others,
      pg->Query("SELECT c.table_name, c.column_name, c.data_type "
                "FROM information_schema.columns c "
                "JOIN information_schema.tables t USING (table_schema, table_name) "
                "WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' "
                "ORDER BY c.table_name, c.ordinal_position"));
  FROTA_ASSIGN_OR_RETURN(auto embedded,
                         duck->Query("SELECT DISTINCT table_name FROM information_schema.tables"));
  std::set<std::string> known;
  for (std::size_t r = 0; r < embedded.rows(); ++r) {
    known.insert(embedded.String(r, 0));
  }
  struct Extra {
    CopiedTable table;
    std::vector<std::string> column_names;
    std::string ddl;
  };
  std::vector<Extra> extra;
  for (int r = 0; r < others.rows(); ++r) {
    const std::string name(others.Value(r, 0));
    if (known.contains(name)) {
      continue;
    }
    if (extra.empty() || extra.back().table.name != name) {
      extra.push_back({{name, {}, name}, {}, {}});
    }
    const auto type = DuckTypeOf(others.Value(r, 2));
    if (!type) {
      return base::Internal("copying table {}: a column of type {} frota cannot read", name,
                            others.Value(r, 2));
    }
    Extra& e = extra.back();
    e.ddl += fmt::format("{}{} {}", e.table.columns.empty() ? "" : ", ",
                         QuoteIdentifier(others.Value(r, 1)), DuckTypeName(*type));
    e.table.columns.push_back(*type);
    e.column_names.emplace_back(others.Value(r, 1));
  }
  for (const auto& e : extra) {
    FROTA_RETURN_IF_ERROR(
        duck->Execute(fmt::format("CREATE TABLE {} ({})", QuoteIdentifier(e.table.name), e.ddl)));
    FROTA_RETURN_IF_ERROR(copy_table(e.table, e.column_names));
  }
  FROTA_RETURN_IF_ERROR(duck->Execute("COMMIT"));
  FROTA_RETURN_IF_ERROR(pg->Execute("COMMIT"));
  return duck;
}

}  // namespace frota::sink

namespace frota::sink {

base::Status ReplacePostgresTables(DuckDbConnection& duck, const std::string& dsn,
                                   const std::vector<std::string>& tables, const DateWindow& window,
                                   const base::TimeZone& zone) {
  FROTA_ASSIGN_OR_RETURN(auto pg, PgConnection::Open(dsn));
  FROTA_RETURN_IF_ERROR(CheckPostgresSchema(*pg));
  FROTA_RETURN_IF_ERROR(pg->Execute("BEGIN"));
  const auto replace = [&](const std::string& table) -> base::Status {
    FROTA_ASSIGN_OR_RETURN(
        auto columns,
        duck.Query(fmt::format("SELECT column_name, data_type FROM information_schema.columns "
                               "WHERE table_name = '{}' AND table_schema = 'main' "
                               "ORDER BY ordinal_position",
                               table)));
    if (columns.rows() == 0) {
      return base::Internal("{}: no table {} to write to PostgreSQL", duck.path(), table);
    }
    std::string ddl;
    std::string names;
    std::string select;
    std::vector<std::string> column_names;
    for (std::size_t c = 0; c < columns.rows(); ++c) {
      const std::string name = columns.String(c, 0);
      column_names.push_back(name);
      const std::string type = columns.String(c, 1);
      const auto pg_type = PgTypeOf(type);
      if (!pg_type) {
        return base::Internal("table {}: column {} of type {} has no PostgreSQL type here", table,
                              name, type);
      }
      ddl += fmt::format("{}{} {}", c == 0 ? "" : ", ", QuoteIdentifier(name), *pg_type);
      names += fmt::format("{}{}", c == 0 ? "" : ", ", QuoteIdentifier(name));
      select += fmt::format("{}{}::VARCHAR", c == 0 ? "" : ", ", QuoteIdentifier(name));
    }
    // A table of frota's schema (departures, headways, alerts) keeps its definition, key
    // included: the sinks upsert into it on that key. Any other is made anew.
    const bool in_schema = std::any_of(CopiedTables().begin(), CopiedTables().end(),
                                       [&](const CopiedTable& t) { return t.name == table; });
    // A window replaces only its own days of a table that has them.
    FROTA_ASSIGN_OR_RETURN(auto exists,
                           pg->Query(fmt::format("SELECT to_regclass({}) IS NOT NULL",
                                                 SqlStringLiteral(QuoteIdentifier(table)))));
    const bool keep = in_schema || (window.bounded() && exists.Value(0, 0) == "t");
    const auto date = TableDateColumn(table, column_names);
    const std::string condition = date ? WindowCondition(*date, window, zone) : "TRUE";
    FROTA_RETURN_IF_ERROR(
        pg->Execute(keep ? fmt::format("DELETE FROM {} WHERE {}", QuoteIdentifier(table), condition)
                         : fmt::format("DROP TABLE IF EXISTS {}; CREATE TABLE {} ({})",
                                       QuoteIdentifier(table), QuoteIdentifier(table), ddl)));
    FROTA_ASSIGN_OR_RETURN(
        auto rows, duck.Query(fmt::format("SELECT {} FROM {}", select, QuoteIdentifier(table))));
    // DuckDB's text for a double is the shortest that reads back to the same bits, so the
    // values arrive exactly.
    std::string data;
    for (std::size_t r = 0; r < rows.rows(); ++r) {
      for (std::size_t c = 0; c < columns.rows(); ++c) {
        if (c != 0) {
          data += '\t';
        }
        if (rows.IsNull(r, c)) {
          data += "\\N";
        } else {
          AppendCopyText(data, rows.String(r, c));
        }
      }
      data += '\n';
    }
    return pg->CopyIn(fmt::format("COPY {} ({}) FROM STDIN", QuoteIdentifier(table), names), data);
  };
  for (const auto& table : tables) {
    if (const auto status = replace(table); !status.ok()) {
      (void)pg->Execute("ROLLBACK");
      return status.error().WithContext(fmt::format("writing table {} to PostgreSQL", table));
    }
  }
  return pg->Execute("COMMIT");
}

}  // namespace frota::sink
