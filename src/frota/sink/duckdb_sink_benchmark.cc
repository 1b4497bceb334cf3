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

#include "frota/base/file.h"
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
  std::int64_t records = 0;
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
    const auto offer = [&](model::Position p) {
      pipeline.Offer(base::PartitionId(0), std::move(p));
      if (++offered % kBatch == 0) {
        pipeline.Advance();
        epoch.batches.push_back(pipeline.TakeRows());
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
    epoch.batches.push_back(pipeline.TakeRows());
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
  std::int64_t rows = 0;
  double file_bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove_all(dir);
    fs::create_directories(dir);
    state.ResumeTiming();
    auto sink = DuckDbSink::Open(db, &workload.catalog, "benchmark");
    if (!sink.ok()) {
      state.SkipWithError(sink.error().message().c_str());
      break;
    }
    rows = 0;
    for (const Epoch& epoch : workload.epochs) {
      for (const auto& batch : epoch.batches) {
        if (const auto s = (*sink)->Write(batch); !s.ok()) {
          state.SkipWithError(s.error().message().c_str());
          return;
        }
        rows += static_cast<std::int64_t>(batch.RowCount());
      }
      model::EpochRows none;
      none.strings = epoch.batches.back().strings;
      if (const auto s = (*sink)->Commit(none, epoch.checkpoint); !s.ok()) {
        state.SkipWithError(s.error().message().c_str());
        return;
      }
    }
    sink->reset();  // closing checkpoints: part of what the rows cost
    state.PauseTiming();
    file_bytes = static_cast<double>(fs::file_size(db));
    state.ResumeTiming();
  }
  fs::remove_all(dir);
  state.SetItemsProcessed(state.iterations() * workload.records);
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["file_mb"] = file_bytes / (1 << 20);
}
BENCHMARK(BM_DuckDbSinkCommits)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace frota::sink
