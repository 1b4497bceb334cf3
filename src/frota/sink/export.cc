#include "frota/sink/export.h"

#include <fmt/format.h>

#include <deque>

#include "frota/sink/catalog_sql.h"
#include "frota/sink/chunk_reader.h"
#include "frota/sink/csv_writer.h"

namespace frota::sink {

namespace {

// A catalog table's entry (model/tables.h): its query derived from the catalog, kept for
// the process (ExportTable holds views).
ExportTable FromCatalog(const model::TableSpec& table) {
  static std::deque<std::string> queries;
  queries.push_back(ExportQuery(table));
  return {table.name, queries.back(), table.exported == model::Export::kWithRows};
}

}  // namespace

const std::vector<ExportTable>& ExportTables() {
  static const std::vector<ExportTable> kTables = [] {
    std::vector<ExportTable> tables = {
        {"positions",
         "SELECT feed_id, vehicle_id, mode, route_id, trip_id, trip_start_date, "
         "trip_start_time, direction_id, lat, lon, reported_speed_kmh, bearing_deg, altitude_m, "
         "on_ground, event_time, ingest_time, event_time_from_header, source, source_offset "
         "FROM positions ORDER BY feed_id, vehicle_id, event_time, source, source_offset"},
        {"rejected",
         "SELECT feed_id, vehicle_id, reason, event_time, ingest_time, source, source_offset, "
         "detail FROM rejected ORDER BY source, source_offset, reason"},
    };
    // Every exported table of the catalog, in its order.
    for (const model::TableSpec* table : model::CatalogTables()) {
      if (table->exported != model::Export::kNo) {
        tables.push_back(FromCatalog(*table));
      }
    }
    // A view over trips (semantics §4 quality).
    tables.push_back(
        {"duplicate_slots",
         "SELECT feed_id, trip_start_date, trip_id, trip_start_time, vehicles, vehicle_ids "
         "FROM duplicate_slots ORDER BY feed_id, trip_start_date, trip_id, trip_start_time"});
    return tables;
  }();
  return kTables;
}

namespace {

// Writes one column value of a chunk through the CSV writer, by the column's type.
base::Status WriteValue(CsvWriter& out, duckdb_type type, duckdb_vector vector, idx_t row) {
  std::uint64_t* validity = duckdb_vector_get_validity(vector);
  if (validity != nullptr && !duckdb_validity_row_is_valid(validity, row)) {
    out.Null();
    return base::Status::Ok();
  }
  void* data = duckdb_vector_get_data(vector);
  switch (type) {
    case DUCKDB_TYPE_VARCHAR: {
      auto* s = &static_cast<duckdb_string_t*>(data)[row];
      out.Text(std::string_view(duckdb_string_t_data(s), duckdb_string_t_length(*s)));
      break;
    }
    case DUCKDB_TYPE_BIGINT:
      out.Int(static_cast<std::int64_t*>(data)[row]);
      break;
    case DUCKDB_TYPE_INTEGER:
      out.Int(static_cast<std::int32_t*>(data)[row]);
      break;
    case DUCKDB_TYPE_SMALLINT:
      out.Int(static_cast<std::int16_t*>(data)[row]);
      break;
    case DUCKDB_TYPE_TINYINT:
      out.Int(static_cast<std::int8_t*>(data)[row]);
      break;
    case DUCKDB_TYPE_HUGEINT: {
      const auto v = static_cast<duckdb_hugeint*>(data)[row];
      out.Int(static_cast<std::int64_t>(v.lower));
      break;
    }
    case DUCKDB_TYPE_DOUBLE:
      out.Double(static_cast<double*>(data)[row]);
      break;
    case DUCKDB_TYPE_FLOAT:
      out.Float(static_cast<float*>(data)[row]);
      break;
    case DUCKDB_TYPE_BOOLEAN:
      out.Bool(static_cast<bool*>(data)[row]);
      break;
    case DUCKDB_TYPE_TIMESTAMP:
      out.TimestampMicros(static_cast<duckdb_timestamp*>(data)[row].micros);
      break;
    case DUCKDB_TYPE_DATE:
      out.DateDays(static_cast<duckdb_date*>(data)[row].days);
      break;
    default:
      return base::Internal("export: unsupported column type {}", static_cast<int>(type));
  }
  return base::Status::Ok();
}

// Streamed, a chunk at a time: a table of many days costs no more memory than DuckDB's
// query over it.
base::Result<std::int64_t> ExportCsv(DuckDbConnection& db, const ExportTable& table,
                                     const std::filesystem::path& path) {
  auto reader = ChunkReader::Run(db, std::string(table.query));
  if (!reader.ok()) {
    return reader.error().WithContext(fmt::format("export of {}", table.name));
  }
  FROTA_ASSIGN_OR_RETURN(auto out, CsvWriter::Create(path));
  const idx_t columns = (*reader)->columns();
  std::vector<duckdb_type> types;
  for (idx_t c = 0; c < columns; ++c) {
    out->Text((*reader)->ColumnName(c));
    types.push_back((*reader)->ColumnType(c));
  }
  out->EndRow();
  std::int64_t rows = 0;
  while ((*reader)->Next()) {
    const idx_t size = (*reader)->size();
    for (idx_t r = 0; r < size; ++r) {
      for (idx_t c = 0; c < columns; ++c) {
        FROTA_RETURN_IF_ERROR(WriteValue(*out, types[c], (*reader)->Vector(c), r));
      }
      out->EndRow();
    }
    rows += static_cast<std::int64_t>(size);
  }
  FROTA_RETURN_IF_ERROR((*reader)->status());
  FROTA_RETURN_IF_ERROR(out->Close());
  return rows;
}

}  // namespace

base::Result<ExportSummary> ExportDuckDb(DuckDbConnection& db, const std::filesystem::path& dir,
                                         ExportFormat format) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return base::IoError("{}: cannot create: {}", dir.string(), ec.message());
  }
  ExportSummary summary;
  for (const auto& table : ExportTables()) {
    if (table.only_with_rows) {
      FROTA_ASSIGN_OR_RETURN(
          auto any,
          db.Query(fmt::format("SELECT count(*) FROM (SELECT 1 FROM ({}) LIMIT 1)", table.query)));
      if (any.Int64(0, 0) == 0) {
        continue;
      }
    }
    if (format == ExportFormat::kCsv) {
      FROTA_ASSIGN_OR_RETURN(const auto rows,
                             ExportCsv(db, table, dir / (std::string(table.name) + ".csv")));
      summary.rows_per_table.emplace_back(table.name, rows);
    } else {
      const auto path = (dir / (std::string(table.name) + ".parquet")).string();
      std::string quoted;
      for (const char c : path) {
        quoted += c;
        if (c == '\'') {
          quoted += '\'';
        }
      }
      FROTA_RETURN_IF_ERROR(db.Execute(fmt::format(
          "COPY ({}) TO '{}' (FORMAT parquet, COMPRESSION zstd)", table.query, quoted)));
      FROTA_ASSIGN_OR_RETURN(auto count,
                             db.Query(fmt::format("SELECT count(*) FROM ({})", table.query)));
      summary.rows_per_table.emplace_back(table.name, count.Int64(0, 0));
    }
  }
  return summary;
}

}  // namespace frota::sink
