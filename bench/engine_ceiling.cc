// The engine's ceiling: validation and every job over records decoded beforehand, timed alone.
//
// Reads the inputs `frota replay` reads, through the same code (source::ReplaySource over
// the same partitions, the same job configuration from runner::LoadReplayContext), decodes
// every record into memory untimed, its strings interned into the pipeline's dictionary as
// the replay's decoding thread does, then times only job::Pipeline: Offer, Advance after
// a batch when Pipeline::AdvanceDue says so, as the replay runner does, Finish, TakeRows
// (rows counted, then dropped).
// No sink, no epochs, no checkpoints: what a replay's pipeline thread would take if
// decoding and writing cost nothing. Prints one JSON object; bench/compare/run.sh checks its counts
// against the replay's run report.
//
//   engine_ceiling INPUT... [--feed-id ID] [--mode bus] [--time-zone ZONE] [--gtfs G]
//                  [--area A] [--partitions N] [--threads N] [--batch-records N]
#include <fmt/core.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frota/base/file.h"
#include "frota/job/pipeline.h"
#include "frota/model/mode.h"
#include "frota/runner/replay_runner.h"
#include "frota/runner/row_counts.h"
#include "frota/source/replay_source.h"

namespace frota::bench {
namespace {

/// What the pipeline emitted, counted as the replay's run report counts it.
struct Counts {
  std::int64_t accepted = 0;
  std::map<std::string, std::int64_t> rejected;  // by reason
  std::map<std::string, std::int64_t> rows;      // by output table
};

std::chrono::duration<double> CpuTime() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return std::chrono::seconds(t.tv_sec) + std::chrono::microseconds(t.tv_usec);
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Every record of the inputs, in the order a replay offers them, in the batches the replay
// runner takes them in (kept as they come: no reallocation, no slack capacity), interned
// by `interner` as a replay's decoding thread interns them.
using Batches = std::vector<std::vector<source::InternedRecord>>;
base::Result<Batches> DecodeAll(const runner::ReplayConfig& config,
                                const runner::ReplayContext& context,
                                model::SourceCatalog& catalog, model::RecordInterner& interner) {
  FROTA_ASSIGN_OR_RETURN(auto partitions, runner::ReplayPartitions(config));
  FROTA_ASSIGN_OR_RETURN(
      auto replay, source::ReplaySource::Open(std::move(partitions), &catalog,
                                              runner::ReplaySourceOptions(config, context), {}));
  Batches batches;
  while (true) {
    std::vector<source::InternedRecord> batch;
    FROTA_ASSIGN_OR_RETURN(const bool more, replay->Next(batch, config.batch_records, interner));
    if (!more) {
      break;
    }
    batch.shrink_to_fit();
    batches.push_back(std::move(batch));
  }
  return batches;
}

int Run(const runner::ReplayConfig& config) {
  auto context = runner::LoadReplayContext(config);
  if (!context.ok()) {
    fmt::print(stderr, "engine_ceiling: {}\n", context.error().message());
    return 1;
  }
  model::SourceCatalog catalog;
  job::Pipeline pipeline((*context)->job, job::Routing::kByKeyHash, config.partitions, &catalog,
                         config.threads);
  const auto decode_started = std::chrono::steady_clock::now();
  auto batches = DecodeAll(config, **context, catalog, pipeline.interner());
  if (!batches.ok()) {
    fmt::print(stderr, "engine_ceiling: {}\n", batches.error().message());
    return 1;
  }
  const std::chrono::duration<double> decode_time =
      std::chrono::steady_clock::now() - decode_started;
  const std::int64_t rss_after_decode = base::CurrentRssBytes();
  std::int64_t records = 0;
  for (const auto& batch : *batches) {
    records += static_cast<std::int64_t>(batch.size());
  }

  // The timed part: what RunReplay does with each batch, minus the sink and checkpoints.
  Counts counts;
  const auto cpu_started = CpuTime();
  const auto started = std::chrono::steady_clock::now();
  for (auto& batch : *batches) {
    for (auto& record : batch) {
      if (auto* position = std::get_if<model::PositionRecord>(&record.record)) {
        pipeline.Offer(record.partition, std::move(*position), record.key_hash);
      } else {
        pipeline.Offer(record.partition,
                       std::move(std::get<model::RejectionRecord>(record.record)),
                       record.key_hash);
      }
    }
    if (pipeline.AdvanceDue(config.batch_records)) {
      pipeline.Advance();
      runner::CountEpochRows(pipeline.TakeRows(), counts);
    }
  }
  pipeline.Finish();
  runner::CountEpochRows(pipeline.TakeRows(), counts);
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - started;
  const auto cpu = CpuTime() - cpu_started;

  std::int64_t rejected = 0;
  for (const auto& [reason, count] : counts.rejected) {
    rejected += count;
  }
  nlohmann::ordered_json out;
  out["records"] = records;
  out["seconds"] = seconds.count();
  out["positions_per_s"] =
      seconds.count() > 0 ? static_cast<double>(records) / seconds.count() : 0.0;
  out["accepted"] = counts.accepted;
  out["rejected"] = rejected;
  out["rejected_by_reason"] = counts.rejected;
  out["rows"] = counts.rows;
  out["cpu_seconds"] = cpu.count();
  out["partitions"] = config.partitions;
  out["threads"] = config.threads;
  out["decode_seconds"] = decode_time.count();
  out["rss_after_decode_bytes"] = rss_after_decode;
  out["peak_rss_bytes"] = base::PeakRssBytes();
  fmt::print("{}\n", out.dump(2));
  return 0;
}

}  // namespace
}  // namespace frota::bench

int main(int argc, char** argv) {
  using frota::runner::ReplayConfig;
  CLI::App app{"Times frota's validation and jobs alone on records decoded beforehand"};
  ReplayConfig config;
  std::string mode;
  app.add_option("inputs", config.inputs, "FORMAT:PATH or PATH, as frota replay takes them")
      ->required();
  app.add_option("--feed-id", config.feed_id, "Feed id for every input");
  app.add_option("--mode", mode, "Mode for every input: bus, brt, rail, ferry, aircraft");
  app.add_option("--time-zone", config.time_zone, "IANA zone of local hours");
  app.add_option("--gtfs", config.gtfs, "Static GTFS (zip or folder): terminals, zone");
  app.add_option("--area", config.area, "GeoJSON area for rule 4");
  app.add_option("--partitions", config.partitions, "State partitions")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  auto* threads = app.add_option("--threads", config.threads,
                                 "Threads for state partitions (default: min(partitions, cores))");
  app.add_option("--batch-records", config.batch_records,
                 "Records per batch (Advance() after a batch once AdvanceDue)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30));
  CLI11_PARSE(app, argc, argv);
  if (!mode.empty()) {
    config.mode = frota::model::ParseMode(mode);
    if (!config.mode) {
      fmt::print(stderr, "engine_ceiling: --mode {}: not one of bus, brt, rail, ferry, aircraft\n",
                 mode);
      return 2;
    }
  }
  if (threads->count() == 0) {
    // As `frota replay` chooses.
    config.threads = frota::base::ThreadsFor(static_cast<std::size_t>(config.partitions));
  }
  return frota::bench::Run(config);
}
