// A query's result streamed chunk by chunk, for readers that go through every row of a table.
#pragma once

#include <duckdb.h>

#include <memory>
#include <string>
#include <string_view>

#include "frota/base/status.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::sink {

/// Streams a query's result chunk by chunk (the bulk path: no per-value conversion): only
/// the chunk at hand is in memory, not the whole result. While it is open the connection
/// runs nothing else.
class ChunkReader {
 public:
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;
  ~ChunkReader() {
    if (chunk_ != nullptr) {
      duckdb_destroy_data_chunk(&chunk_);
    }
    duckdb_destroy_result(&result_);
    duckdb_destroy_pending(&pending_);
    duckdb_destroy_prepare(&statement_);
  }
  static base::Result<std::unique_ptr<ChunkReader>> Run(sink::DuckDbConnection& db,
                                                        const std::string& sql) {
    std::unique_ptr<ChunkReader> reader(new ChunkReader());
    if (duckdb_prepare(db.raw(), sql.c_str(), &reader->statement_) == DuckDBError) {
      return base::Internal("{}: {}", db.path(), duckdb_prepare_error(reader->statement_));
    }
    if (duckdb_pending_prepared_streaming(reader->statement_, &reader->pending_) == DuckDBError) {
      return base::Internal("{}: {}", db.path(), duckdb_pending_error(reader->pending_));
    }
    if (duckdb_execute_pending(reader->pending_, &reader->result_) == DuckDBError) {
      return base::Internal("{}: {}", db.path(), duckdb_result_error(&reader->result_));
    }
    return reader;
  }
  // Advances to the next chunk; false at the end.
  bool Next() {
    if (chunk_ != nullptr) {
      duckdb_destroy_data_chunk(&chunk_);
    }
    chunk_ = duckdb_fetch_chunk(result_);
    return chunk_ != nullptr;
  }
  /// The error that ended the result early, if any (Next() returned false on it).
  [[nodiscard]] base::Status status() {
    const char* error = duckdb_result_error(&result_);
    if (error != nullptr) {
      return base::Internal("{}", error);
    }
    return base::Status::Ok();
  }
  [[nodiscard]] std::size_t columns() { return duckdb_column_count(&result_); }
  [[nodiscard]] const char* ColumnName(std::size_t column) {
    return duckdb_column_name(&result_, column);
  }
  [[nodiscard]] duckdb_type ColumnType(std::size_t column) {
    return duckdb_column_type(&result_, column);
  }
  /// The current chunk's rows.
  [[nodiscard]] std::size_t size() const { return duckdb_data_chunk_get_size(chunk_); }
  [[nodiscard]] duckdb_vector Vector(std::size_t column) const {
    return duckdb_data_chunk_get_vector(chunk_, column);
  }
  template <typename T>
  const T* Column(std::size_t column) const {
    return static_cast<const T*>(duckdb_vector_get_data(Vector(column)));
  }
  std::string_view Text(std::size_t column, std::size_t row) const {
    auto* s = &Column<duckdb_string_t>(column)[row];
    // duckdb_string_t_data needs a mutable pointer; it does not write.
    return {duckdb_string_t_data(const_cast<duckdb_string_t*>(s)), duckdb_string_t_length(*s)};
  }

 private:
  ChunkReader() = default;
  duckdb_prepared_statement statement_ = nullptr;
  duckdb_pending_result pending_ = nullptr;
  duckdb_result result_{};
  duckdb_data_chunk chunk_ = nullptr;
};

}  // namespace frota::sink
