// `frota run --kafka BROKERS --topic T --group G --postgres DSN`: one member of a consumer
// group (docs/scale-out.md). Hooked into `frota run` (collect_command.cc).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/runner/kafka_runner.h"
#include "frota/sink/postgres_sink.h"

namespace frota::cli {

/// The flags of the Kafka consumer mode, beside the ones `frota run` already has
/// (--kafka, --topic, --postgres, --gtfs, --area, --garages, --time-zone, --epoch-seconds).
struct KafkaRunFlags {
  std::string group;
  bool until_end = false;
  std::string report;
  std::int64_t epoch_records = 200'000;
  double session_timeout_s = 10;
  std::vector<std::string> kafka_properties;
  double kafka_wait_s = 120;
  double postgres_wait_s = 600;
  std::size_t threads = 0;          // 0: one per core
  std::vector<std::string> faults;  // --fault KEY=VALUE (ParseFaults)
  std::string alerts_topic;         // the regularity follower's alerts, also on Kafka
};

void AddKafkaRunFlags(CLI::App* sub, KafkaRunFlags& flags);

/// The fault injection `--fault KEY=VALUE` asks for (docs/scale-out.md "Test hooks"),
/// into the runner's and the sink's options, where the product code reads it:
///   pg-pause-before-commit-ms=N  sink::PostgresSinkOptions::pause_before_commit
///   rebalance-pause-ms=N         runner::KafkaRunFaults::rebalance_pause
///   messages-per-second=N        runner::KafkaRunFaults::messages_per_second (N >= 10)
/// An unknown key or a value that is not a whole number in range is an InvalidInput
/// error naming the flag.
base::Status ParseFaults(const std::vector<std::string>& faults, runner::KafkaRunFaults& runner,
                         sink::PostgresSinkOptions& sink);

/// What `frota run` passes on from its own flags.
struct KafkaRunSource {
  std::string brokers;
  std::string topic;
  std::string postgres;
  std::string gtfs;
  std::string area;
  std::string garages;
  std::string time_zone;
  double epoch_seconds = 0;        // 0: 2 s
  std::vector<std::string> rules;  // --rule KEY=VALUE
  runner::RetentionPolicy retention;
  std::string metrics;  // --metrics HOST:PORT: /metrics and /healthz
};

int RunKafkaConsumer(const KafkaRunSource& source, const KafkaRunFlags& flags);

}  // namespace frota::cli
