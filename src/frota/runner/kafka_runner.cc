#include "frota/runner/kafka_runner.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "frota/base/file.h"
#include "frota/base/run_id.h"
#include "frota/engine/epoch.h"
#include "frota/engine/watermark.h"
#include "frota/job/pipeline.h"
#include "frota/runner/epoch_driver.h"
#include "frota/source/replay_source.h"
#include "frota/transport/payload.h"

namespace frota::runner {

namespace {

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Commits epochs on a background thread, one at a time and in order, so that the sink's
// round trips overlap the next epoch's decoding and jobs. Wait() returns the outcome of
// the commit in flight (kCommitted when there is none); Start() hands over the next one
// and may only follow a Wait(). The sink is touched by this thread only between Start()
// and the next Wait(), so the polling thread may use it (Acquire, Release) after a Wait().
class EpochCommitter {
 public:
  using Sink = engine::PartitionedSink<model::EpochRows>;
  explicit EpochCommitter(Sink& sink) : sink_(sink), thread_([this] { Run(); }) {}
  ~EpochCommitter() {
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  EpochCommitter(const EpochCommitter&) = delete;
  EpochCommitter& operator=(const EpochCommitter&) = delete;

  base::Result<engine::CommitOutcome> Wait() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !work_; });
    auto outcome = std::move(outcome_);
    outcome_ = engine::CommitOutcome::kCommitted;
    return outcome;
  }
  void Start(model::EpochRows rows, engine::PartitionedEpoch epoch) {
    {
      const std::lock_guard lock(mutex_);
      work_.emplace(std::move(rows), std::move(epoch));
    }
    changed_.notify_all();
  }

 private:
  void Run() {
    std::unique_lock lock(mutex_);
    while (true) {
      changed_.wait(lock, [&] { return stop_ || work_.has_value(); });
      if (!work_) {
        return;
      }
      lock.unlock();
      auto outcome = sink_.CommitPartitions(work_->first, work_->second);
      lock.lock();
      outcome_ = std::move(outcome);
      work_.reset();
      changed_.notify_all();
    }
  }

  Sink& sink_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<std::pair<model::EpochRows, engine::PartitionedEpoch>> work_;
  base::Result<engine::CommitOutcome> outcome_ = engine::CommitOutcome::kCommitted;
  bool stop_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

std::string PartitionList(const std::vector<base::PartitionId>& partitions) {
  std::string out;
  for (const auto p : partitions) {
    out += (out.empty() ? "" : ",") + std::to_string(p.value());
  }
  return out.empty() ? "none" : out;
}

// One member of the consumer group: the polling thread's whole state. The rebalance
// callbacks (OnAssigned, OnRevoked) run inside Consumer::Poll on the same thread.
class KafkaRun : public transport::RebalanceListener, public EpochOutput {
 public:
  KafkaRun(const KafkaRunConfig& config, const ReplayContext& context,
           model::SourceCatalog& catalog, engine::PartitionedSink<model::EpochRows>& sink)
      : config_(config),
        catalog_(catalog),
        sink_(sink),
        pipeline_(context.job, job::Routing::kBySourcePartition, 0, &catalog, config.threads),
        clock_(config.clock != nullptr ? *config.clock : base::SystemClock::Get()),
        policy_(config.epoch_records, config.epoch_interval, clock_),
        committer_(sink),
        driver_(pipeline_, /*regularity=*/nullptr, policy_, *this) {
    driver_.SetRetention(config.retention, context.job.time_zone);
    report_.topic = config.consumer.topic;
    report_.group = config.consumer.group;
    report_.rules = job::RuleValues(context.job);
  }

  base::Result<KafkaRunReport> Run(const std::atomic<bool>& stop) {
    const auto started = std::chrono::steady_clock::now();
    FROTA_ASSIGN_OR_RETURN(consumer_, transport::Consumer::Create(config_.consumer, this));
    if (config_.on_partition_count) {
      config_.on_partition_count(consumer_->partition_count());
    }
    const std::string& topic = config_.consumer.topic;
    std::vector<transport::Message> batch;
    auto last_end_check = clock_.Steady();
    auto last_progress = started;
    // Fault injection: at most this many messages per second, so that a crash test can
    // kill members many times before they finish a small topic.
    std::size_t poll_records = config_.poll_records;
    std::chrono::milliseconds poll_pause{0};
    if (config_.faults.messages_per_second > 0) {
      const auto per_second = std::max<std::int64_t>(config_.faults.messages_per_second, 10);
      poll_records = static_cast<std::size_t>(per_second / 10);
      poll_pause = std::chrono::milliseconds(100);
    }
    while (!stop.load()) {
      if (poll_pause.count() > 0) {
        std::this_thread::sleep_for(poll_pause);  // real time: see KafkaRunFaults
      }
      FROTA_RETURN_IF_ERROR(consumer_->Poll(batch, poll_records, std::chrono::milliseconds(100)));
      if (needs_reset_) {
        FROTA_RETURN_IF_ERROR(Reset());
        // Every owned partition was sought back to its committed offset: what this poll
        // returned would skip ahead of it. It is read again after the seek.
        batch.clear();
      }
      for (const auto& message : batch) {
        FROTA_RETURN_IF_ERROR(Handle(message));
      }
      FROTA_RETURN_IF_ERROR(driver_.ReleaseIfDue(poll_records));
      if (policy_.Due()) {
        FROTA_RETURN_IF_ERROR(CutEpoch(/*wait=*/false));
      }
      if (config_.until_end && clock_.Steady() - last_end_check >= std::chrono::seconds(1) &&
          (next_offset_.empty() || pipeline_.finished())) {
        last_end_check = clock_.Steady();
        // Everything this member holds is final: commit it, then see whether the others
        // are done too.
        FROTA_RETURN_IF_ERROR(CutEpoch(/*wait=*/true));
        if (!needs_reset_) {
          FROTA_ASSIGN_OR_RETURN(const auto finished, sink_.FinishedPartitions(topic));
          if (finished >= consumer_->partition_count()) {
            spdlog::info("every partition of {} reached its end of input ({}); stopping", topic,
                         finished);
            report_.reached_end = true;
            break;
          }
        }
      }
      // The progress line only reports: steady_clock, as base/clock.h allows.
      const auto now = std::chrono::steady_clock::now();
      if (config_.progress && ::isatty(STDERR_FILENO) == 1 &&
          now - last_progress >= std::chrono::milliseconds(500)) {
        last_progress = now;
        fmt::print(stderr, "\r\x1b[Krun {} messages  {:.0f}/s  partitions {}  epochs {}",
                   report_.messages, report_.messages / std::max(Seconds(now - started), 1e-3),
                   PartitionList(pipeline_.Partitions()), report_.epochs);
      }
      if (config_.on_progress) {
        config_.on_progress({report_.messages, report_.epochs, report_.fenced, report_.rebalances,
                             next_offset_.size(), last_watermark_});
      }
    }
    // Leaving: commit what was read, then leave the group (its revocation finds nothing
    // new to commit).
    FROTA_RETURN_IF_ERROR(CutEpoch(/*wait=*/true));
    FROTA_RETURN_IF_ERROR(consumer_->Close());
    if (config_.progress && ::isatty(STDERR_FILENO) == 1) {
      fmt::print(stderr, "\r\x1b[K");
    }
    report_.accepted = driver_.tally().accepted;
    report_.rejected = driver_.tally().rejected;
    report_.rows = driver_.tally().rows;
    report_.watermark = engine::WatermarkText(last_watermark_);
    report_.duration_s = Seconds(std::chrono::steady_clock::now() - started);
    report_.peak_rss_bytes = base::PeakRssBytes();
    return report_;
  }

  // Partitions added to this member: restore each from the sink and read from its
  // committed offset (Kafka's own committed offset is ignored).
  base::Result<std::vector<std::optional<std::int64_t>>> OnAssigned(
      const std::vector<base::PartitionId>& partitions) override {
    ++report_.rebalances;
    FROTA_RETURN_IF_ERROR(Settle());
    FROTA_ASSIGN_OR_RETURN(const auto checkpoints,
                           sink_.Acquire(config_.consumer.topic, partitions));
    std::vector<std::optional<std::int64_t>> offsets;
    for (const auto& cp : checkpoints) {
      FROTA_RETURN_IF_ERROR(Install(cp));
      offsets.push_back(cp.next_offset ? std::optional<std::int64_t>(cp.next_offset->value())
                                       : std::nullopt);
    }
    return offsets;
  }

  // Partitions leaving this member: commit the open epoch (it holds what was read from
  // them), then forget them. If that commit is fenced, the partitions are dropped anyway
  // (their next owner restores the committed state) and the kept ones are reset.
  base::Status OnRevoked(const std::vector<base::PartitionId>& partitions, bool lost) override {
    ++report_.rebalances;
    if (config_.faults.rebalance_pause.count() > 0) {
      // Fault injection: widens the window in which a test kills a member mid-rebalance.
      std::fprintf(stderr, "test hook: revoking partitions=%s, pausing\n",
                   PartitionList(partitions).c_str());
      std::fflush(stderr);
      std::this_thread::sleep_for(config_.faults.rebalance_pause);  // real time
    }
    if (!needs_reset_) {
      FROTA_RETURN_IF_ERROR(CutEpoch(/*wait=*/true));
    }
    for (const auto p : partitions) {
      pipeline_.DropPartition(p);
      next_offset_.erase(p.value());
      dirty_.erase(p.value());
    }
    sink_.Release(partitions);
    spdlog::info("partitions released partitions={} lost={} committed={}",
                 PartitionList(partitions), lost, !needs_reset_);
    return base::Status::Ok();
  }

 private:
  // Waits for the commit in flight; a fence marks every owned partition for a reset.
  base::Status Settle() {
    FROTA_ASSIGN_OR_RETURN(const auto outcome, committer_.Wait());
    if (outcome == engine::CommitOutcome::kFenced) {
      ++report_.fenced;
      needs_reset_ = true;
    } else if (!inflight_offsets_.empty()) {
      consumer_->CommitOffsets(inflight_offsets_);  // informational
    }
    inflight_offsets_.clear();
    return base::Status::Ok();
  }

  base::Status Install(const engine::PartitionCheckpoint& cp) {
    const auto p = cp.partition;
    pipeline_.DropPartition(p);
    if (cp.state.empty()) {
      pipeline_.AddPartition(p);
    } else if (const auto restored = pipeline_.RestorePartition(p, cp.state); !restored.ok()) {
      return restored.error().WithContext(
          fmt::format("topic {} partition {}", config_.consumer.topic, p.value()));
    }
    next_offset_[p.value()] = cp.next_offset ? cp.next_offset->value() : 0;
    dirty_.erase(p.value());
    spdlog::info("partition acquired partition={} offset={} finished={} watermark={}", p.value(),
                 cp.next_offset ? std::to_string(cp.next_offset->value()) : "beginning",
                 cp.finished, engine::WatermarkText(pipeline_.PartitionWatermark(p)));
    return base::Status::Ok();
  }

  base::Status Handle(const transport::Message& message) {
    const std::int32_t p = message.partition.value();
    const auto it = next_offset_.find(p);
    if (it == next_offset_.end()) {
      return base::Status::Ok();  // polled before its revocation: its next owner reads it
    }
    if (message.offset < it->second) {
      ++report_.stale_messages;  // fetched before a seek back
      return base::Status::Ok();
    }
    it->second = message.offset + 1;
    dirty_.insert(p);
    ++report_.messages;
    ++epoch_messages_;
    auto decoded = transport::DecodePayload(message.payload, catalog_);
    if (!decoded.ok()) {
      driver_.Offer(message.partition, BadPayload(message, decoded.error().message()));
      return base::Status::Ok();
    }
    if (auto* position = std::get_if<model::Position>(&*decoded)) {
      driver_.Offer(message.partition, std::move(*position));
    } else if (auto* rejection = std::get_if<model::Rejection>(&*decoded)) {
      driver_.Offer(message.partition, std::move(*rejection));
    } else if (auto* poll = std::get_if<model::PollRow>(&*decoded)) {
      policy_.Count(1);
      model::EpochRows polls;  // collector_polls, in this epoch
      polls.of<model::PollRow>().push_back(std::move(*poll));
      return driver_.Write(std::move(polls));
    } else {
      policy_.Count(1);
      pipeline_.FinishPartition(message.partition);
      spdlog::info("end of input partition={} offset={}", p, message.offset);
    }
    return base::Status::Ok();
  }

  // A message that does not decode: refused with its place in the topic, dated by the
  // message's timestamp, keyed by what its key says.
  model::Rejection BadPayload(const transport::Message& message, const std::string& why) {
    model::Rejection r;
    r.reason = model::RejectReason::kBadPayload;
    const auto slash = message.key.find('/');
    if (message.key.empty()) {
      r.feed_id = config_.consumer.topic;
    } else if (slash == std::string_view::npos) {
      r.feed_id = std::string(message.key);
    } else {
      r.feed_id = std::string(message.key.substr(0, slash));
      r.vehicle_id = std::string(message.key.substr(slash + 1));
    }
    r.ingest_time = message.timestamp;
    r.source = {
        catalog_.Intern(fmt::format("{}/{}", config_.consumer.topic, message.partition.value())),
        message.offset};
    r.detail = fmt::format("{} bytes: {}", message.payload.size(), why);
    spdlog::warn("bad payload topic={} partition={} offset={} error=\"{}\"", config_.consumer.topic,
                 message.partition.value(), message.offset, why);
    return r;
  }

  // Ends the open epoch through the driver, which hands it to EndEpoch (wait: and waits
  // for its commit).
  base::Status CutEpoch(bool wait) {
    FROTA_RETURN_IF_ERROR(driver_.CutEpoch());
    if (wait) {
      FROTA_RETURN_IF_ERROR(Settle());
    }
    return base::Status::Ok();
  }

 public:
  // EpochOutput: the open epoch's rows, held until its end; then the epoch of the
  // partitions read from in it, committed on the committer's thread.
  base::Status Write(model::EpochRows rows) override {
    pending_.Append(std::move(rows));
    return base::Status::Ok();
  }
  base::Result<bool> EndEpoch(const EpochEnd& end) override {
    FROTA_RETURN_IF_ERROR(Settle());
    if (needs_reset_) {
      return false;  // our state is not the committed one: nothing to commit
    }
    const bool commits = !dirty_.empty();
    if (commits) {
      engine::PartitionedEpoch epoch;
      epoch.epoch = end.epoch;
      epoch.watermark = end.watermark;
      epoch.records = epoch_messages_;
      epoch.retention = end.retention;
      for (const std::int32_t p : dirty_) {
        const base::PartitionId id(p);
        epoch.progress.push_back({fmt::format("{}/{}", config_.consumer.topic, p), id,
                                  base::Offset(next_offset_.at(p))});
        epoch.states.push_back(
            {id, pipeline_.SnapshotPartition(id), pipeline_.PartitionWatermark(id)});
        if (pipeline_.PartitionWatermark(id) == engine::kWatermarkMax) {
          epoch.finished.push_back(id);
        }
        inflight_offsets_.emplace_back(id, next_offset_.at(p));
      }
      last_watermark_ = epoch.watermark;
      spdlog::debug("epoch submitted epoch={} messages={} rows={} partitions={}", end.epoch.value(),
                    epoch_messages_, pending_.RowCount(), dirty_.size());
      committer_.Start(std::move(pending_), std::move(epoch));
      ++report_.epochs;
    }
    pending_ = model::EpochRows();
    dirty_.clear();
    epoch_messages_ = 0;
    return commits;
  }

 private:
  // After a fence: every owned partition back to its committed state and offset.
  base::Status Reset() {
    FROTA_RETURN_IF_ERROR(Settle());
    needs_reset_ = false;
    ++report_.resets;
    pending_ = model::EpochRows();
    dirty_.clear();
    epoch_messages_ = 0;
    driver_.DiscardOpenEpoch();
    std::vector<base::PartitionId> owned;
    for (const auto& [p, offset] : next_offset_) {
      owned.emplace_back(p);
    }
    for (const auto p : owned) {
      pipeline_.DropPartition(p);
    }
    spdlog::warn("restoring partitions={} from the sink after a fenced commit",
                 PartitionList(owned));
    FROTA_ASSIGN_OR_RETURN(const auto checkpoints, sink_.Acquire(config_.consumer.topic, owned));
    std::vector<std::pair<base::PartitionId, std::optional<std::int64_t>>> seeks;
    for (const auto& cp : checkpoints) {
      FROTA_RETURN_IF_ERROR(Install(cp));
      seeks.emplace_back(cp.partition, cp.next_offset
                                           ? std::optional<std::int64_t>(cp.next_offset->value())
                                           : std::nullopt);
    }
    return consumer_->Seek(seeks);
  }

  const KafkaRunConfig& config_;
  model::SourceCatalog& catalog_;
  engine::PartitionedSink<model::EpochRows>& sink_;
  job::Pipeline pipeline_;
  base::Clock& clock_;
  engine::EpochPolicy policy_;
  EpochCommitter committer_;
  EpochDriver driver_;  // last but the run's state below: uses the members above
  std::unique_ptr<transport::Consumer> consumer_;
  std::map<std::int32_t, std::int64_t> next_offset_;  // owned partitions: next offset to read
  std::set<std::int32_t> dirty_;                      // read from in the open epoch
  model::EpochRows pending_;
  std::int64_t epoch_messages_ = 0;
  bool needs_reset_ = false;
  std::vector<std::pair<base::PartitionId, std::int64_t>> inflight_offsets_;
  base::Timestamp last_watermark_ = base::Timestamp::min();
  KafkaRunReport report_;
};

}  // namespace

base::Result<PublishReport> PublishReplay(const PublishConfig& config, const ReplayContext& context,
                                          model::SourceCatalog& catalog) {
  const auto started = std::chrono::steady_clock::now();
  PublishReport report;
  FROTA_ASSIGN_OR_RETURN(auto partitions, ReplayPartitions(config.replay));
  report.input_bytes = InputBytes(partitions);
  FROTA_ASSIGN_OR_RETURN(auto producer, transport::Producer::Create(config.producer));
  report.partitions = producer->partition_count();
  FROTA_ASSIGN_OR_RETURN(
      auto replay, source::ReplaySource::Open(std::move(partitions), &catalog,
                                              ReplaySourceOptions(config.replay, context), {}));
  source::PrefetchingSource source(std::move(replay), config.replay.batch_records);
  std::vector<source::SourceRecord> batch;
  // Source names, looked up once per id (the catalog locks on every lookup).
  std::vector<std::string> names;
  const auto name_of = [&](model::SourceId id) -> const std::string& {
    while (names.size() <= id) {
      names.push_back(catalog.Name(static_cast<model::SourceId>(names.size())));
    }
    return names[id];
  };
  auto last_progress = started;
  while (true) {
    FROTA_ASSIGN_OR_RETURN(const bool more, source.Next(batch));
    if (!more) {
      break;
    }
    for (const auto& record : batch) {
      if (const auto* position = std::get_if<model::Position>(&record.record)) {
        FROTA_RETURN_IF_ERROR(
            producer->PublishPosition(*position, name_of(position->source.source)));
        ++report.positions;
      } else {
        const auto& rejection = std::get<model::Rejection>(record.record);
        FROTA_RETURN_IF_ERROR(
            producer->PublishRejection(rejection, name_of(rejection.source.source)));
        ++report.rejections;
      }
      ++report.records;
    }
    const auto now = std::chrono::steady_clock::now();
    if (config.replay.progress && ::isatty(STDERR_FILENO) == 1 &&
        now - last_progress >= std::chrono::milliseconds(250)) {
      last_progress = now;
      fmt::print(stderr, "\r\x1b[Kpublish {} records  {:.0f}/s  delivered {}", report.records,
                 report.records / std::max(Seconds(now - started), 1e-3), producer->delivered());
    }
  }
  if (config.end_marker) {
    FROTA_RETURN_IF_ERROR(
        producer->PublishEndOfInput(base::NewRunId(base::SystemClock::Get().Now())));
  } else {
    FROTA_RETURN_IF_ERROR(producer->Flush());
  }
  if (config.replay.progress && ::isatty(STDERR_FILENO) == 1) {
    fmt::print(stderr, "\r\x1b[K");
  }
  report.duration_s = Seconds(std::chrono::steady_clock::now() - started);
  report.messages_per_s = report.duration_s > 0 ? report.records / report.duration_s : 0;
  return report;
}

base::Result<KafkaRunReport> RunKafka(const KafkaRunConfig& config, const ReplayContext& context,
                                      model::SourceCatalog& catalog,
                                      engine::PartitionedSink<model::EpochRows>& sink,
                                      const std::atomic<bool>& stop) {
  KafkaRun run(config, context, catalog, sink);
  return run.Run(stop);
}

std::string PublishReportJson(const PublishReport& report) {
  nlohmann::ordered_json j;
  j["records"] = report.records;
  j["positions"] = report.positions;
  j["rejections"] = report.rejections;
  j["partitions"] = report.partitions;
  j["input_bytes"] = report.input_bytes;
  j["duration_s"] = report.duration_s;
  j["messages_per_s"] = report.messages_per_s;
  return j.dump(2);
}

std::string KafkaReportJson(const KafkaRunReport& report) {
  nlohmann::ordered_json j;
  j["topic"] = report.topic;
  j["group"] = report.group;
  j["messages"] = report.messages;
  j["stale_messages"] = report.stale_messages;
  j["accepted"] = report.accepted;
  j["rejected"] = report.rejected;
  j["rows"] = report.rows;
  j["epochs"] = report.epochs;
  j["fenced"] = report.fenced;
  j["resets"] = report.resets;
  j["rebalances"] = report.rebalances;
  j["reached_end"] = report.reached_end;
  j["watermark"] = report.watermark;
  j["duration_s"] = report.duration_s;
  j["messages_per_s"] = report.duration_s > 0 ? report.messages / report.duration_s : 0.0;
  j["peak_rss_bytes"] = report.peak_rss_bytes;
  j["rules"] = RulesJson(report.rules);
  return j.dump(2);
}

}  // namespace frota::runner
