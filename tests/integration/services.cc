#include "services.h"

#include <cstdlib>
#include <sstream>

namespace frota::testing {

namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

std::optional<ServiceEnv> ReadServiceEnv() {
  ServiceEnv env{Env("KAFKA_BROKERS"), Env("FROTA_TEST_KAFKA_DIR"), Env("FROTA_TEST_PG_DSN"),
                 Env("FROTA_TEST_PG_DIR"), Env("FROTA_TEST_SERVICES_SCRIPTS")};
  if (env.brokers.empty() || env.kafka_dir.empty() || env.pg_dsn.empty() || env.pg_dir.empty() ||
      env.scripts.empty()) {
    return std::nullopt;
  }
  return env;
}

ProcessResult RunServiceScript(const ServiceEnv& env, const std::string& script,
                               const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/bin/bash", env.scripts + "/" + script};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv);
}

std::string ValueOf(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string line;
  std::string found;
  while (std::getline(lines, line)) {
    if (line.rfind(key + "=", 0) == 0) {
      found = line.substr(key.size() + 1);
    }
  }
  return found;
}

bool CreateTopic(const ServiceEnv& env, const std::string& kafka_dir, const std::string& topic,
                 int partitions, std::string* error) {
  const auto r = RunServiceScript(env, "kafka.sh", {"topic", kafka_dir, topic,
                                                    std::to_string(partitions)});
  if (r.exit_code != 0 && error != nullptr) {
    *error = r.out + r.err;
  }
  return r.exit_code == 0;
}

OwnKafka::OwnKafka(const ServiceEnv& env, std::filesystem::path dir)
    : env_(env), dir_(std::move(dir)) {
  Start();
}

bool OwnKafka::Start() {
  const auto r = RunServiceScript(env_, "kafka.sh", {"start", dir_.string()});
  brokers_ = ValueOf(r.out, "KAFKA_BROKERS");
  if (r.exit_code != 0 || brokers_.empty()) {
    error_ = r.out + r.err;
    brokers_.clear();
    return false;
  }
  return true;
}

bool OwnKafka::Restart() {
  return RunServiceScript(env_, "kafka.sh", {"restart", dir_.string()}).exit_code == 0;
}

bool OwnKafka::Stop() {
  return RunServiceScript(env_, "kafka.sh", {"stop", dir_.string()}).exit_code == 0;
}

OwnKafka::~OwnKafka() {
  if (ok()) {
    Stop();
  }
}

OwnPostgres::OwnPostgres(const ServiceEnv& env, std::filesystem::path dir)
    : env_(env), dir_(std::move(dir)) {
  const auto r = RunServiceScript(env_, "postgres.sh", {"start", dir_.string()});
  dsn_ = ValueOf(r.out, "FROTA_TEST_PG_DSN");
  if (r.exit_code != 0 || dsn_.empty()) {
    error_ = r.out + r.err;
    dsn_.clear();
  }
}

bool OwnPostgres::Pause() {
  return RunServiceScript(env_, "postgres.sh", {"pause", dir_.string()}).exit_code == 0;
}

bool OwnPostgres::Resume() {
  return RunServiceScript(env_, "postgres.sh", {"resume", dir_.string()}).exit_code == 0;
}

OwnPostgres::~OwnPostgres() {
  if (ok()) {
    RunServiceScript(env_, "postgres.sh", {"stop", dir_.string()});
  }
}

}  // namespace frota::testing
