#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "frota/base/file.h"
#include "frota/base/run_id.h"
#include "frota/cli/alerts_topic.h"
#include "frota/cli/commands.h"
#include "frota/runner/kafka_runner.h"
#include "frota/runner/replay_runner.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/sink/postgres_sink.h"
#include "frota/transport/producer.h"

namespace frota::cli {

namespace {

struct ReplayFlags {
  runner::ReplayConfig config;
  std::string db = "frota.duckdb";
  sink::DuckDbSinkOptions duckdb;
  std::string postgres;
  std::string report;
  std::string mode;
  double epoch_seconds = 2.0;
  // --to-kafka: publish instead of running the jobs.
  std::string to_kafka;
  std::string topic;
  std::string payload = "binary";
  bool no_end_marker = false;
  std::vector<std::string> kafka_properties;
  double kafka_wait_s = 120;
  double postgres_wait_s = 600;
  // --alerts-topic: the regularity alerts, also on Kafka.
  std::string alerts_topic;
  std::string alerts_brokers;
};

// Removes a DuckDB file and its write-ahead log; what cannot be removed is logged.
void RemoveDatabase(const std::filesystem::path& db) {
  for (const auto& file : {db, std::filesystem::path(db.string() + ".wal")}) {
    std::error_code error;
    std::filesystem::remove(file, error);
    if (error) {
      spdlog::warn("could not remove file={} error={}", file.string(), error.message());
    }
  }
}

int WriteReport(const std::string& path, const std::string& json) {
  if (!path.empty()) {
    const auto written = base::WriteFileAtomic(path, json + "\n");
    if (!written.ok()) {
      return ReportError(written.error());
    }
  }
  return kExitOk;
}

// `--to-kafka BROKERS --topic T`: the inputs, merged in ingest order, as messages.
int PublishToKafka(const ReplayFlags& flags, const runner::ReplayContext& context) {
  runner::PublishConfig publish;
  publish.replay = flags.config;
  publish.producer.brokers = flags.to_kafka;
  publish.producer.topic = flags.topic;
  publish.producer.format =
      flags.payload == "json" ? transport::PayloadFormat::kJson : transport::PayloadFormat::kBinary;
  publish.producer.connect_wait =
      std::chrono::seconds(static_cast<std::int64_t>(flags.kafka_wait_s));
  auto properties = transport::ParseKafkaProperties(flags.kafka_properties);
  if (!properties.ok()) {
    return ReportError(properties.error());
  }
  publish.producer.properties = std::move(*properties);
  publish.end_marker = !flags.no_end_marker;
  model::SourceCatalog catalog;
  const auto report = runner::PublishReplay(publish, context, catalog);
  if (!report.ok()) {
    return ReportError(report.error());
  }
  spdlog::info(
      "published records={} positions={} rejections={} partitions={} seconds={:.2f} "
      "messages_per_s={:.0f} topic={}",
      report->records, report->positions, report->rejections, report->partitions,
      report->duration_s, report->messages_per_s, flags.topic);
  return WriteReport(flags.report, runner::PublishReportJson(*report));
}

int RunReplayCommand(ReplayFlags& flags) {
  if (!flags.mode.empty()) {
    const auto mode = model::ParseMode(flags.mode);
    if (!mode) {
      return ReportError(base::InvalidInput(
          "--mode {}: not one of bus, brt, rail, ferry, aircraft, other", flags.mode));
    }
    flags.config.mode = mode;
  }
  flags.config.epoch_interval =
      std::chrono::milliseconds(static_cast<std::int64_t>(flags.epoch_seconds * 1000));
  auto context = runner::LoadReplayContext(flags.config);
  if (!context.ok()) {
    return ReportError(context.error());
  }
  if (!flags.to_kafka.empty()) {
    return PublishToKafka(flags, **context);
  }
  if (!flags.alerts_topic.empty()) {
    if (!(*context)->feed) {
      return ReportError(base::InvalidInput("--alerts-topic needs --gtfs (alerts read the plan)"));
    }
    if (flags.alerts_brokers.empty()) {
      return ReportError(base::InvalidInput("--alerts-topic needs --alerts-brokers"));
    }
    auto publish = OpenAlertsTopic(flags.alerts_brokers, flags.alerts_topic, flags.kafka_wait_s);
    if (!publish.ok()) {
      return ReportError(publish.error());
    }
    flags.config.publish_alerts = std::move(*publish);
  }
  // Inputs that do not open are refused before any database is made for them.
  if (const auto partitions = runner::ReplayPartitions(flags.config); !partitions.ok()) {
    return ReportError(partitions.error());
  }
  model::SourceCatalog catalog;
  std::unique_ptr<engine::TransactionalSink<model::EpochRows>> sink;
  sink::DuckDbSink* duckdb = nullptr;
  // A replay that fails into a database it created (an input truncated halfway) removes
  // it: a file holding the schema and part of one input's rows helps nobody.
  std::error_code exists_error;
  const bool new_db = flags.postgres.empty() && !std::filesystem::exists(flags.db, exists_error);
  if (!flags.postgres.empty()) {
    sink::PostgresSinkOptions options;
    options.dsn = flags.postgres;
    options.run_id = base::NewRunId(base::SystemClock::Get().Now());
    options.rules = job::RuleValues((*context)->job);
    options.garages = GarageRecordOf(**context);
    options.unavailable_wait =
        std::chrono::seconds(static_cast<std::int64_t>(flags.postgres_wait_s));
    auto opened = sink::PostgresSink::Open(std::move(options), &catalog);
    if (!opened.ok()) {
      return ReportError(opened.error());
    }
    sink = std::move(*opened);
  } else {
    flags.duckdb.rules = job::RuleValues((*context)->job);
    flags.duckdb.garages = GarageRecordOf(**context);
    auto opened = sink::DuckDbSink::Open(
        flags.db, &catalog, base::NewRunId(base::SystemClock::Get().Now()), flags.duckdb);
    if (!opened.ok()) {
      return ReportError(opened.error());
    }
    duckdb = opened->get();
    sink = std::move(*opened);
  }
  auto report = runner::RunReplay(flags.config, **context, catalog, *sink);
  if (!report.ok()) {
    if (new_db) {
      sink.reset();
      RemoveDatabase(flags.db);
    }
    return ReportError(report.error());
  }
  if (duckdb != nullptr) {
    // Part of the replay's work and of its duration: the log of the last epochs goes
    // into the file now, on every core, rather than at close on one.
    const auto started = std::chrono::steady_clock::now();
    if (const auto status = duckdb->CheckpointWithAllCores(); !status.ok()) {
      return ReportError(status.error());
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    spdlog::debug("final checkpoint seconds={:.2f}", seconds);
    report->duration_s += seconds;
  }
  const std::string json = runner::ReportJson(*report);
  if (const int code = WriteReport(flags.report, json); code != kExitOk) {
    return code;
  }
  // Refusals as the dashboard counts them: errors (every reason but duplicate) and
  // duplicates (rule 5, not an error) apart.
  std::int64_t errors = 0;
  std::int64_t duplicates = 0;
  for (const auto& [reason, n] : report->rejected) {
    (reason == model::RejectReasonName(model::RejectReason::kDuplicate) ? duplicates : errors) += n;
  }
  spdlog::info(
      "replay done records={} accepted={} rejected={} duplicates={} epochs={} seconds={:.2f} "
      "db={}",
      report->records, report->accepted, errors, duplicates, report->epochs, report->duration_s,
      flags.postgres.empty() ? flags.db : sink::PgConnection::Describe(flags.postgres));
  return kExitOk;
}

}  // namespace

void AddReplayCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<ReplayFlags>();
  auto* sub = app.add_subcommand(
      "replay", "Run the engine and every job over recorded input into the database");
  sub->add_option("inputs", flags->config.inputs, "FORMAT:PATH or PATH (format detected)")
      ->required();
  sub->add_option("--gtfs", flags->config.gtfs,
                  "Static GTFS (zip or folder): terminals, zone, and the regularity jobs "
                  "(departures, headways, alerts)");
  auto* alerts_topic = sub->add_option(
      "--alerts-topic", flags->alerts_topic,
      "Also publish each alert (raised, then again when closed) to this Kafka topic, keyed "
      "by alert_id, as JSON (needs --gtfs and --alerts-brokers)");
  sub->add_option("--alerts-brokers", flags->alerts_brokers,
                  "Kafka brokers for --alerts-topic (host:port[,...])")
      ->needs(alerts_topic);
  sub->add_option("--area", flags->config.area,
                  "GeoJSON area for rule 4 (PATH or PATH#PROPERTY=VALUE)");
  AddGaragesOption(*sub, flags->config.garages);
  auto* db = sub->add_option("--db", flags->db, "DuckDB database file")->capture_default_str();
  auto* pg = sub->add_option(
      "--postgres", flags->postgres,
      "PostgreSQL DSN or URI instead of --db (unset fields and the password from PG* variables)");
  db->excludes(pg);
  sub->add_option("--db-memory-limit", flags->duckdb.memory_limit,
                  "DuckDB's memory limit while writing --db, e.g. 1GB (\"\": DuckDB's own, 80% of "
                  "RAM); a commit that runs out of it says so")
      ->capture_default_str()
      ->excludes(pg);
  auto* kafka =
      sub->add_option("--to-kafka", flags->to_kafka,
                      "Publish every record to these Kafka brokers instead of running the jobs");
  kafka->excludes(db)->excludes(pg);
  sub->add_option("--topic", flags->topic, "Kafka topic for --to-kafka (must exist)")->needs(kafka);
  sub->add_option("--payload", flags->payload, "Message encoding for --to-kafka: binary or json")
      ->check(CLI::IsMember({"binary", "json"}))
      ->capture_default_str();
  sub->add_flag("--no-end-marker", flags->no_end_marker,
                "--to-kafka: no end-of-input marker after the last record");
  sub->add_option("--kafka-property", flags->kafka_properties,
                  "Extra librdkafka property KEY=VALUE (repeatable)");
  sub->add_option("--kafka-wait", flags->kafka_wait_s,
                  "Seconds to wait for unreachable brokers at start")
      ->capture_default_str();
  sub->add_option("--postgres-wait", flags->postgres_wait_s,
                  "Seconds to wait for an unreachable PostgreSQL before failing")
      ->capture_default_str();
  sub->add_option("--partitions", flags->config.partitions, "State partitions")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  sub->add_option("--threads", flags->config.threads,
                  "Threads for state partitions (default: min(partitions, cores))");
  sub->add_option("--epoch-records", flags->config.epoch_records,
                  "Commit at least every N records (default: 1,000,000, or 64 records per "
                  "unit of state, vehicles and records held for the watermark, if more)")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  sub->add_option("--epoch-seconds", flags->epoch_seconds,
                  "Commit at least every S seconds of processing")
      ->capture_default_str();
  sub->add_option("--feed-id", flags->config.feed_id, "Feed id for every input");
  sub->add_option("--mode", flags->mode, "Mode for every input: bus, brt, rail, ferry, aircraft");
  sub->add_option("--time-zone", flags->config.time_zone,
                  "IANA zone of local hours (default: the GTFS agency's, else America/Sao_Paulo)");
  sub->add_option("--report", flags->report, "Write the JSON run report here");
  AddRuleOption(*sub, flags->config.rules);
  AddRetentionOptions(*sub, flags->config.retention);
  sub->callback([flags, &run, sub] {
    if (!flags->to_kafka.empty() && flags->topic.empty()) {
      throw CLI::RequiredError("--topic (with --to-kafka)");
    }
    if (sub->count("--epoch-records") > 0) {
      flags->config.epoch_records_per_state_unit = 0;  // asked for: exactly that size
    }
    if (sub->count("--threads") == 0) {
      flags->config.threads = base::ThreadsFor(static_cast<std::size_t>(flags->config.partitions));
    }
    flags->config.progress = true;
    run = [flags] { return RunReplayCommand(*flags); };
  });
}

}  // namespace frota::cli
