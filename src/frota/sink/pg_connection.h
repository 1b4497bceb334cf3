// A thin RAII layer over libpq: connect, run statements, binary COPY in and out, pipelines.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"

struct pg_conn;
struct pg_result;

namespace frota::sink {

/// A parameter of a statement: text, bytes (bytea, sent in binary) or NULL.
struct PgParam {
  enum class Kind { kText, kBytes, kNull };
  static PgParam Text(std::string value) { return {Kind::kText, std::move(value)}; }
  static PgParam Int(std::int64_t value) { return {Kind::kText, std::to_string(value)}; }
  static PgParam Bool(bool value) { return {Kind::kText, value ? "t" : "f"}; }
  static PgParam Bytes(std::string value) { return {Kind::kBytes, std::move(value)}; }
  static PgParam Null() { return {Kind::kNull, {}}; }
  Kind kind;
  std::string value;
};

/// A query's result, freed on destruction. Values are text (binary for bytea columns
/// of queries run with binary results).
class PgResult {
 public:
  explicit PgResult(pg_result* result) : result_(result) {}
  ~PgResult();
  PgResult(PgResult&& other) noexcept : result_(other.result_) { other.result_ = nullptr; }
  PgResult& operator=(PgResult&& other) noexcept;
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;

  [[nodiscard]] int rows() const;
  [[nodiscard]] int columns() const;
  [[nodiscard]] bool IsNull(int row, int column) const;
  [[nodiscard]] std::string_view Value(int row, int column) const;
  [[nodiscard]] std::int64_t Int(int row, int column) const;

 private:
  pg_result* result_;
};

/// One connection to a PostgreSQL server.
///
/// Errors are classified for the caller: base::Error::Kind::kUnavailable when the server
/// cannot be reached or went away (connection failures, SQLSTATE class 08, shutdowns,
/// "cannot connect now", too many connections), and also for serialization failures and
/// deadlocks, which a retry of the whole transaction resolves; anything else (a bad
/// statement, a constraint) is kInternal or kInvalidInput. After an Unavailable error the
/// connection is broken(): open a new one.
///
/// Credentials: the DSN (or the standard PG* environment variables libpq reads) may hold
/// a password; no message produced here contains the DSN, only Describe() (host, port,
/// database, user). Not thread-safe.
class PgConnection {
 public:
  /// Connects, with the session settings frota relies on (UTC, no statement timeout,
  /// quiet notices).
  static base::Result<std::unique_ptr<PgConnection>> Open(const std::string& dsn);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  /// "host=... port=... dbname=... user=..." of a DSN, without its password (for logs).
  static std::string Describe(const std::string& dsn);

  /// Runs one or more statements (simple protocol), discarding results.
  base::Status Execute(std::string_view sql);
  /// Runs a statement with parameters $1..$n; bytea parameters are sent in binary.
  base::Result<PgResult> Query(std::string_view sql, const std::vector<PgParam>& params = {});

  /// `COPY ... FROM STDIN (FORMAT binary)` of `data` (a whole binary COPY stream).
  base::Status CopyIn(std::string_view copy_sql, std::string_view data);
  /// `COPY ... TO STDOUT`, the stream handed to `on_data` piece by piece as it arrives
  /// (pieces need not end at row boundaries); an error from `on_data` stops the copy.
  base::Status CopyOut(std::string_view copy_sql,
                       const std::function<base::Status(std::string_view)>& on_data);

  /// Runs the statements in one round trip (libpq pipeline mode); every statement's
  /// error is reported, the first one returned. Statements without parameters may be
  /// several separated by ';' only outside a pipeline, so each entry is one statement.
  base::Status Pipeline(
      const std::vector<std::pair<std::string, std::vector<PgParam>>>& statements);

  [[nodiscard]] bool broken() const;
  /// The SQLSTATE of the last statement that failed on the server ("" if none had one),
  /// e.g. "23505" (unique_violation) for a caller that handles that case itself.
  [[nodiscard]] const std::string& last_sqlstate() const { return last_sqlstate_; }
  [[nodiscard]] int server_version() const;
  [[nodiscard]] const std::string& description() const { return description_; }

 private:
  explicit PgConnection(pg_conn* conn, std::string description)
      : conn_(conn), description_(std::move(description)) {}
  base::Error ErrorFrom(pg_result* result, std::string_view what) const;
  base::Error ConnectionError(std::string_view what) const;

  pg_conn* conn_;
  std::string description_;
  mutable std::string last_sqlstate_;  // set by ErrorFrom
};

}  // namespace frota::sink
