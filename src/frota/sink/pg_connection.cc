#include "frota/sink/pg_connection.h"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <cstdlib>
#include <cstring>

namespace frota::sink {

namespace {

// SQLSTATEs after which the same transaction, retried on a new connection, can succeed.
bool RetryableState(std::string_view state) {
  return state.starts_with("08") ||  // connection exception
         state == "57P01" ||         // admin_shutdown
         state == "57P02" ||         // crash_shutdown
         state == "57P03" ||         // cannot_connect_now (starting up, shutting down)
         state == "53300" ||         // too_many_connections
         state == "40001" ||         // serialization_failure
         state == "40P01";           // deadlock_detected
}

std::string Trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
    text.pop_back();
  }
  // libpq messages span lines ("...\nDETAIL: ..."); keep them on one.
  for (auto& c : text) {
    if (c == '\n') {
      c = ' ';
    }
  }
  return text;
}

}  // namespace

PgResult::~PgResult() {
  if (result_ != nullptr) {
    PQclear(result_);
  }
}

PgResult& PgResult::operator=(PgResult&& other) noexcept {
  if (this != &other) {
    if (result_ != nullptr) {
      PQclear(result_);
    }
    result_ = other.result_;
    other.result_ = nullptr;
  }
  return *this;
}

int PgResult::rows() const { return result_ == nullptr ? 0 : PQntuples(result_); }
int PgResult::columns() const { return result_ == nullptr ? 0 : PQnfields(result_); }
bool PgResult::IsNull(int row, int column) const { return PQgetisnull(result_, row, column) == 1; }
std::string_view PgResult::Value(int row, int column) const {
  return {PQgetvalue(result_, row, column),
          static_cast<std::size_t>(PQgetlength(result_, row, column))};
}
std::int64_t PgResult::Int(int row, int column) const {
  return std::strtoll(PQgetvalue(result_, row, column), nullptr, 10);
}

std::string PgConnection::Describe(const std::string& dsn) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(dsn.c_str(), &error);
  if (options == nullptr) {
    if (error != nullptr) {
      PQfreemem(error);
    }
    return "an unparsable DSN";
  }
  std::string out;
  // Unset in the DSN: libpq takes it from the PG* environment (or its default).
  constexpr std::pair<const char*, const char*> kKeys[] = {{"host", "PGHOST"},
                                                           {"hostaddr", "PGHOSTADDR"},
                                                           {"port", "PGPORT"},
                                                           {"dbname", "PGDATABASE"},
                                                           {"user", "PGUSER"}};
  for (const auto& [key, env] : kKeys) {
    const char* value = nullptr;
    for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
      if (std::strcmp(o->keyword, key) == 0 && o->val != nullptr && *o->val != '\0') {
        value = o->val;
      }
    }
    if (value == nullptr) {
      value = std::getenv(env);
    }
    if (value != nullptr && *value != '\0') {
      out += fmt::format("{}{}={}", out.empty() ? "" : " ", key, value);
    }
  }
  PQconninfoFree(options);
  return out.empty() ? "libpq defaults" : out;
}

base::Result<std::unique_ptr<PgConnection>> PgConnection::Open(const std::string& dsn) {
  const std::string description = Describe(dsn);
  PGconn* conn = PQconnectdb(dsn.c_str());
  if (conn == nullptr) {
    return base::Unavailable("PostgreSQL ({}): out of memory connecting", description);
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = Trim(PQerrorMessage(conn));
    PQfinish(conn);
    // Authentication failures will not heal by waiting; everything else might.
    if (message.find("authentication failed") != std::string::npos ||
        message.find("does not exist") != std::string::npos) {
      return base::InvalidInput("PostgreSQL ({}): {}", description, message);
    }
    return base::Unavailable("PostgreSQL ({}) unreachable: {}", description, message);
  }
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  auto connection = std::unique_ptr<PgConnection>(new PgConnection(conn, description));
  FROTA_RETURN_IF_ERROR(connection->Execute(
      "SET TIME ZONE 'UTC'; SET statement_timeout = 0; SET client_min_messages = warning; "
      "SET application_name = 'frota'"));
  return connection;
}

PgConnection::~PgConnection() { PQfinish(conn_); }

bool PgConnection::broken() const { return PQstatus(conn_) != CONNECTION_OK; }
int PgConnection::server_version() const { return PQserverVersion(conn_); }

base::Error PgConnection::ConnectionError(std::string_view what) const {
  last_sqlstate_.clear();
  return base::Unavailable("PostgreSQL ({}) connection lost during {}: {}", description_, what,
                           Trim(PQerrorMessage(conn_)));
}

base::Error PgConnection::ErrorFrom(PGresult* result, std::string_view what) const {
  const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  last_sqlstate_ = state != nullptr ? state : "";
  const std::string message =
      Trim(result != nullptr ? PQresultErrorMessage(result) : PQerrorMessage(conn_));
  if (broken() || state == nullptr || RetryableState(state)) {
    return base::Unavailable("PostgreSQL ({}) {}: {}", description_, what, message);
  }
  return base::Internal("PostgreSQL {}: {} (SQLSTATE {})", what, message, state);
}

base::Status PgConnection::Execute(std::string_view sql) {
  const std::string text(sql);
  PGresult* result = PQexec(conn_, text.c_str());
  const auto status = PQresultStatus(result);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    auto error = ErrorFrom(result, "statement failed");
    PQclear(result);
    return error;
  }
  PQclear(result);
  return base::Status::Ok();
}

base::Result<PgResult> PgConnection::Query(std::string_view sql,
                                           const std::vector<PgParam>& params) {
  const std::string text(sql);
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;
  for (const auto& p : params) {
    values.push_back(p.kind == PgParam::Kind::kNull ? nullptr : p.value.data());
    lengths.push_back(static_cast<int>(p.value.size()));
    formats.push_back(p.kind == PgParam::Kind::kBytes ? 1 : 0);
  }
  PGresult* result =
      PQexecParams(conn_, text.c_str(), static_cast<int>(params.size()), nullptr, values.data(),
                   lengths.data(), formats.data(), /*resultFormat=*/0);
  const auto status = PQresultStatus(result);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    auto error = ErrorFrom(result, "query failed");
    PQclear(result);
    return error;
  }
  return PgResult(result);
}

base::Status PgConnection::CopyIn(std::string_view copy_sql, std::string_view data) {
  const std::string text(copy_sql);
  PGresult* start = PQexec(conn_, text.c_str());
  if (PQresultStatus(start) != PGRES_COPY_IN) {
    auto error = ErrorFrom(start, "COPY failed to start");
    PQclear(start);
    return error;
  }
  PQclear(start);
  constexpr std::size_t kChunk = 1 << 20;
  for (std::size_t at = 0; at < data.size(); at += kChunk) {
    const auto piece = data.substr(at, kChunk);
    if (PQputCopyData(conn_, piece.data(), static_cast<int>(piece.size())) != 1) {
      return ConnectionError("COPY");
    }
  }
  if (PQputCopyEnd(conn_, nullptr) != 1) {
    return ConnectionError("COPY");
  }
  base::Status status;
  while (PGresult* result = PQgetResult(conn_)) {
    if (PQresultStatus(result) != PGRES_COMMAND_OK && status.ok()) {
      status = ErrorFrom(result, "COPY failed");
    }
    PQclear(result);
  }
  return status;
}

base::Status PgConnection::CopyOut(std::string_view copy_sql,
                                   const std::function<base::Status(std::string_view)>& on_data) {
  const std::string text(copy_sql);
  PGresult* start = PQexec(conn_, text.c_str());
  if (PQresultStatus(start) != PGRES_COPY_OUT) {
    auto error = ErrorFrom(start, "COPY failed to start");
    PQclear(start);
    return error;
  }
  PQclear(start);
  base::Status status;
  while (true) {
    char* buffer = nullptr;
    const int n = PQgetCopyData(conn_, &buffer, /*async=*/0);
    if (n > 0) {
      if (status.ok()) {
        status = on_data(std::string_view(buffer, static_cast<std::size_t>(n)));
      }
      PQfreemem(buffer);
      continue;  // after an error, drain the rest: the connection stays usable
    }
    if (n == -2) {
      return ConnectionError("COPY");
    }
    break;  // -1: done
  }
  while (PGresult* result = PQgetResult(conn_)) {
    if (PQresultStatus(result) != PGRES_COMMAND_OK && status.ok()) {
      status = ErrorFrom(result, "COPY failed");
    }
    PQclear(result);
  }
  return status;
}

base::Status PgConnection::Pipeline(
    const std::vector<std::pair<std::string, std::vector<PgParam>>>& statements) {
  if (PQenterPipelineMode(conn_) != 1) {
    return ConnectionError("pipeline");
  }
  for (const auto& [sql, params] : statements) {
    std::vector<const char*> values;
    std::vector<int> lengths;
    std::vector<int> formats;
    for (const auto& p : params) {
      values.push_back(p.kind == PgParam::Kind::kNull ? nullptr : p.value.data());
      lengths.push_back(static_cast<int>(p.value.size()));
      formats.push_back(p.kind == PgParam::Kind::kBytes ? 1 : 0);
    }
    if (PQsendQueryParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr,
                          values.data(), lengths.data(), formats.data(), 0) != 1) {
      auto error = ConnectionError("pipeline");
      (void)PQexitPipelineMode(conn_);
      return error;
    }
  }
  if (PQpipelineSync(conn_) != 1) {
    return ConnectionError("pipeline");
  }
  // Results: one per statement, each followed by a NULL; then the sync's PGRES_PIPELINE_SYNC.
  // After an error the rest come back PGRES_PIPELINE_ABORTED.
  base::Status status;
  std::size_t seen = 0;
  while (true) {
    PGresult* result = PQgetResult(conn_);
    if (result == nullptr) {
      if (broken()) {
        return ConnectionError("pipeline");
      }
      continue;  // the end of one statement's results
    }
    const auto kind = PQresultStatus(result);
    if (kind == PGRES_PIPELINE_SYNC) {
      PQclear(result);
      break;
    }
    if (kind != PGRES_COMMAND_OK && kind != PGRES_TUPLES_OK && kind != PGRES_PIPELINE_ABORTED &&
        status.ok()) {
      status = ErrorFrom(result, fmt::format("statement {} of a pipeline failed", seen + 1));
    }
    ++seen;
    PQclear(result);
  }
  if (PQexitPipelineMode(conn_) != 1 && status.ok()) {
    return ConnectionError("pipeline");
  }
  return status;
}

}  // namespace frota::sink
