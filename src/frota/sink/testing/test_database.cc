#include "frota/sink/testing/test_database.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>

#include "frota/sink/pg_connection.h"

namespace frota::sink::testing {

std::string ServerDsn() {
  const char* dsn = std::getenv("FROTA_TEST_PG_DSN");
  return dsn == nullptr ? std::string() : std::string(dsn);
}

std::string WithDatabase(const std::string& dsn, const std::string& database) {
  for (const std::string_view scheme : {"postgresql://", "postgres://"}) {
    if (dsn.starts_with(scheme)) {
      const auto authority_end = dsn.find('/', scheme.size());
      const auto query = dsn.find('?', scheme.size());
      const std::string head = dsn.substr(
          0, authority_end != std::string::npos ? authority_end : std::min(query, dsn.size()));
      const std::string tail = query != std::string::npos ? dsn.substr(query) : "";
      return head + "/" + database + tail;
    }
  }
  return dsn + " dbname=" + database;  // key=value: the last one wins
}

TestDatabase::TestDatabase(const std::string& server_dsn, const std::string& label)
    : server_dsn_(server_dsn) {
  static std::atomic<int> counter{0};
  name_ = fmt::format("frota_test_{}_{}_{}_{}", label, ::getpid(), counter++,
                      std::chrono::steady_clock::now().time_since_epoch().count() % 100000);
  dsn_ = WithDatabase(server_dsn, name_);
  auto admin = PgConnection::Open(server_dsn);
  if (!admin.ok()) {
    error_ = admin.error().message();
    return;
  }
  const auto created = (*admin)->Execute(fmt::format("CREATE DATABASE {}", name_));
  if (!created.ok()) {
    error_ = created.error().message();
    return;
  }
  ok_ = true;
}

TestDatabase::~TestDatabase() {
  if (!ok_ || std::getenv("FROTA_KEEP_TEST_DATABASES") != nullptr) {
    return;
  }
  auto admin = PgConnection::Open(server_dsn_);
  if (admin.ok()) {
    (void)(*admin)->Execute(fmt::format("DROP DATABASE IF EXISTS {} WITH (FORCE)", name_));
  }
}

}  // namespace frota::sink::testing
