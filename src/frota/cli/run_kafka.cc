#include "frota/cli/run_kafka.h"

#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <charconv>
#include <optional>
#include <random>
#include <thread>

#include "frota/base/file.h"
#include "frota/base/run_id.h"
#include "frota/cli/alerts_topic.h"
#include "frota/cli/command.h"
#include "frota/collect/metrics.h"
#include "frota/runner/kafka_runner.h"
#include "frota/runner/regularity_follower.h"
#include "frota/sink/postgres_followed_stream.h"
#include "frota/sink/postgres_sink.h"

namespace frota::cli {

namespace {

// SIGINT/SIGTERM ask for a clean stop (commit, leave the group) from a thread of their
// own; a second signal is not special: SIGKILL is what the crash tests use.
class StopOnSignal {
 public:
  explicit StopOnSignal(std::atomic<bool>& stop) : stop_(stop) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &previous_);
    thread_ = std::thread([this] {
      const timespec tick{0, 200'000'000};
      while (!done_.load()) {
        const int sig = sigtimedwait(&set_, nullptr, &tick);
        if (sig == SIGINT || sig == SIGTERM) {
          spdlog::info("stop requested signal={}", sig == SIGINT ? "SIGINT" : "SIGTERM");
          stop_.store(true);
        }
      }
    });
  }
  ~StopOnSignal() {
    done_.store(true);
    thread_.join();
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  std::atomic<bool>& stop_;
  sigset_t set_{};
  sigset_t previous_{};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// The regularity follower of a member, on a thread of its own with its own connections.
// An error there stops the member (stop), and Join() returns it.
class RegularityThread {
 public:
  RegularityThread(std::string dsn, sink::PostgresSinkOptions options,
                   const runner::ReplayContext& context, runner::RegularityFollowerConfig config,
                   std::atomic<bool>& stop)
      : dsn_(std::move(dsn)),
        options_(std::move(options)),
        context_(context),
        config_(std::move(config)),
        stop_(stop) {}
  ~RegularityThread() { (void)Join(); }
  RegularityThread(const RegularityThread&) = delete;
  RegularityThread& operator=(const RegularityThread&) = delete;

  void Start(std::int32_t partitions) {
    if (thread_.joinable()) {
      return;
    }
    config_.partitions = partitions;
    thread_ = std::thread([this] {
      status_ = Run();
      if (!status_.ok()) {
        stop_.store(true);
      }
    });
  }

  base::Status Join() {
    if (thread_.joinable()) {
      thread_.join();
    }
    return status_;
  }

 private:
  base::Status Run() {
    model::SourceCatalog catalog;  // the follower writes no positions
    FROTA_ASSIGN_OR_RETURN(auto sink, sink::PostgresSink::Open(options_, &catalog));
    sink::PostgresFollowedStream input(dsn_);
    FROTA_ASSIGN_OR_RETURN(const auto report,
                           runner::RunRegularityFollower(config_, context_, input, *sink, stop_));
    spdlog::info(
        "regularity follower done led={} finished={} epochs={} positions={} departures={} "
        "headways={} alerts={} fenced={}",
        report.led, report.finished, report.epochs, report.positions, report.departures,
        report.headways, report.alerts, report.fenced);
    return base::Status::Ok();
  }

  std::string dsn_;
  sink::PostgresSinkOptions options_;
  const runner::ReplayContext& context_;
  runner::RegularityFollowerConfig config_;
  std::atomic<bool>& stop_;
  std::thread thread_;
  base::Status status_ = base::Status::Ok();
};

// `--metrics HOST:PORT` of a member: its progress as Prometheus metrics, and /healthz,
// healthy while the member completes poll rounds (a round waits while PostgreSQL is down
// or a commit hangs, so a member that makes no progress turns unhealthy). The server runs
// on its own thread; OnProgress is called on the consuming thread.
class MemberMetrics {
 public:
  MemberMetrics()
      : messages_(registry_.GetCounter("frota_member_messages_total",
                                       "Kafka messages consumed by this member")),
        epochs_(registry_.GetCounter("frota_member_epochs_total",
                                     "Epochs this member handed to the sink")),
        fenced_(registry_.GetCounter("frota_member_fenced_total",
                                     "Commits of this member refused by the partition fence")),
        rebalances_(registry_.GetCounter("frota_member_rebalances_total",
                                         "Partition assignment changes this member saw")),
        partitions_(registry_.GetGauge("frota_member_partitions", "Partitions this member owns")),
        lag_(registry_.GetGauge("frota_engine_watermark_lag_seconds",
                                "Wall-clock time minus the watermark of the last epoch")),
        server_(registry_, [this] { return Health(); }) {}

  base::Status Start(const std::string& listen) { return server_.Start(listen); }

  void OnProgress(const runner::KafkaRunProgress& progress) {
    messages_.Add(static_cast<double>(progress.messages - last_.messages));
    epochs_.Add(static_cast<double>(progress.epochs - last_.epochs));
    fenced_.Add(static_cast<double>(progress.fenced - last_.fenced));
    rebalances_.Add(static_cast<double>(progress.rebalances - last_.rebalances));
    partitions_.Set(static_cast<double>(progress.partitions));
    if (progress.watermark != base::Timestamp::min()) {
      lag_.Set(std::chrono::duration<double>(base::SystemClock::Get().Now() - progress.watermark)
                   .count());
    }
    last_ = progress;
    // Only reported (health), so the steady clock, as base/clock.h allows.
    last_round_.store(std::chrono::steady_clock::now().time_since_epoch().count());
  }

 private:
  static constexpr std::chrono::seconds kStalled{60};

  [[nodiscard]] std::pair<bool, std::string> Health() const {
    const auto last = last_round_.load();
    if (last == 0) {
      return {false, R"({"healthy":false,"state":"starting"})"};
    }
    const auto since =
        std::chrono::steady_clock::now() -
        std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(last));
    const double seconds = std::chrono::duration<double>(since).count();
    const bool healthy = since < kStalled;
    return {healthy, fmt::format(R"({{"healthy":{},"state":"{}","seconds_since_round":{:.1f},)"
                                 R"("partitions":{},"messages":{}}})",
                                 healthy, healthy ? "consuming" : "stalled", seconds,
                                 partitions_.value(), messages_.value())};
  }

  collect::MetricsRegistry registry_;
  collect::Counter& messages_;
  collect::Counter& epochs_;
  collect::Counter& fenced_;
  collect::Counter& rebalances_;
  collect::Gauge& partitions_;
  collect::Gauge& lag_;
  runner::KafkaRunProgress last_;  // consuming thread only
  std::atomic<std::chrono::steady_clock::rep> last_round_{0};
  collect::MetricsServer server_;  // last: stops before the rest goes
};

}  // namespace

void AddKafkaRunFlags(CLI::App* sub, KafkaRunFlags& flags) {
  sub->add_option("--group", flags.group,
                  "Kafka consumer group: with --kafka, consume the topic as one member");
  sub->add_flag("--until-end", flags.until_end,
                "With --kafka: stop once every partition committed its end-of-input marker");
  sub->add_option("--report", flags.report, "With --kafka: write the JSON run report here");
  sub->add_option("--epoch-records", flags.epoch_records, "Commit at least every N records")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  sub->add_option("--session-timeout", flags.session_timeout_s,
                  "With --kafka: seconds of silence after which the group reassigns a member's "
                  "partitions")
      ->capture_default_str();
  sub->add_option("--kafka-property", flags.kafka_properties,
                  "Extra librdkafka property KEY=VALUE (repeatable)");
  sub->add_option("--kafka-wait", flags.kafka_wait_s,
                  "Seconds to wait for unreachable brokers at start")
      ->capture_default_str();
  sub->add_option("--postgres-wait", flags.postgres_wait_s,
                  "Seconds to wait for an unreachable PostgreSQL before failing")
      ->capture_default_str();
  sub->add_option("--threads", flags.threads, "Threads for partitions (default: cores)");
  sub->add_option("--alerts-topic", flags.alerts_topic,
                  "With --kafka and --gtfs: also publish each alert of the group's regularity "
                  "follower (raised, then again when closed) to this topic of the same brokers, "
                  "keyed by alert_id, as JSON");
  sub->add_option("--fault", flags.faults,
                  "With --kafka, for the crash and fault tests only: KEY=VALUE (repeatable), "
                  "pg-pause-before-commit-ms, rebalance-pause-ms or messages-per-second "
                  "(docs/scale-out.md, Test hooks)")
      ->group("");  // a test hook: not in --help
}

base::Status ParseFaults(const std::vector<std::string>& faults, runner::KafkaRunFaults& runner,
                         sink::PostgresSinkOptions& sink) {
  constexpr std::int64_t kMaxPauseMs = 3'600'000;
  for (const auto& fault : faults) {
    const auto eq = fault.find('=');
    const std::string key = fault.substr(0, eq);
    const std::string text = eq == std::string::npos ? std::string() : fault.substr(eq + 1);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    const bool number = !text.empty() && error == std::errc() && end == text.data() + text.size();
    if (key == "pg-pause-before-commit-ms" || key == "rebalance-pause-ms") {
      if (!number || value < 0 || value > kMaxPauseMs) {
        return base::InvalidInput("--fault {}: want {}=N, N milliseconds from 0 to {}", fault, key,
                                  kMaxPauseMs);
      }
      (key == "rebalance-pause-ms" ? runner.rebalance_pause : sink.pause_before_commit) =
          std::chrono::milliseconds(value);
    } else if (key == "messages-per-second") {
      if (!number || value < 10) {
        return base::InvalidInput("--fault {}: want messages-per-second=N, N at least 10", fault);
      }
      runner.messages_per_second = value;
    } else {
      return base::InvalidInput(
          "--fault {}: unknown fault; known: pg-pause-before-commit-ms, rebalance-pause-ms, "
          "messages-per-second",
          fault);
    }
  }
  return base::Status::Ok();
}

int RunKafkaConsumer(const KafkaRunSource& source, const KafkaRunFlags& flags) {
  if (source.topic.empty() || flags.group.empty()) {
    return ReportError(base::InvalidInput("frota run --kafka needs --topic T and --group G"));
  }
  if (source.postgres.empty()) {
    return ReportError(base::InvalidInput(
        "frota run --kafka needs --postgres DSN: the scale-out sink is PostgreSQL"));
  }
  runner::KafkaRunConfig config;
  sink::PostgresSinkOptions options;
  if (const auto faults = ParseFaults(flags.faults, config.faults, options); !faults.ok()) {
    return ReportError(faults.error());
  }
  runner::ReplayConfig context_config;
  context_config.gtfs = source.gtfs;
  context_config.area = source.area;
  context_config.garages = source.garages;
  context_config.time_zone = source.time_zone;
  context_config.rules = source.rules;
  auto context = runner::LoadReplayContext(context_config);
  if (!context.ok()) {
    return ReportError(context.error());
  }
  config.consumer.brokers = source.brokers;
  config.consumer.topic = source.topic;
  config.consumer.group = flags.group;
  config.consumer.connect_wait =
      std::chrono::seconds(static_cast<std::int64_t>(flags.kafka_wait_s));
  config.consumer.session_timeout =
      std::chrono::milliseconds(static_cast<std::int64_t>(flags.session_timeout_s * 1000));
  auto properties = transport::ParseKafkaProperties(flags.kafka_properties);
  if (!properties.ok()) {
    return ReportError(properties.error());
  }
  config.consumer.properties = std::move(*properties);
  config.epoch_records = flags.epoch_records;
  if (source.epoch_seconds > 0) {
    config.epoch_interval =
        std::chrono::milliseconds(static_cast<std::int64_t>(source.epoch_seconds * 1000));
  }
  config.threads = flags.threads > 0 ? flags.threads : base::CoreCount();
  config.until_end = flags.until_end;
  config.progress = true;
  config.retention = source.retention;

  std::atomic<bool> stop{false};
  StopOnSignal signals(stop);  // before any thread exists
  model::SourceCatalog catalog;
  options.dsn = source.postgres;
  options.run_id = base::NewRunId(base::SystemClock::Get().Now());
  options.rules = job::RuleValues((*context)->job);
  options.garages = GarageRecordOf(**context);
  options.unavailable_wait = std::chrono::seconds(static_cast<std::int64_t>(flags.postgres_wait_s));
  sink::PostgresSinkOptions options_for_follower = options;
  options_for_follower.run_id = options.run_id + "-regularity";
  options_for_follower.pause_before_commit = {};
  auto sink = sink::PostgresSink::Open(std::move(options), &catalog);
  if (!sink.ok()) {
    return ReportError(sink.error());
  }
  // Given a GTFS plan, the regularity jobs run beside the member, one member of the group
  // leading them at a time (runner/regularity_follower.h), once the partitions are known.
  runner::RegularityFollowerConfig regularity_config;
  regularity_config.topic = source.topic;
  regularity_config.until_end = flags.until_end;
  if (!flags.alerts_topic.empty()) {
    if (!(*context)->feed) {
      return ReportError(base::InvalidInput("--alerts-topic needs --gtfs (alerts read the plan)"));
    }
    auto publish = OpenAlertsTopic(source.brokers, flags.alerts_topic, flags.kafka_wait_s);
    if (!publish.ok()) {
      return ReportError(publish.error());
    }
    regularity_config.publish_alerts = std::move(*publish);
  }
  RegularityThread regularity(source.postgres, options_for_follower, **context, regularity_config,
                              stop);
  if ((*context)->feed) {
    config.on_partition_count = [&regularity](std::int32_t partitions) {
      regularity.Start(partitions);
    };
  }
  std::optional<MemberMetrics> metrics;
  if (!source.metrics.empty()) {
    metrics.emplace();
    if (const auto started = metrics->Start(source.metrics); !started.ok()) {
      return ReportError(started.error());
    }
    config.on_progress = [&metrics](const runner::KafkaRunProgress& progress) {
      metrics->OnProgress(progress);
    };
  }
  const auto report = runner::RunKafka(config, **context, catalog, **sink, stop);
  if (!report.ok()) {
    stop.store(true);
    (void)regularity.Join();
    return ReportError(report.error());
  }
  if (const auto follower = regularity.Join(); !follower.ok()) {
    return ReportError(follower.error());
  }
  if (!flags.report.empty()) {
    const auto written =
        base::WriteFileAtomic(flags.report, runner::KafkaReportJson(*report) + "\n");
    if (!written.ok()) {
      return ReportError(written.error());
    }
  }
  spdlog::info(
      "run done topic={} group={} messages={} epochs={} fenced={} resets={} "
      "seconds={:.2f} reached_end={}",
      report->topic, report->group, report->messages, report->epochs, report->fenced,
      report->resets, report->duration_s, report->reached_end);
  return kExitOk;
}

}  // namespace frota::cli
