// `frota run --kafka BROKERS --topic T --group G --postgres DSN`: one member of a consumer
// group (docs/scale-out.md). Hooked into `frota run` (collect_command.cc).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace frota::cli {

/// The flags of the Kafka consumer mode, beside the ones `frota run` already has
/// (--kafka, --topic, --postgres, --gtfs, --area, --time-zone, --epoch-seconds).
struct KafkaRunFlags {
  std::string group;
  bool until_end = false;
  std::string report;
  std::int64_t epoch_records = 200'000;
  double session_timeout_s = 10;
  std::vector<std::string> kafka_properties;
  double kafka_wait_s = 120;
  double postgres_wait_s = 600;
  std::size_t threads = 0;  // 0: one per core
};

void AddKafkaRunFlags(CLI::App* sub, KafkaRunFlags& flags);

/// What `frota run` passes on from its own flags.
struct KafkaRunSource {
  std::string brokers;
  std::string topic;
  std::string postgres;
  std::string gtfs;
  std::string area;
  std::string time_zone;
  double epoch_seconds = 0;        // 0: 2 s
  std::vector<std::string> rules;  // --rule KEY=VALUE
};

int RunKafkaConsumer(const KafkaRunSource& source, const KafkaRunFlags& flags);

}  // namespace frota::cli
