#include "frota/sink/duckdb_connection.h"

#include <cstring>
#include <utility>

namespace frota::sink {

std::string SqlStringLiteral(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    out += c;
    if (c == '\'') {
      out += '\'';
    }
  }
  return out + "'";
}

DuckDbResult::~DuckDbResult() {
  if (valid_) {
    duckdb_destroy_result(&result_);
  }
}

DuckDbResult::DuckDbResult(DuckDbResult&& other) noexcept
    : result_(other.result_), valid_(std::exchange(other.valid_, false)) {}

DuckDbResult& DuckDbResult::operator=(DuckDbResult&& other) noexcept {
  if (this != &other) {
    if (valid_) {
      duckdb_destroy_result(&result_);
    }
    result_ = other.result_;
    valid_ = std::exchange(other.valid_, false);
  }
  return *this;
}

std::size_t DuckDbResult::rows() { return valid_ ? duckdb_row_count(&result_) : 0; }
std::size_t DuckDbResult::columns() { return valid_ ? duckdb_column_count(&result_) : 0; }
std::string DuckDbResult::ColumnName(std::size_t column) {
  return duckdb_column_name(&result_, column);
}
duckdb_type DuckDbResult::ColumnType(std::size_t column) {
  return duckdb_column_type(&result_, column);
}
bool DuckDbResult::IsNull(std::size_t row, std::size_t column) {
  return duckdb_value_is_null(&result_, column, row);
}
std::int64_t DuckDbResult::Int64(std::size_t row, std::size_t column) {
  return duckdb_value_int64(&result_, column, row);
}
double DuckDbResult::Double(std::size_t row, std::size_t column) {
  return duckdb_value_double(&result_, column, row);
}
bool DuckDbResult::Bool(std::size_t row, std::size_t column) {
  return duckdb_value_boolean(&result_, column, row);
}
std::string DuckDbResult::String(std::size_t row, std::size_t column) {
  char* value = duckdb_value_varchar(&result_, column, row);
  if (value == nullptr) {
    return {};
  }
  std::string out(value);
  duckdb_free(value);
  return out;
}
std::string DuckDbResult::Blob(std::size_t row, std::size_t column) {
  duckdb_blob blob = duckdb_value_blob(&result_, column, row);
  std::string out(static_cast<const char*>(blob.data), blob.size);
  duckdb_free(blob.data);
  return out;
}
std::int64_t DuckDbResult::TimestampMicros(std::size_t row, std::size_t column) {
  return duckdb_value_timestamp(&result_, column, row).micros;
}
std::int32_t DuckDbResult::DateDays(std::size_t row, std::size_t column) {
  return duckdb_value_date(&result_, column, row).days;
}

base::Result<std::unique_ptr<DuckDbConnection>> DuckDbConnection::Open(
    const std::filesystem::path& path, bool read_only) {
  std::unique_ptr<DuckDbConnection> connection(new DuckDbConnection());
  connection->path_ = path.string();
  duckdb_config config = nullptr;
  if (duckdb_create_config(&config) == DuckDBError) {
    return base::Internal("cannot create a DuckDB configuration");
  }
  if (read_only) {
    duckdb_set_config(config, "access_mode", "READ_ONLY");
  }
  char* error = nullptr;
  const std::string db_path = path.empty() ? std::string() : path.string();
  const auto state = duckdb_open_ext(db_path.empty() ? nullptr : db_path.c_str(),
                                     &connection->database_, config, &error);
  duckdb_destroy_config(&config);
  if (state == DuckDBError) {
    std::string message = error != nullptr ? error : "unknown error";
    duckdb_free(error);
    return base::InvalidInput("{}: cannot open as a DuckDB database: {}", path.string(), message);
  }
  if (duckdb_connect(connection->database_, &connection->connection_) == DuckDBError) {
    return base::Internal("{}: cannot connect to the DuckDB database", path.string());
  }
  return connection;
}

base::Result<std::unique_ptr<DuckDbConnection>> DuckDbConnection::Connect() {
  std::unique_ptr<DuckDbConnection> connection(new DuckDbConnection());
  connection->path_ = path_;
  connection->database_ = database_;
  connection->owns_database_ = false;
  if (duckdb_connect(database_, &connection->connection_) == DuckDBError) {
    return base::Internal("{}: cannot open another connection to the DuckDB database", path_);
  }
  return connection;
}

DuckDbConnection::~DuckDbConnection() {
  if (connection_ != nullptr) {
    duckdb_disconnect(&connection_);
  }
  if (database_ != nullptr && owns_database_) {
    duckdb_close(&database_);
  }
}

base::Status DuckDbConnection::Execute(std::string_view sql) {
  duckdb_result result;
  const std::string text(sql);
  if (duckdb_query(connection_, text.c_str(), &result) == DuckDBError) {
    std::string message = duckdb_result_error(&result);
    duckdb_destroy_result(&result);
    return base::Internal("{}: {}", path_, message);
  }
  duckdb_destroy_result(&result);
  return base::Status::Ok();
}

base::Result<DuckDbResult> DuckDbConnection::Query(std::string_view sql) {
  duckdb_result result;
  const std::string text(sql);
  if (duckdb_query(connection_, text.c_str(), &result) == DuckDBError) {
    std::string message = duckdb_result_error(&result);
    duckdb_destroy_result(&result);
    return base::Internal("{}: {}", path_, message);
  }
  return DuckDbResult(result);
}

base::Status DuckDbConnection::ExecuteWith(std::string_view sql,
                                           const std::vector<SqlParam>& params) {
  duckdb_prepared_statement statement = nullptr;
  const std::string text(sql);
  if (duckdb_prepare(connection_, text.c_str(), &statement) == DuckDBError) {
    std::string message = duckdb_prepare_error(statement);
    duckdb_destroy_prepare(&statement);
    return base::Internal("{}: {}", path_, message);
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto& param = params[i];
    const idx_t index = i + 1;
    switch (param.kind) {
      case SqlParam::Kind::kText:
        duckdb_bind_varchar_length(statement, index, param.bytes.data(), param.bytes.size());
        break;
      case SqlParam::Kind::kBlob:
        duckdb_bind_blob(statement, index, param.bytes.data(), param.bytes.size());
        break;
      case SqlParam::Kind::kInt64:
        duckdb_bind_int64(statement, index, param.integer);
        break;
      case SqlParam::Kind::kNull:
        duckdb_bind_null(statement, index);
        break;
    }
  }
  duckdb_result result;
  const auto state = duckdb_execute_prepared(statement, &result);
  std::string message = state == DuckDBError ? duckdb_result_error(&result) : "";
  duckdb_destroy_result(&result);
  duckdb_destroy_prepare(&statement);
  if (state == DuckDBError) {
    return base::Internal("{}: {}", path_, message);
  }
  return base::Status::Ok();
}

namespace {
duckdb_type ToDuckDbType(ColumnType type) {
  switch (type) {
    case ColumnType::kVarchar:
      return DUCKDB_TYPE_VARCHAR;
    case ColumnType::kBigint:
      return DUCKDB_TYPE_BIGINT;
    case ColumnType::kInteger:
      return DUCKDB_TYPE_INTEGER;
    case ColumnType::kSmallint:
      return DUCKDB_TYPE_SMALLINT;
    case ColumnType::kTinyint:
      return DUCKDB_TYPE_TINYINT;
    case ColumnType::kDouble:
      return DUCKDB_TYPE_DOUBLE;
    case ColumnType::kFloat:
      return DUCKDB_TYPE_FLOAT;
    case ColumnType::kBoolean:
      return DUCKDB_TYPE_BOOLEAN;
    case ColumnType::kTimestamp:
      return DUCKDB_TYPE_TIMESTAMP;
    case ColumnType::kDate:
      return DUCKDB_TYPE_DATE;
    case ColumnType::kUtinyint:
      return DUCKDB_TYPE_UTINYINT;
  }
  return DUCKDB_TYPE_VARCHAR;
}
}  // namespace

base::Result<std::unique_ptr<ChunkAppender>> ChunkAppender::Create(
    DuckDbConnection& connection, std::string_view table, std::vector<ColumnType> columns) {
  std::unique_ptr<ChunkAppender> appender(new ChunkAppender());
  appender->table_ = std::string(table);
  if (duckdb_appender_create(connection.raw(), nullptr, appender->table_.c_str(),
                             &appender->appender_) == DuckDBError) {
    std::string message = duckdb_appender_error(appender->appender_);
    return base::Internal("cannot append to table {}: {}", table, message);
  }
  for (const auto column : columns) {
    appender->types_.push_back(duckdb_create_logical_type(ToDuckDbType(column)));
  }
  appender->chunk_ = duckdb_create_data_chunk(appender->types_.data(), appender->types_.size());
  appender->capacity_ = duckdb_vector_size();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    duckdb_vector vector = duckdb_data_chunk_get_vector(appender->chunk_, i);
    appender->vectors_.push_back(vector);
    appender->data_.push_back(duckdb_vector_get_data(vector));
  }
  appender->validity_.assign(columns.size(), nullptr);
  return appender;
}

ChunkAppender::~ChunkAppender() {
  if (!closed_) {
    (void)Close();
  }
  if (chunk_ != nullptr) {
    duckdb_destroy_data_chunk(&chunk_);
  }
  for (auto& type : types_) {
    duckdb_destroy_logical_type(&type);
  }
  if (appender_ != nullptr) {
    duckdb_appender_destroy(&appender_);
  }
}

void ChunkAppender::SetString(std::size_t column, std::string_view value) {
  duckdb_vector_assign_string_element_len(vectors_[column], row_, value.data(), value.size());
}

std::uint64_t* ChunkAppender::WritableValidity(std::size_t column) {
  duckdb_vector_ensure_validity_writable(vectors_[column]);
  validity_[column] = duckdb_vector_get_validity(vectors_[column]);
  return validity_[column];
}

base::Status ChunkAppender::EndRow() {
  ++row_;
  if (row_ == capacity_) {
    return AppendChunk();
  }
  return base::Status::Ok();
}

base::Status ChunkAppender::AppendChunk() {
  if (row_ == 0) {
    return base::Status::Ok();
  }
  duckdb_data_chunk_set_size(chunk_, row_);
  if (duckdb_append_data_chunk(appender_, chunk_) == DuckDBError) {
    return base::Internal("appending to {} failed: {}", table_, duckdb_appender_error(appender_));
  }
  // DuckDB's appender gathers chunks in a collection of its own until it is flushed:
  // flush every row group's worth (DuckDB's 122,880 rows), so an epoch of a million rows
  // is not held twice in memory, and each flush is a whole row group for the table.
  if (++chunks_since_flush_ == kChunksPerFlush) {
    chunks_since_flush_ = 0;
    if (duckdb_appender_flush(appender_) == DuckDBError) {
      return base::Internal("flushing {} failed: {}", table_, duckdb_appender_error(appender_));
    }
  }
  duckdb_data_chunk_reset(chunk_);
  // Reset invalidates validity masks and may move data buffers: refetch them.
  for (std::size_t i = 0; i < vectors_.size(); ++i) {
    vectors_[i] = duckdb_data_chunk_get_vector(chunk_, i);
    data_[i] = duckdb_vector_get_data(vectors_[i]);
    validity_[i] = nullptr;
  }
  row_ = 0;
  return base::Status::Ok();
}

base::Status ChunkAppender::Close() {
  closed_ = true;
  FROTA_RETURN_IF_ERROR(AppendChunk());
  if (duckdb_appender_flush(appender_) == DuckDBError) {
    return base::Internal("flushing {} failed: {}", table_, duckdb_appender_error(appender_));
  }
  return base::Status::Ok();
}

}  // namespace frota::sink
