// What the embedded sink costs per record: the rows the jobs make of a city's feed,
// written and committed into a fresh DuckDB file epoch by epoch, as a replay does.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/engine/checkpoint.h"
#include "frota/job/pipeline.h"
#include "frota/job/testing/random_feed.h"
#include "frota/sink/duckdb_sink.h"

namespace frota::sink {
namespace {

namespace fs = std::filesystem;

// One epoch: the rows of each batch of 16,384 records, in the order the runner hands
// them to Write, then the checkpoint Commit seals it with.
struct Epoch {
  std::vector<model::EpochRows> batches;
  engine::EpochCheckpoint checkpoint;
};

struct Workload {
  model::SourceCatalog catalog;
  std::vector<Epoch> epochs;
  std::int64_t records = 0;   // offered
  std::int64_t rows = 0;      // of every table, all epochs
  std::int64_t rejected = 0;  // of those rows
};

// Two hours of 3,600 vehicles (about 420 k records) with every record offered twice, the
// second copy 30 s later from another source, as the Rio feed repeats the positions it
// still holds: about half the records are refused as duplicates, as on the Rio day.
// Epochs of 400 k records, as a replay's are of a million.
const Workload& RioLikeWorkload() {
  static const auto* const workload = [] {
    auto* w = new Workload;
    job::testing::RandomFeedOptions options;
    options.vehicles = 3600;
    options.minutes = 120;
    options.seed = 7;
    auto records = job::testing::GenerateRandomFeed(options, w->catalog);
    const model::SourceId repeats = w->catalog.Intern("repeats.csv");
    job::JobConfig config;
    config.time_zone =
        std::make_shared<const base::TimeZone>(*base::TimeZone::Load("America/Sao_Paulo"));
    job::Pipeline pipeline(config, job::Routing::kByKeyHash, 1, &w->catalog, 1);
    constexpr std::int64_t kBatch = 16384;
    constexpr std::int64_t kEpoch = 400'000;
    Epoch epoch;
    std::int64_t offered = 0;
    const auto seal = [&] {
      epoch.checkpoint.epoch = base::EpochId(static_cast<std::int64_t>(w->epochs.size()) + 1);
      epoch.checkpoint.records = offered;
      epoch.checkpoint.progress = {{"feed", base::PartitionId(0), base::Offset(offered)}};
      epoch.checkpoint.states = {
          {base::PartitionId(0), engine::SealCheckpoint("job-shard", 1, "state")}};
      epoch.checkpoint.runner_state = "runner";
      w->epochs.push_back(std::move(epoch));
      epoch = Epoch{};
    };
    const auto take = [&] {
      epoch.batches.push_back(pipeline.TakeRows());
      w->rows += static_cast<std::int64_t>(epoch.batches.back().RowCount());
      w->rejected += static_cast<std::int64_t>(epoch.batches.back().rejected.size());
    };
    const auto offer = [&](model::Position p) {
      pipeline.Offer(base::PartitionId(0), std::move(p));
      if (++offered % kBatch == 0) {
        pipeline.Advance();
        take();
        if (offered % kEpoch < kBatch) {
          seal();
        }
      }
    };
    for (std::size_t i = 0; i < records.size(); ++i) {
      model::Position copy = records[i].position;
      copy.ingest_time += std::chrono::seconds(30);
      copy.source = {repeats, static_cast<std::int64_t>(i)};
      offer(std::move(records[i].position));
      offer(std::move(copy));
    }
    pipeline.Finish();
    take();
    seal();
    w->records = offered;
    return w;
  }();
  return *workload;
}

void BM_DuckDbSinkCommits(benchmark::State& state) {
  const Workload& workload = RioLikeWorkload();
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("frota-sink-benchmark-{}", ::getpid());
  const fs::path db = dir / "bench.duckdb";
  // Every epoch as a replay writes it: its batches streamed, then the commit.
  const auto write_all = [&workload](DuckDbSink& sink) -> base::Status {
    for (const Epoch& epoch : workload.epochs) {
      for (const auto& batch : epoch.batches) {
        FROTA_RETURN_IF_ERROR(sink.Write(batch));
      }
      model::EpochRows none;
      none.strings = epoch.batches.back().strings;
      FROTA_RETURN_IF_ERROR(sink.Commit(none, epoch.checkpoint));
    }
    return base::Status::Ok();
  };
  double file_bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove_all(dir);
    fs::create_directories(dir);
    state.ResumeTiming();
    auto sink = DuckDbSink::Open(db, &workload.catalog, "benchmark");
    const base::Status written = sink.ok() ? write_all(**sink) : base::Status(sink.error());
    if (!written.ok()) {
      state.SkipWithError(written.error().message().c_str());
      break;
    }
    sink->reset();  // closing checkpoints: part of what the rows cost
    state.PauseTiming();
    file_bytes = static_cast<double>(fs::file_size(db));
    state.ResumeTiming();
  }
  fs::remove_all(dir);
  state.SetItemsProcessed(state.iterations() * workload.records);
  state.counters["rows"] = static_cast<double>(workload.rows);
  state.counters["rejected"] = static_cast<double>(workload.rejected);
  state.counters["file_mb"] = file_bytes / (1 << 20);
}
BENCHMARK(BM_DuckDbSinkCommits)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace frota::sink
