// A thin RAII layer over DuckDB's C API: database, connection, queries, bulk appends.
#pragma once

#include <duckdb.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"

namespace frota::sink {

/// `text` as an SQL string literal ('it''s'), for DuckDB and PostgreSQL alike.
std::string SqlStringLiteral(std::string_view text);

/// A value bound to a prepared statement's parameter.
struct SqlParam {
  enum class Kind { kText, kBlob, kInt64, kNull };
  static SqlParam Text(std::string_view v) { return {Kind::kText, v, 0}; }
  static SqlParam Blob(std::string_view v) { return {Kind::kBlob, v, 0}; }
  static SqlParam Int64(std::int64_t v) { return {Kind::kInt64, {}, v}; }
  static SqlParam Null() { return {Kind::kNull, {}, 0}; }
  Kind kind;
  std::string_view bytes;
  std::int64_t integer;
};

/// A materialised query result with typed accessors (row, column); frees itself.
class DuckDbResult {
 public:
  DuckDbResult() = default;
  explicit DuckDbResult(duckdb_result result) : result_(result), valid_(true) {}
  ~DuckDbResult();
  DuckDbResult(DuckDbResult&& other) noexcept;
  DuckDbResult& operator=(DuckDbResult&& other) noexcept;
  DuckDbResult(const DuckDbResult&) = delete;
  DuckDbResult& operator=(const DuckDbResult&) = delete;

  [[nodiscard]] std::size_t rows();
  [[nodiscard]] std::size_t columns();
  [[nodiscard]] std::string ColumnName(std::size_t column);
  [[nodiscard]] duckdb_type ColumnType(std::size_t column);
  [[nodiscard]] bool IsNull(std::size_t row, std::size_t column);
  [[nodiscard]] std::int64_t Int64(std::size_t row, std::size_t column);
  [[nodiscard]] double Double(std::size_t row, std::size_t column);
  [[nodiscard]] bool Bool(std::size_t row, std::size_t column);
  [[nodiscard]] std::string String(std::size_t row, std::size_t column);
  [[nodiscard]] std::string Blob(std::size_t row, std::size_t column);
  /// TIMESTAMP as microseconds since the epoch; DATE as days since the epoch.
  [[nodiscard]] std::int64_t TimestampMicros(std::size_t row, std::size_t column);
  [[nodiscard]] std::int32_t DateDays(std::size_t row, std::size_t column);

 private:
  duckdb_result result_{};
  bool valid_ = false;
};

/// One connection to a DuckDB database file (or in-memory with an empty path).
///
/// Owns the database handle; not thread-safe (one thread uses it at a time).
class DuckDbConnection {
 public:
  /// Opens (creating if needed) the database file. A file that is not a DuckDB database,
  /// or a database written by a newer DuckDB, is a clear error naming the path.
  static base::Result<std::unique_ptr<DuckDbConnection>> Open(const std::filesystem::path& path,
                                                              bool read_only = false);
  ~DuckDbConnection();
  DuckDbConnection(const DuckDbConnection&) = delete;
  DuckDbConnection& operator=(const DuckDbConnection&) = delete;

  /// Another connection to this connection's database, for a reader beside the writer
  /// in one process (DuckDB lets one process open a file once). It does not own the
  /// database: `this` must outlive it.
  base::Result<std::unique_ptr<DuckDbConnection>> Connect();

  /// Runs one or more statements, discarding results.
  base::Status Execute(std::string_view sql);
  /// Runs a query and returns its materialised result.
  base::Result<DuckDbResult> Query(std::string_view sql);
  /// Runs `sql` with parameters $1, $2, ... bound in order.
  base::Status ExecuteWith(std::string_view sql, const std::vector<SqlParam>& params);

  [[nodiscard]] duckdb_connection raw() const { return connection_; }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  DuckDbConnection() = default;
  duckdb_database database_ = nullptr;
  duckdb_connection connection_ = nullptr;
  bool owns_database_ = true;
  std::string path_;
};

/// Column types a ChunkAppender writes.
enum class ColumnType {
  kVarchar,
  kBigint,
  kInteger,
  kTinyint,
  kDouble,
  kFloat,
  kBoolean,
  kTimestamp,
  kDate,
  kSmallint,
  kUtinyint
};

/// Appends rows to a table through DuckDB's data-chunk appender (the bulk path): values
/// go straight into column vectors, 2048 rows per chunk.
///
/// Usage per row: Set...(column, value) for each column (or SetNull), then EndRow().
/// Close() (or the destructor) flushes. Appends join the connection's open transaction.
class ChunkAppender {
 public:
  static base::Result<std::unique_ptr<ChunkAppender>> Create(DuckDbConnection& connection,
                                                             std::string_view table,
                                                             std::vector<ColumnType> columns);
  ~ChunkAppender();
  ChunkAppender(const ChunkAppender&) = delete;
  ChunkAppender& operator=(const ChunkAppender&) = delete;

  // Inline: a replay sets a dozen values for each of millions of rows, and a call per
  // value (three into DuckDB per NULL) cost the sink's thread several percent.
  void SetString(std::size_t column, std::string_view value);
  void SetInt64(std::size_t column, std::int64_t value) {
    Data<std::int64_t>(column)[row_] = value;
  }
  void SetInt32(std::size_t column, std::int32_t value) {
    Data<std::int32_t>(column)[row_] = value;
  }
  void SetInt16(std::size_t column, std::int16_t value) {
    Data<std::int16_t>(column)[row_] = value;
  }
  void SetInt8(std::size_t column, std::int8_t value) { Data<std::int8_t>(column)[row_] = value; }
  void SetUInt8(std::size_t column, std::uint8_t value) {
    Data<std::uint8_t>(column)[row_] = value;
  }
  void SetDouble(std::size_t column, double value) { Data<double>(column)[row_] = value; }
  void SetFloat(std::size_t column, float value) { Data<float>(column)[row_] = value; }
  void SetBool(std::size_t column, bool value) { Data<bool>(column)[row_] = value; }
  void SetTimestampMicros(std::size_t column, std::int64_t micros) {
    Data<duckdb_timestamp>(column)[row_] = duckdb_timestamp{micros};
  }
  void SetDateDays(std::size_t column, std::int32_t days) {
    Data<duckdb_date>(column)[row_] = duckdb_date{days};
  }
  /// The row's value in `column` is NULL: its bit in the column's validity mask (one
  /// bit per row, 64 rows per word, DuckDB's layout), the mask made writable once per
  /// chunk.
  void SetNull(std::size_t column) {
    std::uint64_t* mask = validity_[column];
    if (mask == nullptr) {
      mask = WritableValidity(column);
    }
    mask[row_ / 64] &= ~(std::uint64_t{1} << (row_ % 64));
  }
  /// Finishes the row; appends the chunk when it is full.
  base::Status EndRow();
  /// Appends what is buffered and flushes the appender.
  base::Status Close();

 private:
  ChunkAppender() = default;
  base::Status AppendChunk();
  std::uint64_t* WritableValidity(std::size_t column);
  template <typename T>
  T* Data(std::size_t column) {
    return static_cast<T*>(data_[column]);
  }

  std::string table_;
  duckdb_appender appender_ = nullptr;
  std::vector<duckdb_logical_type> types_;
  duckdb_data_chunk chunk_ = nullptr;
  std::vector<duckdb_vector> vectors_;
  std::vector<void*> data_;
  // Per column: its validity mask once made writable in this chunk, else nullptr.
  std::vector<std::uint64_t*> validity_;
  static constexpr std::size_t kChunksPerFlush = 60;  // x 2,048 rows: a row group
  std::size_t row_ = 0;
  std::size_t capacity_ = 0;
  std::size_t chunks_since_flush_ = 0;
  bool closed_ = false;
};

}  // namespace frota::sink
