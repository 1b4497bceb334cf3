#include "frota/sink/postgres_to_duckdb.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstring>
#include <optional>

#include "frota/sink/duckdb_sink.h"
#include "frota/sink/pg_connection.h"
#include "frota/sink/pg_copy.h"
#include "frota/sink/postgres_sink.h"

namespace frota::sink {

namespace {

using CT = ColumnType;

struct CopiedTable {
  std::string_view name;            // in PostgreSQL
  std::vector<ColumnType> columns;  // DuckDB's types, in the tables' shared column order
  std::string_view target = name;   // in DuckDB
};

// The silver tables arrive as text in positions_text and rejected_text (AddSilverText),
// whose columns are PostgreSQL's.

const std::vector<CopiedTable>& CopiedTables() {
  static const std::vector<CopiedTable> kTables = [] {
    std::vector<ColumnType> quality = {CT::kInteger, CT::kVarchar, CT::kDate, CT::kTinyint,
                                       CT::kBigint, CT::kBigint};
    quality.insert(quality.end(), model::kRejectReasonCount, CT::kBigint);
    return std::vector<CopiedTable>{
        {"positions",
         {CT::kVarchar, CT::kVarchar, CT::kVarchar, CT::kVarchar, CT::kVarchar, CT::kVarchar,
          CT::kVarchar, CT::kTinyint, CT::kDouble, CT::kDouble, CT::kFloat, CT::kFloat, CT::kFloat,
          CT::kBoolean, CT::kTimestamp, CT::kTimestamp, CT::kBoolean, CT::kVarchar, CT::kBigint},
         "positions_text"},
        {"rejected",
         {CT::kVarchar, CT::kVarchar, CT::kVarchar, CT::kTimestamp, CT::kTimestamp, CT::kVarchar,
          CT::kBigint, CT::kVarchar},
         "rejected_text"},
        {"speed_cells",
         {CT::kInteger, CT::kVarchar, CT::kDate, CT::kTinyint, CT::kInteger, CT::kInteger,
          CT::kBigint, CT::kBigint, CT::kBigint}},
        {"speed_lines",
         {CT::kInteger, CT::kVarchar, CT::kVarchar, CT::kDate, CT::kTinyint, CT::kBigint,
          CT::kBigint, CT::kBigint}},
        {"fleet_hours",
         {CT::kInteger, CT::kVarchar, CT::kDate, CT::kTinyint, CT::kBigint, CT::kBigint}},
        {"stops",
         {CT::kVarchar, CT::kVarchar, CT::kTimestamp, CT::kVarchar, CT::kVarchar, CT::kTimestamp,
          CT::kDouble, CT::kDouble, CT::kBigint, CT::kBoolean}},
        {"trips",
         {CT::kVarchar, CT::kVarchar, CT::kVarchar, CT::kVarchar, CT::kTimestamp, CT::kVarchar,
          CT::kTinyint, CT::kVarchar, CT::kDouble, CT::kDouble, CT::kTimestamp, CT::kDouble,
          CT::kDouble, CT::kBigint, CT::kBigint}},
        {"quality", quality},
        {"quality_latency",
         {CT::kInteger, CT::kVarchar, CT::kDate, CT::kTinyint, CT::kSmallint, CT::kBigint}},
    };
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
    buffer_.append(piece);
    std::size_t pos = 0;
    if (!header_done_) {
      if (buffer_.size() < 19) {
        return base::Status::Ok();
      }
      PgCopyReader header(buffer_);
      FROTA_RETURN_IF_ERROR(header.ReadHeader());
      pos = 19;  // signature, flags, and an empty header extension (what servers send)
      header_done_ = true;
    }
    while (!ended_) {
      const auto row_end = CompleteRow(pos);
      if (!row_end) {
        break;
      }
      FROTA_RETURN_IF_ERROR(AppendRow(pos, *row_end));
      pos = *row_end;
    }
    buffer_.erase(0, pos);
    return base::Status::Ok();
  }
  [[nodiscard]] bool ended() const { return ended_; }
  [[nodiscard]] std::int64_t rows() const { return rows_; }

 private:
  static std::uint32_t Be32(std::string_view s, std::size_t at) {
    return static_cast<std::uint32_t>(PgCopyReader::BigEndian(s.substr(at, 4)));
  }
  // Where the row starting at `pos` ends, if all of it is buffered.
  std::optional<std::size_t> CompleteRow(std::size_t pos) {
    if (buffer_.size() - pos < 2) {
      return std::nullopt;
    }
    const auto fields =
        static_cast<std::int16_t>(PgCopyReader::BigEndian(std::string_view(buffer_).substr(pos, 2)));
    std::size_t at = pos + 2;
    if (fields < 0) {
      ended_ = true;
      return std::nullopt;
    }
    for (int f = 0; f < fields; ++f) {
      if (buffer_.size() - at < 4) {
        return std::nullopt;
      }
      const auto length = static_cast<std::int32_t>(Be32(buffer_, at));
      at += 4;
      if (length > 0) {
        if (buffer_.size() - at < static_cast<std::size_t>(length)) {
          return std::nullopt;
        }
        at += static_cast<std::size_t>(length);
      }
    }
    return at;
  }
  base::Status AppendRow(std::size_t pos, std::size_t end) {
    PgCopyReader r(std::string_view(buffer_).substr(pos, end - pos));
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
    ++rows_;
    return appender_.EndRow();
  }

  ChunkAppender& appender_;
  const CopiedTable& table_;
  std::string buffer_;
  bool header_done_ = false;
  bool ended_ = false;
  std::int64_t rows_ = 0;
};

}  // namespace

base::Result<std::unique_ptr<DuckDbConnection>> CopyPostgresToDuckDb(
    const std::string& dsn, const std::filesystem::path& scratch, PostgresCopySummary* summary) {
  FROTA_ASSIGN_OR_RETURN(auto pg, PgConnection::Open(dsn));
  FROTA_RETURN_IF_ERROR(CheckPostgresSchema(*pg));
  if (!scratch.empty() && std::filesystem::exists(scratch)) {
    return base::InvalidInput("{}: exists; the copy needs a new file", scratch.string());
  }
  FROTA_ASSIGN_OR_RETURN(auto duck, OpenFrotaDuckDb(scratch, /*must_exist=*/false));
  FROTA_RETURN_IF_ERROR(pg->Execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
  FROTA_RETURN_IF_ERROR(duck->Execute("BEGIN TRANSACTION"));
  const auto copy_table = [&](const CopiedTable& table) -> base::Status {
    FROTA_ASSIGN_OR_RETURN(auto appender,
                           ChunkAppender::Create(*duck, table.target, table.columns));
    StreamingCopy copy(*appender, table);
    const auto status = pg->CopyOut(
        fmt::format("COPY {} TO STDOUT (FORMAT binary)", table.name),
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
    const auto positions = copy_table(tables[0]);
    return positions.ok() ? copy_table(tables[1]) : positions;  // then rejected
  });
  FROTA_RETURN_IF_ERROR(silver);
  for (std::size_t i = 2; i < tables.size(); ++i) {
    FROTA_RETURN_IF_ERROR(copy_table(tables[i]));
  }
  FROTA_RETURN_IF_ERROR(duck->Execute("COMMIT"));
  FROTA_RETURN_IF_ERROR(pg->Execute("COMMIT"));
  return duck;
}

}  // namespace frota::sink
