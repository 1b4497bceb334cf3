// `frota collect` and `frota run`: the live service (docs/collector.md; flags: docs/cli.md).
#include <fmt/core.h>
#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "frota/base/file.h"
#include "frota/base/log.h"
#include "frota/base/time_zone.h"
#include "frota/cli/commands.h"
#include "frota/cli/run_kafka.h"
#include "frota/collect/collector.h"
#include "frota/job/rules.h"
#include "frota/runner/live_publisher.h"
#include "frota/runner/live_runner.h"
#include "frota/serve/server.h"
#include "frota/serve/store.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/sink/pg_connection.h"
#include "frota/sink/postgres_sink.h"
#include "frota/source/archive_follower.h"

namespace frota::cli {

namespace {

namespace fs = std::filesystem;

struct CollectFlags {
  std::string config;
  std::vector<std::string> feeds;
  double interval_s = 0;
  std::string archive;
  std::string reports;
  std::string silver;
  std::string gold;
  bool no_medallion = false;
  bool no_compact = false;
  std::string metrics;
  double for_s = 0;
  std::string kafka;
  std::string topic;
  bool end_marker = false;
  std::string publisher_id;
  std::string progress_topic;
  std::string payload = "binary";
  double drain_wait_s = 60;
  std::string area;
  std::vector<std::string> rules;
  // frota run
  std::string db;
  std::string postgres;
  std::string gtfs;
  std::string time_zone;
  std::int32_t partitions = 0;
  double epoch_s = 0;
  std::string serve;                  // frota run --serve HOST:PORT
  KafkaRunFlags kafka_run;            // frota run --kafka --group: consume a topic (run_kafka.h)
  runner::RetentionPolicy retention;  // --retain-days (collect, run), --retain-results-days (run)
};

// The retention of `frota run`: its flags, else the configuration's [retention].
runner::RetentionPolicy RetentionOf(const CollectFlags& flags,
                                    const collect::CollectorConfig* config) {
  runner::RetentionPolicy policy = flags.retention;
  if (config != nullptr) {
    if (!policy.raw_days) {
      policy.raw_days = config->retain_days;
    }
    if (!policy.results_days) {
      policy.results_days = config->retain_results_days;
    }
  }
  return policy;
}

// SIGINT and SIGTERM raise the stop signal from a thread of their own (sigwait), so no
// code runs in a signal handler and every poller finishes the request it is making.
class SignalWatcher {
 public:
  explicit SignalWatcher(base::StopSignal& stop) : stop_(stop) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &previous_);  // inherited by every thread made after
    thread_ = std::thread([this] {
      const timespec tick{0, 200'000'000};
      while (!done_.load()) {
        const int sig = sigtimedwait(&set_, nullptr, &tick);
        if (sig == SIGINT || sig == SIGTERM) {
          spdlog::info("stop requested signal={}", sig == SIGINT ? "SIGINT" : "SIGTERM");
          stop_.Raise();
        }
      }
    });
  }
  ~SignalWatcher() {
    done_.store(true);
    thread_.join();
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

 private:
  base::StopSignal& stop_;
  sigset_t set_{};
  sigset_t previous_{};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// Wakes the live runner as soon as a response is archived.
class WakeOnResponse final : public collect::ResponseListener {
 public:
  explicit WakeOnResponse(source::ArchiveWaker& waker) : waker_(waker) {}
  void OnResponse(const collect::ArchivedResponse&) override { waker_.Notify(); }

 private:
  source::ArchiveWaker& waker_;
};

// Tells the Kafka publisher that a response was archived (its wake-up and lag count).
class PublishOnResponse final : public collect::ResponseListener {
 public:
  PublishOnResponse(runner::LivePublisher& publisher, source::ArchiveWaker& waker)
      : publisher_(publisher), waker_(waker) {}
  void OnResponse(const collect::ArchivedResponse& response) override {
    publisher_.OnArchived(response.envelope.ingest_time);
    waker_.Notify();
  }

 private:
  runner::LivePublisher& publisher_;
  source::ArchiveWaker& waker_;
};

// The Kafka publisher of a collector (`--kafka B --topic T`), its metrics and listener.
struct Publishing {
  source::ArchiveWaker waker;
  std::unique_ptr<runner::LivePublisher> publisher;
  std::unique_ptr<PublishOnResponse> listener;
};

// Bronze retention for the publisher: `downstream`'s commits, with the cut counted back
// from now in the feeds' zone.
base::Status RetainPublished(const CollectFlags& flags, const collect::CollectorConfig& config,
                             collect::Collector& collector, runner::BronzeRetention* bronze,
                             int downstream, runner::LivePublisherConfig& pc) {
  if (bronze == nullptr) {
    return base::Status::Ok();
  }
  std::string zone_name = flags.time_zone;
  if (zone_name.empty()) {
    zone_name = config.feeds.empty() ? "America/Sao_Paulo" : config.feeds.front().time_zone;
  }
  FROTA_ASSIGN_OR_RETURN(auto zone, base::TimeZone::Load(zone_name));
  auto shared_zone = std::make_shared<const base::TimeZone>(std::move(zone));
  const runner::RetentionPolicy policy = RetentionOf(flags, &config);
  auto* c = &collector;
  pc.after_commit = [=](const std::vector<engine::SourceProgress>& committed) {
    bronze->AfterCommit(downstream, policy.CutsAt(c->clock().Now(), *shared_zone).raw, committed);
  };
  return base::Status::Ok();
}

base::Result<std::unique_ptr<Publishing>> StartPublishing(const CollectFlags& flags,
                                                          const collect::CollectorConfig& config,
                                                          collect::Collector& collector,
                                                          runner::BronzeRetention* bronze,
                                                          int downstream) {
  auto out = std::make_unique<Publishing>();
  runner::LivePublisherConfig pc;
  FROTA_RETURN_IF_ERROR(RetainPublished(flags, config, collector, bronze, downstream, pc));
  pc.archive = config.archive;
  if (!flags.time_zone.empty()) {
    pc.replay.time_zone = flags.time_zone;
  }
  pc.producer.brokers = config.kafka_brokers;
  pc.producer.topic = config.kafka_topic;
  if (flags.payload == "json") {
    pc.producer.format = transport::PayloadFormat::kJson;
  } else if (flags.payload != "binary") {
    return base::InvalidInput("--payload {}: expected binary or json", flags.payload);
  }
  FROTA_ASSIGN_OR_RETURN(pc.producer.properties,
                         transport::ParseKafkaProperties(flags.kafka_run.kafka_properties));
  pc.publisher_id =
      flags.publisher_id.empty() ? "frota-collect:" + config.kafka_topic : flags.publisher_id;
  pc.progress_topic = flags.progress_topic;
  pc.end_marker = flags.end_marker;
  pc.drain_wait = std::chrono::milliseconds(static_cast<std::int64_t>(flags.drain_wait_s * 1000));
  pc.run_id = collector.run_id();
  pc.waker = &out->waker;
  auto* c = &collector;
  pc.now = [c] { return c->clock().Now(); };
  pc.ingest_floor = [c] { return c->IngestFloor(); };
  auto& metrics = collector.metrics();
  auto* connected =
      &metrics.GetGauge("frota_publish_connected", "1 while the Kafka publisher has a session");
  auto* records = &metrics.GetCounter("frota_publish_records_total",
                                      "Records published to Kafka (committed) by this run");
  auto* polls =
      &metrics.GetCounter("frota_publish_polls_total", "Poll messages published by this run");
  auto* transactions = &metrics.GetCounter("frota_publish_transactions_total",
                                           "Kafka transactions committed by this run");
  auto* failures = &metrics.GetCounter(
      "frota_publish_failures_total",
      "Failed publisher attempts: a session that could not start or ended by an error");
  auto* unpublished =
      &metrics.GetGauge("frota_publish_unpublished_responses",
                        "Responses archived by this run that no committed transaction covers yet");
  auto* lag = &metrics.GetGauge("frota_publish_lag_seconds",
                                "Now minus the ingest time of the oldest unpublished response");
  // Counters move by what changed since the last round (on the publisher's thread only).
  auto last = std::make_shared<runner::PublisherStats>();
  pc.on_stats = [=](const runner::PublisherStats& s) {
    connected->Set(s.connected ? 1 : 0);
    records->Add(static_cast<double>(s.records - last->records));
    polls->Add(static_cast<double>(s.polls - last->polls));
    transactions->Add(static_cast<double>(s.transactions - last->transactions));
    failures->Add(static_cast<double>(s.failures - last->failures));
    *last = s;
    unpublished->Set(static_cast<double>(s.unpublished_responses));
    lag->Set(s.lag_seconds);
  };
  out->publisher = std::make_unique<runner::LivePublisher>(std::move(pc));
  auto* publisher = out->publisher.get();
  collector.AddHealthPart("kafka_publisher", [publisher] {
    const auto s = publisher->stats();
    return fmt::format(
        "{{\"connected\": {}, \"records\": {}, \"unpublished_responses\": {}, "
        "\"lag_seconds\": {:.3f}}}",
        s.connected ? "true" : "false", s.records, s.unpublished_responses, s.lag_seconds);
  });
  out->listener = std::make_unique<PublishOnResponse>(*out->publisher, out->waker);
  collector.AddListener(out->listener.get());
  out->publisher->Start();
  return out;
}

base::Result<collect::CollectorConfig> BuildConfig(const CollectFlags& flags) {
  collect::CollectorConfig config;
  if (!flags.config.empty()) {
    FROTA_ASSIGN_OR_RETURN(config, collect::LoadConfig(flags.config));
  } else if (flags.feeds.empty()) {
    return base::InvalidInput("give --config FILE or at least one --feed NAME=FORMAT,URL");
  }
  for (const auto& text : flags.feeds) {
    FROTA_ASSIGN_OR_RETURN(auto feed, collect::ParseFeedFlag(text));
    config.feeds.push_back(std::move(feed));
  }
  if (flags.interval_s > 0) {
    for (auto& feed : config.feeds) {
      feed.interval = std::chrono::milliseconds(static_cast<std::int64_t>(flags.interval_s * 1000));
    }
  }
  if (!flags.archive.empty()) {
    config.archive = flags.archive;
    if (flags.config.empty()) {
      // Without a config file the other layers sit beside the archive.
      const auto parent = config.archive.parent_path();
      config.silver = parent / "silver";
      config.gold = parent / "gold";
      config.reports = parent / "reports";
    }
  }
  if (!flags.reports.empty()) config.reports = flags.reports;
  if (!flags.silver.empty()) config.silver = flags.silver;
  if (!flags.gold.empty()) config.gold = flags.gold;
  if (!flags.metrics.empty()) config.metrics_listen = flags.metrics;
  if (!flags.area.empty()) config.area = flags.area;
  if (flags.no_medallion) config.medallion = false;
  if (flags.no_compact) config.compact = false;
  if (!flags.db.empty()) config.db = flags.db;
  if (flags.partitions > 0) config.partitions = flags.partitions;
  if (flags.epoch_s > 0) {
    config.epoch_interval =
        std::chrono::milliseconds(static_cast<std::int64_t>(flags.epoch_s * 1000));
  }
  if (!flags.kafka.empty()) config.kafka_brokers = flags.kafka;
  if (!flags.topic.empty()) config.kafka_topic = flags.topic;
  {
    job::JobConfig scratch;  // the flags checked now, before anything starts
    FROTA_RETURN_IF_ERROR(job::ApplyRuleFlags(scratch, flags.rules));
  }
  config.rules.insert(config.rules.end(), flags.rules.begin(), flags.rules.end());
  FROTA_RETURN_IF_ERROR(collect::Validate(config));
  return config;
}

// The file log of the config and its level, keeping the terminal's; --log-file and
// --log-level-file on the command line win over the config.
base::Status ApplyLogFile(const collect::CollectorConfig& config) {
  base::LogOptions options = base::CurrentLogOptions();
  if (options.file.empty()) {
    options.file = config.log_file;
  }
  if (options.file_level.empty()) {
    options.file_level = config.log_level_file;
  }
  if (options.file.empty()) {
    return base::Status::Ok();
  }
  std::error_code ec;
  fs::create_directories(fs::path(options.file).parent_path(), ec);
  return base::InitLogging(options);
}

std::optional<std::chrono::milliseconds> RunFor(const CollectFlags& flags) {
  if (flags.for_s <= 0) {
    return std::nullopt;
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(flags.for_s * 1000));
}

// The flag combinations collect and run refuse, once the configuration is known.
base::Status CheckFlags(const CollectFlags& flags, const collect::CollectorConfig& config,
                        bool process) {
  if (!flags.kafka_run.faults.empty()) {
    return base::InvalidInput(
        "--fault is for a consumer group member: frota run --kafka B --topic T --group G");
  }
  if (!flags.kafka_run.alerts_topic.empty()) {
    return base::InvalidInput(
        "--alerts-topic on frota run is for a consumer group member (frota run --kafka B "
        "--topic T --group G --gtfs ...); frota replay --gtfs has its own");
  }
  const bool publish = !config.kafka_brokers.empty() || !config.kafka_topic.empty();
  if (publish && (config.kafka_brokers.empty() || config.kafka_topic.empty())) {
    return base::InvalidInput("--kafka BROKERS and --topic T go together");
  }
  if (!publish && flags.end_marker) {
    return base::InvalidInput("--end-marker is for publishing: give --kafka and --topic");
  }
  if (!process && !flags.postgres.empty()) {
    return base::InvalidInput("--postgres is for frota run; collect writes bronze");
  }
  return base::Status::Ok();
}

// Bronze retention: what every downstream (frota run's database, the Kafka topic) has
// committed goes once older than the cut; collect alone commits nowhere, so keeps all
// (null: nothing is removed).
base::Result<std::unique_ptr<runner::BronzeRetention>> OpenBronzeRetention(
    const CollectFlags& flags, const collect::CollectorConfig& config, bool process, bool publish) {
  if (!RetentionOf(flags, &config).raw_days) {
    return std::unique_ptr<runner::BronzeRetention>();
  }
  if (process || publish) {
    return std::make_unique<runner::BronzeRetention>(
        std::vector<std::filesystem::path>{config.archive}, (process ? 1 : 0) + (publish ? 1 : 0));
  }
  if (flags.retention.raw_days) {
    return base::InvalidInput(
        "--retain-days on collect removes bronze once it is published: give --kafka and "
        "--topic (frota run removes what its database has committed)");
  }
  spdlog::warn(
      "[retention] days does not apply to the archive of collect without --kafka: nothing "
      "downstream commits what it holds, so it is all kept");
  return std::unique_ptr<runner::BronzeRetention>();
}

// The publisher of a collector, started once everything else is ready (a start that fails
// publishes nothing: the destructor cancels, without draining or end markers) and stopped
// once the collector stopped, after publishing what is left and the end markers.
class PublishingSlot {
 public:
  PublishingSlot(const CollectFlags& flags, const collect::CollectorConfig& config,
                 collect::Collector& collector, runner::BronzeRetention* bronze, int downstream)
      : flags_(flags),
        config_(config),
        collector_(collector),
        bronze_(bronze),
        downstream_(downstream) {}

  base::Status Start() {
    if (config_.kafka_brokers.empty()) {
      return base::Status::Ok();
    }
    FROTA_ASSIGN_OR_RETURN(publishing_,
                           StartPublishing(flags_, config_, collector_, bronze_, downstream_));
    return base::Status::Ok();
  }
  base::Status Stop() { return publishing_ ? publishing_->publisher->Stop() : base::Status::Ok(); }

 private:
  const CollectFlags& flags_;
  const collect::CollectorConfig& config_;
  collect::Collector& collector_;
  runner::BronzeRetention* bronze_;
  int downstream_;
  std::unique_ptr<Publishing> publishing_;
};

// The first error of a run that ended: the collector's, the engine's, the publisher's.
int ReportEnd(const base::Status& collected, const std::optional<base::Error>& engine,
              const base::Status& published) {
  if (!collected.ok()) {
    return ReportError(collected.error());
  }
  if (engine) {
    return ReportError(*engine);
  }
  if (!published.ok()) {
    return ReportError(published.error());
  }
  return kExitOk;
}

// The sink of frota run and its name for logs: DuckDB (its size a storage gauge), or
// PostgreSQL with the embedded replay's transaction (one per epoch: rows, source offsets,
// state and ledger row; docs/scale-out.md).
struct RunSink {
  std::unique_ptr<engine::TransactionalSink<model::EpochRows>> sink;
  std::string name;
};

base::Result<RunSink> OpenRunSink(const CollectFlags& flags, const collect::CollectorConfig& config,
                                  const runner::ReplayContext& context,
                                  collect::Collector& collector, model::SourceCatalog& catalog) {
  if (!flags.postgres.empty()) {
    sink::PostgresSinkOptions pg;
    pg.dsn = flags.postgres;
    pg.run_id = collector.run_id();
    pg.rules = job::RuleValues(context.job);
    pg.unavailable_wait =
        std::chrono::seconds(static_cast<std::int64_t>(flags.kafka_run.postgres_wait_s));
    FROTA_ASSIGN_OR_RETURN(auto opened, sink::PostgresSink::Open(std::move(pg), &catalog));
    return RunSink{std::move(opened), sink::PgConnection::Describe(flags.postgres)};
  }
  sink::DuckDbSinkOptions duckdb;
  duckdb.rules = job::RuleValues(context.job);
  FROTA_ASSIGN_OR_RETURN(auto opened,
                         sink::DuckDbSink::Open(config.db, &catalog, collector.run_id(), duckdb));
  collect::AddStorageGauge(collector.metrics(), "duckdb",
                           [db = config.db]() -> base::Result<std::int64_t> {
                             std::int64_t bytes = 0;
                             for (const auto& file : {db, db + ".wal"}) {
                               std::error_code ec;
                               const auto size = std::filesystem::file_size(file, ec);
                               bytes += ec ? 0 : static_cast<std::int64_t>(size);
                             }
                             return bytes;
                           });
  return RunSink{std::move(opened), config.db};
}

// `--serve`: frota serve in this process, reading what the engine commits (DuckDB:
// another connection to the sink's database; PostgreSQL: a connection of its own).
base::Result<std::unique_ptr<serve::Server>> StartServer(
    const CollectFlags& flags, engine::TransactionalSink<model::EpochRows>& sink) {
  if (flags.serve.empty()) {
    return std::unique_ptr<serve::Server>();
  }
  FROTA_ASSIGN_OR_RETURN(auto store, serve::OpenStore(flags.postgres, [&] {
                           return static_cast<sink::DuckDbSink&>(sink).connection().Connect();
                         }));
  serve::ServerOptions options;
  options.listen = flags.serve;
  FROTA_ASSIGN_OR_RETURN(options.vehicle_feed, serve::LoadVehicleFeed(flags.gtfs));
  auto server = std::make_unique<serve::Server>(std::move(store), options);
  FROTA_RETURN_IF_ERROR(server->Start());
  return server;
}

// The engine's metrics on the collector's page, updated after each commit.
std::function<void(const runner::LiveEpoch&)> EngineMetrics(collect::Collector& collector) {
  auto& metrics = collector.metrics();
  auto& lag =
      metrics.GetGauge("frota_engine_watermark_lag_seconds", "Wall-clock time minus the watermark");
  auto& commit_seconds =
      metrics.GetHistogram("frota_engine_epoch_commit_seconds", "Duration of the epoch commits",
                           collect::DurationBuckets());
  auto& epochs = metrics.GetCounter("frota_engine_epochs_total", "Epochs committed");
  auto& records = metrics.GetCounter("frota_engine_records_total", "Records offered to the jobs");
  auto* c = &collector;
  return [&lag, &commit_seconds, &epochs, &records, c](const runner::LiveEpoch& e) {
    commit_seconds.Observe(e.commit_seconds);
    epochs.Add();
    records.Add(static_cast<double>(e.records));
    if (e.watermark != base::Timestamp::min()) {
      lag.Set(static_cast<double>(base::ToUnixMicros(c->clock().Now()) -
                                  base::ToUnixMicros(e.watermark)) /
              1e6);
    }
  };
}

// frota collect: polls into bronze (and publishes it) until stopped.
int CollectOnly(const CollectFlags& flags, base::StopSignal& stop, collect::Collector& collector,
                PublishingSlot& publishing) {
  if (const auto started = publishing.Start(); !started.ok()) {
    return ReportError(started.error());
  }
  const auto status = collector.Run(stop, RunFor(flags));
  const int exit = ReportEnd(status, std::nullopt, publishing.Stop());
  if (exit == kExitOk) {
    spdlog::info("collect done run_id={} reports={}", collector.run_id(),
                 collector.report_dir().string());
  }
  return exit;
}

// frota run: the engine follows the archive the collector writes, in this process.
int CollectAndProcess(const CollectFlags& flags, const collect::CollectorConfig& config,
                      base::StopSignal& stop, collect::Collector& collector,
                      runner::BronzeRetention* bronze, PublishingSlot& publishing) {
  runner::ReplayConfig context_config;
  context_config.gtfs = flags.gtfs;
  context_config.area = config.area;
  context_config.time_zone = flags.time_zone;
  context_config.rules = config.rules;
  auto context = runner::LoadReplayContext(context_config);
  if (!context.ok()) {
    return ReportError(context.error());
  }
  model::SourceCatalog catalog;
  auto sink = OpenRunSink(flags, config, **context, collector, catalog);
  if (!sink.ok()) {
    return ReportError(sink.error());
  }
  auto server = StartServer(flags, *sink->sink);
  if (!server.ok()) {
    return ReportError(server.error());
  }
  if (const auto started = publishing.Start(); !started.ok()) {
    return ReportError(started.error());
  }
  source::ArchiveWaker waker;
  WakeOnResponse wake(waker);
  collector.AddListener(&wake);
  std::atomic<bool> collector_done{false};
  runner::LiveConfig live;
  live.archive = config.archive;
  live.partitions = config.partitions;
  live.threads = base::ThreadsFor(static_cast<std::size_t>(config.partitions));
  live.epoch_interval = config.epoch_interval;
  live.waker = &waker;
  auto* c = &collector;
  live.clock = &c->clock();  // one clock for the collector and the engine
  live.stopping = [&] { return collector_done.load(); };
  live.ingest_floor = [c] { return std::optional<base::Timestamp>(c->IngestFloor()); };
  live.after_commit = EngineMetrics(collector);
  live.report_file = collector.report_dir() / "run.json";
  live.run_id = collector.run_id();
  live.db = sink->name;
  live.retention = RetentionOf(flags, &config);
  live.bronze = bronze;
  std::optional<base::Error> engine_error;
  std::thread engine([&] {
    const auto report = runner::RunLive(live, **context, catalog, *sink->sink);
    if (!report.ok()) {
      engine_error = report.error();
      spdlog::error("engine failed error={}", report.error().message());
      stop.Raise();  // without its engine the service must not pretend to run
    }
  });
  const auto status = collector.Run(stop, RunFor(flags));
  collector_done.store(true);
  waker.Notify();
  engine.join();
  if (*server) {
    (*server)->Stop();
  }
  const int exit = ReportEnd(status, engine_error, publishing.Stop());
  if (exit == kExitOk) {
    spdlog::info("run done run_id={} db={} reports={}", collector.run_id(), sink->name,
                 collector.report_dir().string());
  }
  return exit;
}

int RunCollect(const CollectFlags& flags, bool process) {
  // `frota run --kafka B --topic T --group G` without feeds: a consumer group member.
  if (process && !flags.kafka.empty() && flags.config.empty() && flags.feeds.empty()) {
    if (!flags.serve.empty()) {
      return ReportError(base::InvalidInput(
          "--serve is for frota run with feeds; serve a consumer group's PostgreSQL with "
          "frota serve --postgres"));
    }
    return RunKafkaConsumer(
        {flags.kafka, flags.topic, flags.postgres, flags.gtfs, flags.area, flags.time_zone,
         flags.epoch_s, flags.rules, RetentionOf(flags, nullptr), flags.metrics},
        flags.kafka_run);
  }
  auto config = BuildConfig(flags);
  if (!config.ok()) {
    return ReportError(config.error());
  }
  if (const auto checked = CheckFlags(flags, *config, process); !checked.ok()) {
    return ReportError(checked.error());
  }
  const bool publish = !config->kafka_brokers.empty();
  auto bronze = OpenBronzeRetention(flags, *config, process, publish);
  if (!bronze.ok()) {
    return ReportError(bronze.error());
  }
  if (const auto logging = ApplyLogFile(*config); !logging.ok()) {
    return ReportError(logging.error());
  }
  base::StopSignal stop;
  SignalWatcher signals(stop);  // before any thread exists
  collect::CollectorOptions options;
  options.command = process ? "run" : "collect";
  auto collector = collect::Collector::Open(*config, options);
  if (!collector.ok()) {
    return ReportError(collector.error());
  }
  // The publisher's own downstream is frota run's database, when there is one.
  PublishingSlot publishing(flags, *config, **collector, bronze->get(), process ? 1 : 0);
  if (!process) {
    return CollectOnly(flags, stop, **collector, publishing);
  }
  return CollectAndProcess(flags, *config, stop, **collector, bronze->get(), publishing);
}

// `run` says what --kafka does for it; the rest of the flags are `collect`'s.
void AddCommonFlags(CLI::App* sub, CollectFlags& flags, bool run) {
  sub->add_option("--config", flags.config, "TOML configuration (config/collector.example.toml)");
  sub->add_option("--feed", flags.feeds, "Quick form NAME=FORMAT,URL (repeatable)");
  sub->add_option("--interval", flags.interval_s, "Seconds between polls, for every feed");
  sub->add_option("--archive", flags.archive, "Bronze archive folder");
  sub->add_option("--reports", flags.reports, "Stage reports folder");
  sub->add_option("--silver", flags.silver, "Silver Parquet folder");
  sub->add_option("--gold", flags.gold, "Gold Parquet folder");
  sub->add_flag("--no-medallion", flags.no_medallion, "Write bronze only (no silver or gold)");
  sub->add_flag("--no-compact", flags.no_compact,
                "Leave bronze's hours loose (by default each sealed hour is packed into one "
                "compressed file, docs/bronze-archive.md)");
  sub->add_option("--metrics", flags.metrics,
                  "Serve /metrics and /healthz on HOST:PORT (also a consumer group member's)");
  sub->add_option("--area", flags.area, "GeoJSON area for rule 4 (PATH or PATH#PROPERTY=VALUE)");
  sub->add_option("--for", flags.for_s, "Stop cleanly after this many seconds");
  sub->add_option("--kafka", flags.kafka,
                  run ? "Kafka brokers: with --group and no feed, consume --topic as one member "
                        "of the group; with feeds, also publish every archived record and poll "
                        "there, exactly once"
                      : "Publish every archived record and poll to these Kafka brokers, exactly "
                        "once");
  sub->add_option("--topic", flags.topic,
                  run ? "Kafka topic for --kafka: the one consumed, or published to (must exist)"
                      : "Kafka topic for --kafka (must exist)");
  sub->add_flag("--end-marker", flags.end_marker,
                "On stop (--for, SIGTERM) publish the end-of-input marker to every partition");
  sub->add_option("--publisher-id", flags.publisher_id,
                  "Transactional id and progress key (default frota-collect:TOPIC)");
  sub->add_option("--progress-topic", flags.progress_topic,
                  "Compacted topic of publishing progress (default TOPIC.progress; created)");
  sub->add_option("--payload", flags.payload, "Message encoding: binary or json")
      ->check(CLI::IsMember({"binary", "json"}));
  sub->add_option("--drain-wait", flags.drain_wait_s,
                  "On stop, seconds to wait for Kafka to publish what is archived");
  AddRuleOption(*sub, flags.rules);
}

}  // namespace

void AddCollectCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<CollectFlags>();
  auto* sub = app.add_subcommand(
      "collect", "Poll live feeds politely into the bronze archive, with silver and gold");
  AddCommonFlags(sub, *flags, /*run=*/false);
  AddRetainDaysOption(*sub, flags->retention,
                      "With --kafka: keep the bronze archive for the N local days up to today, "
                      "removing older hours once every record of them is published (default: "
                      "keep everything)");
  sub->add_option("--kafka-property", flags->kafka_run.kafka_properties,
                  "librdkafka property KEY=VALUE for --kafka (repeatable; values never logged)");
  sub->callback([flags, &run] { run = [flags] { return RunCollect(*flags, false); }; });
}

void AddRunCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<CollectFlags>();
  auto* sub = app.add_subcommand(
      "run",
      "Collect live feeds and run every job on them, exactly once into DuckDB or "
      "PostgreSQL");
  AddCommonFlags(sub, *flags, /*run=*/true);
  sub->add_option("--db", flags->db,
                  "DuckDB database file (default from the config: frota.duckdb)");
  sub->add_option("--postgres", flags->postgres, "PostgreSQL DSN instead of --db");
  sub->add_option("--gtfs", flags->gtfs, "Static GTFS (zip or folder): terminals, zone");
  sub->add_option("--time-zone", flags->time_zone, "IANA zone of local hours");
  sub->add_option("--partitions", flags->partitions, "State partitions")
      ->check(CLI::Range(1, 4096));
  sub->add_option("--epoch-seconds", flags->epoch_s, "Commit at least every S seconds");
  sub->add_option("--serve", flags->serve,
                  "Also serve the live page and API (frota serve) on HOST:PORT, in this process");
  AddRetentionOptions(*sub, flags->retention);
  AddKafkaRunFlags(sub, flags->kafka_run);
  sub->callback([flags, &run] { run = [flags] { return RunCollect(*flags, true); }; });
}

}  // namespace frota::cli
