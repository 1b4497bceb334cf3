// Real Kafka and PostgreSQL for the scale-out tests: the ones scripts/services/ started for
// the whole run, and private ones a test may restart or stop without disturbing others.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "frota/testing/subprocess.h"

namespace frota::testing {

/// What scripts/services/with-services.sh exports. Tests that need it FAIL without it
/// (CI always starts the services): kNoServices says how to run them.
struct ServiceEnv {
  std::string brokers;     // KAFKA_BROKERS
  std::string kafka_dir;   // FROTA_TEST_KAFKA_DIR
  std::string pg_dsn;      // FROTA_TEST_PG_DSN
  std::string pg_dir;      // FROTA_TEST_PG_DIR
  std::string scripts;     // FROTA_TEST_SERVICES_SCRIPTS
};
std::optional<ServiceEnv> ReadServiceEnv();
inline constexpr const char* kNoServices =
    "KAFKA_BROKERS, FROTA_TEST_KAFKA_DIR, FROTA_TEST_PG_DSN, FROTA_TEST_PG_DIR and "
    "FROTA_TEST_SERVICES_SCRIPTS must be set: run under scripts/services/with-services.sh "
    "(scripts/test.sh and .ci/run do)";

/// Runs scripts/services/<script> with arguments; the result's out holds its stdout.
ProcessResult RunServiceScript(const ServiceEnv& env, const std::string& script,
                               const std::vector<std::string>& args);

/// Creates `topic` with `partitions` on the broker whose folder is `kafka_dir`.
bool CreateTopic(const ServiceEnv& env, const std::string& kafka_dir, const std::string& topic,
                 int partitions, std::string* error = nullptr);

/// A broker of the test's own (kafka.sh start DIR), stopped by the destructor.
class OwnKafka {
 public:
  OwnKafka(const ServiceEnv& env, std::filesystem::path dir);
  ~OwnKafka();
  OwnKafka(const OwnKafka&) = delete;
  OwnKafka& operator=(const OwnKafka&) = delete;
  [[nodiscard]] bool ok() const { return !brokers_.empty(); }
  [[nodiscard]] const std::string& brokers() const { return brokers_; }
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
  bool Restart();
  bool Stop();
  bool Start();

 private:
  ServiceEnv env_;
  std::filesystem::path dir_;
  std::string brokers_;
  std::string error_;
};

/// A PostgreSQL server of the test's own (postgres.sh start DIR), stopped by the
/// destructor; Pause()/Resume() take it down and bring it back on the same port and data.
class OwnPostgres {
 public:
  OwnPostgres(const ServiceEnv& env, std::filesystem::path dir);
  ~OwnPostgres();
  OwnPostgres(const OwnPostgres&) = delete;
  OwnPostgres& operator=(const OwnPostgres&) = delete;
  [[nodiscard]] bool ok() const { return !dsn_.empty(); }
  [[nodiscard]] const std::string& dsn() const { return dsn_; }
  [[nodiscard]] const std::string& error() const { return error_; }
  bool Pause();
  bool Resume();

 private:
  ServiceEnv env_;
  std::filesystem::path dir_;
  std::string dsn_;
  std::string error_;
};

/// The value of `KEY=` on a line of `text` (the scripts print KEY=VALUE lines).
std::string ValueOf(const std::string& text, const std::string& key);

}  // namespace frota::testing
