// A throwaway PostgreSQL database for a test, on the server scripts/services/ started.
#pragma once

#include <string>

namespace frota::sink::testing {

/// The server's DSN from FROTA_TEST_PG_DSN (set by scripts/services/with-services.sh).
/// Empty when unset: tests then FAIL (CI always starts the services), saying how to run.
std::string ServerDsn();
inline constexpr const char* kNoServerMessage =
    "FROTA_TEST_PG_DSN is not set: run this test under scripts/services/with-services.sh "
    "(scripts/test.sh does)";

/// `dsn` with its database replaced by `database` (URI or key=value form).
std::string WithDatabase(const std::string& dsn, const std::string& database);

/// Creates a new empty database with a unique name on the server of `server_dsn` and
/// drops it (FORCE) on destruction; `dsn()` connects to it.
class TestDatabase {
 public:
  TestDatabase(const std::string& server_dsn, const std::string& label);
  ~TestDatabase();
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;
  [[nodiscard]] const std::string& dsn() const { return dsn_; }
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  std::string server_dsn_;
  std::string name_;
  std::string dsn_;
  bool ok_ = false;
  std::string error_;
};

}  // namespace frota::sink::testing
