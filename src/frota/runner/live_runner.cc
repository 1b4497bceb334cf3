#include "frota/runner/live_runner.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>

#include "frota/base/empty_outputs.h"
#include "frota/base/file.h"
#include "frota/engine/epoch.h"
#include "frota/engine/watermark.h"
#include "frota/job/pipeline.h"
#include "frota/runner/epoch_driver.h"
#include "frota/runner/regularity_jobs.h"
#include "frota/source/poll_journal.h"

namespace frota::runner {

namespace {

// Measures each commit of the wrapped sink (for the epoch-commit-time metric: a measurement
// only, so steady_clock, as base/clock.h allows).
class TimedSink final : public engine::TransactionalSink<model::EpochRows> {
 public:
  explicit TimedSink(engine::TransactionalSink<model::EpochRows>& inner) : inner_(inner) {}
  base::Result<engine::RecoveredCheckpoint> Recover() override { return inner_.Recover(); }
  base::Status Commit(const model::EpochRows& rows,
                      const engine::EpochCheckpoint& checkpoint) override {
    const auto started = std::chrono::steady_clock::now();
    auto status = inner_.Commit(rows, checkpoint);
    last_seconds_.store(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    return status;
  }
  [[nodiscard]] double last_seconds() const { return last_seconds_.load(); }

 private:
  engine::TransactionalSink<model::EpochRows>& inner_;
  std::atomic<double> last_seconds_{0};
};

// The recovered offsets that are the archive's feeds' (not the poll journal's).
std::vector<engine::SourceProgress> ArchiveProgress(
    const source::PollJournalReader& journal,
    const std::vector<engine::SourceProgress>& recovered) {
  std::vector<engine::SourceProgress> out;
  for (const auto& p : recovered) {
    if (!journal.Owns(p)) {
      out.push_back(p);
    }
  }
  return out;
}

// What the engine has done so far, as the report says it ("running" until it stops).
struct LiveProgress {
  base::Clock& clock;
  std::chrono::steady_clock::time_point started;
  const job::Pipeline& pipeline;
  const source::ArchiveFollower& follower;
  const EpochDriver& driver;
};

// Brings the report up to date and writes it (config.report_file); once stopped, logs
// which outputs stayed empty.
void WriteLiveReport(LiveReport& report, std::string_view status, const LiveProgress& progress,
                     const LiveConfig& config) {
  report.status = std::string(status);
  report.updated_at = base::FormatIso8601(progress.clock.Now());
  report.duration_s =
      std::chrono::duration<double>(progress.clock.Steady() - progress.started).count();
  report.watermark = engine::WatermarkText(progress.pipeline.watermark());
  report.skipped_records = progress.follower.skipped_records();
  report.responses = progress.follower.responses_read();
  report.peak_rss_bytes = base::PeakRssBytes();
  report.epochs = progress.driver.epochs_cut();
  report.accepted = progress.driver.tally().accepted;
  report.rejected = progress.driver.tally().rejected;
  report.rows = progress.driver.tally().rows;
  if (status != "running") {
    std::int64_t refused = 0;
    for (const auto& [reason, n] : report.rejected) {
      refused += n;
    }
    base::LogEmptyOutputs("engine", config.run_id,
                          base::EmptyOutputs({{"valid", report.accepted}, {"rejected", refused}}));
  }
  if (config.report_file.empty()) {
    return;
  }
  std::error_code ec;
  std::filesystem::create_directories(config.report_file.parent_path(), ec);
  const auto written =
      base::WriteFileAtomic(config.report_file, LiveReportJson(report, config) + "\n");
  if (!written.ok()) {
    spdlog::error("engine report not written error={}", written.error().message());
  }
}

// The poll journal's new requests, as collector_polls rows of the open epoch.
base::Status WritePolls(source::PollJournalReader& journal, EpochDriver& driver) {
  std::vector<source::JournalPoll> polls;
  FROTA_RETURN_IF_ERROR(journal.Read(polls));
  if (polls.empty()) {
    return base::Status::Ok();
  }
  model::EpochRows poll_rows;
  for (auto& poll : polls) {
    poll_rows.of<model::PollRow>().push_back(std::move(poll.poll));
  }
  return driver.Write(std::move(poll_rows));
}

// Offers every record the archive holds now to the jobs, counting them in `offered` (the
// report written at a commit counts what came before it), and calls `commit` each time an
// epoch is full.
base::Status OfferAvailable(source::ArchiveFollower& follower, EpochDriver& driver,
                            const engine::EpochPolicy& policy, const LiveConfig& config,
                            std::int64_t& offered, const std::function<base::Status()>& commit) {
  std::vector<source::SourceRecord> batch;
  while (true) {
    FROTA_ASSIGN_OR_RETURN(const bool more, follower.Next(batch, config.batch_records));
    if (!more) {
      return base::Status::Ok();
    }
    for (auto& record : batch) {
      if (auto* position = std::get_if<model::Position>(&record.record)) {
        driver.Offer(record.partition, std::move(*position));
      } else {
        driver.Offer(record.partition, std::move(std::get<model::Rejection>(record.record)));
      }
    }
    offered += static_cast<std::int64_t>(batch.size());
    FROTA_RETURN_IF_ERROR(driver.Release());
    if (policy.records() >= config.epoch_records) {
      FROTA_RETURN_IF_ERROR(commit());
    }
  }
}

}  // namespace

std::string LiveReportJson(const LiveReport& report, const LiveConfig& config) {
  nlohmann::ordered_json j;
  j["stage"] = "engine";
  j["command"] = "run";
  j["run_id"] = config.run_id;
  j["status"] = report.status;
  j["started_at"] = report.started_at;
  j["updated_at"] = report.updated_at;
  j["duration_s"] = report.duration_s;
  j["inputs"] = {{"archive", config.archive.string()},
                 {"responses", report.responses},
                 {"records", report.records},
                 {"skipped_records", report.skipped_records}};
  std::int64_t errors = 0;
  for (const auto& [reason, n] : report.rejected) {
    errors += reason == "duplicate" ? 0 : n;
  }
  j["outputs"] = {{"accepted", report.accepted}, {"rows", report.rows}};
  j["rejected"] = report.rejected;
  std::int64_t refused = 0;
  for (const auto& [reason, n] : report.rejected) {
    refused += n;
  }
  j["empty"] = base::EmptyOutputs({{"valid", report.accepted}, {"rejected", refused}});
  j["error_rate"] =
      report.records > 0 ? static_cast<double>(errors) / static_cast<double>(report.records) : 0.0;
  j["epochs"] = report.epochs;
  j["first_epoch"] = report.first_epoch;
  j["resumed"] = report.resumed;
  j["watermark"] = report.watermark;
  j["peak_rss_bytes"] = report.peak_rss_bytes;
  j["paths"] = {{"archive", config.archive.string()}, {"db", config.db}};
  j["rules"] = RulesJson(report.rules);
  return j.dump(2);
}

base::Result<LiveReport> RunLive(const LiveConfig& config, const ReplayContext& context,
                                 model::SourceCatalog& catalog,
                                 engine::TransactionalSink<model::EpochRows>& inner_sink) {
  base::Clock& clock = config.clock != nullptr ? *config.clock : base::SystemClock::Get();
  const auto started = clock.Steady();
  LiveReport report;
  report.started_at = base::FormatIso8601(clock.Now());
  report.rules = job::RuleValues(context.job);
  TimedSink sink(inner_sink);
  FROTA_ASSIGN_OR_RETURN(auto recovered, sink.Recover());
  job::Pipeline pipeline(context.job, job::Routing::kByKeyHash, config.partitions, &catalog,
                         config.threads);
  source::ReplayOptions options;
  options.mode = config.mode;
  options.time_zone = context.job.time_zone->name();
  // The collector's poll journals beside the archive's feeds: collector_polls rows, their
  // offsets committed with the epoch like the feeds'.
  source::PollJournalReader journal(config.archive, recovered.progress);
  FROTA_ASSIGN_OR_RETURN(
      auto follower, source::ArchiveFollower::Open(config.archive, &catalog, options,
                                                   ArchiveProgress(journal, recovered.progress)));
  engine::EpochPolicy policy(config.epoch_records, config.epoch_interval, clock);
  TransactionalOutput output(
      sink, pipeline,
      [&] {
        std::vector<engine::SourceProgress> progress = follower->Progress();
        for (auto& p : journal.Progress()) {
          progress.push_back(std::move(p));
        }
        return progress;
      },
      [&](const engine::EpochCheckpoint& committed) {
        if (config.bronze != nullptr) {
          config.bronze->AfterCommit(kDatabaseDownstream, committed);
        }
        if (config.after_commit) {
          config.after_commit({committed.epoch.value(), sink.last_seconds(), committed.watermark,
                               committed.records});
        }
      });
  EpochDriver driver(pipeline, RegularityJobs::ForContext(context), policy, output);
  FROTA_RETURN_IF_ERROR(driver.Restore(recovered));
  driver.SetRetention(config.retention, context.job.time_zone);
  report.resumed = recovered.last_epoch.value() > 0;
  report.first_epoch = recovered.last_epoch.value() + 1;
  if (report.resumed) {
    spdlog::info("engine resuming after epoch {} watermark={}", recovered.last_epoch.value(),
                 engine::WatermarkText(pipeline.watermark()));
  }
  base::Timestamp committed_watermark = pipeline.watermark();
  auto last_commit = clock.Steady();

  const LiveProgress progress{clock, started, pipeline, *follower, driver};
  const auto write_report = [&](std::string_view status) {
    WriteLiveReport(report, status, progress, config);
  };
  const std::function<base::Status()> commit = [&]() -> base::Status {
    FROTA_RETURN_IF_ERROR(driver.CutEpoch());
    committed_watermark = pipeline.watermark();
    last_commit = clock.Steady();
    write_report("running");
    return base::Status::Ok();
  };

  while (true) {
    // Both are read before the scan: what they promise is then visible to it.
    const bool last_round = config.stopping && config.stopping();
    const auto floor = config.ingest_floor ? config.ingest_floor() : std::nullopt;
    FROTA_RETURN_IF_ERROR(follower->Scan());
    FROTA_RETURN_IF_ERROR(WritePolls(journal, driver));
    FROTA_RETURN_IF_ERROR(
        OfferAvailable(*follower, driver, policy, config, report.records, commit));
    if (floor) {
      pipeline.AdvanceIngestTime(*floor);
    }
    FROTA_RETURN_IF_ERROR(driver.Release());
    const bool something = policy.records() > 0 || driver.open_epoch_rows() > 0 ||
                           pipeline.watermark() != committed_watermark;
    if (something && (last_round || clock.Steady() - last_commit >= config.epoch_interval)) {
      FROTA_RETURN_IF_ERROR(commit());
    }
    if (last_round) {
      break;
    }
    if (config.waker != nullptr) {
      config.waker->Wait(config.scan_interval);
    } else {
      clock.SleepFor(config.scan_interval);
    }
  }
  FROTA_RETURN_IF_ERROR(output.Drain());
  write_report("ok");
  spdlog::info("engine stopped epochs={} records={} watermark={}", report.epochs, report.records,
               report.watermark);
  return report;
}

}  // namespace frota::runner
