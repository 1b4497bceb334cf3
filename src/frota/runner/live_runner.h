// Drives a growing bronze archive through the job pipeline into a sink: `frota run`.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "frota/base/clock.h"
#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/engine/transactional_sink.h"
#include "frota/model/rows.h"
#include "frota/model/source.h"
#include "frota/runner/bronze_retention.h"
#include "frota/runner/replay_runner.h"
#include "frota/runner/retention.h"
#include "frota/source/archive_follower.h"

namespace frota::runner {

/// One committed epoch, for metrics.
struct LiveEpoch {
  std::int64_t epoch = 0;
  double commit_seconds = 0;
  base::Timestamp watermark;
  std::int64_t records = 0;
};

/// What `frota run` asks of the engine side.
/// The run's database among the downstreams of its archive's bronze retention (the Kafka
/// publisher, when the run also publishes, is the next one).
inline constexpr int kDatabaseDownstream = 0;

struct LiveConfig {
  std::filesystem::path archive;
  std::optional<model::Mode> mode;
  std::int32_t partitions = 1;
  std::size_t threads = 1;
  std::int64_t epoch_records = 1'000'000;
  std::chrono::milliseconds epoch_interval{2000};
  /// How often the archive is scanned when no waker says that something was archived.
  std::chrono::milliseconds scan_interval{1000};
  std::size_t batch_records = 16384;
  /// Every response with an earlier ingest time is visible in the archive (the in-process
  /// collector's promise); lets the watermark advance while feeds are silent. Empty: none.
  std::function<std::optional<base::Timestamp>()> ingest_floor;
  /// True once no further response will be archived: the runner reads what is left,
  /// commits a last epoch and returns. Read before each scan.
  std::function<bool()> stopping;
  source::ArchiveWaker* waker = nullptr;  // optional
  /// Report timestamps, epoch_interval and, without a waker, the wait between scans;
  /// null: base::SystemClock::Get(). `frota run` passes the collector's clock.
  base::Clock* clock = nullptr;
  std::function<void(const LiveEpoch&)> after_commit;
  /// Rewritten (atomically) after each commit: the engine's stage report.
  std::filesystem::path report_file;
  std::string run_id;
  std::string db;
  /// Retention (`--retain-days`, `--retain-results-days`, `[retention]`): none by default.
  RetentionPolicy retention;
  /// The archive's retention (`--retain-days`; none: keep it all), told of every commit
  /// as downstream kDatabaseDownstream.
  BronzeRetention* bronze = nullptr;
};

/// The engine's stage report.
struct LiveReport {
  std::string status = "running";
  std::string started_at;
  std::string updated_at;
  std::int64_t responses = 0;
  std::int64_t records = 0;
  std::int64_t skipped_records = 0;
  std::int64_t accepted = 0;
  std::map<std::string, std::int64_t> rejected;
  std::map<std::string, std::int64_t> rows;
  std::int64_t epochs = 0;
  std::int64_t first_epoch = 0;
  bool resumed = false;
  std::string watermark;
  double duration_s = 0;
  std::int64_t peak_rss_bytes = 0;
  std::vector<job::RuleValue> rules;  // the rules the run applied
};

/// Follows `config.archive` (source::ArchiveFollower) until `config.stopping` says the
/// collector is done, exactly once into `sink`:
///
///  - start: recover the last epoch, restore the pipeline, and catch up from the
///    committed offsets (what was archived while the process was down comes first, in
///    ingest order across feeds);
///  - then each round: read the ingest floor, scan, offer every new record, move the
///    watermark's idle clock to the floor, advance, and commit an epoch when one is due
///    (records, rows or a watermark move, every epoch_interval) — so a silent feed does
///    not hold results back;
///  - stop: a last scan, a last epoch; the watermark is NOT flushed to its maximum, so a
///    restart goes on where this run stopped and nothing becomes late.
///
/// The offsets and partitions are those of `frota replay archive:ROOT`. Runs on the
/// calling thread; epochs commit on an AsyncCommitter thread.
base::Result<LiveReport> RunLive(const LiveConfig& config, const ReplayContext& context,
                                 model::SourceCatalog& catalog,
                                 engine::TransactionalSink<model::EpochRows>& sink);

std::string LiveReportJson(const LiveReport& report, const LiveConfig& config);

}  // namespace frota::runner
