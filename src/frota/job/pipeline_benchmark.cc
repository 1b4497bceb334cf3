// Throughput of validation and every job over pre-decoded records (the engine's ceiling).
#include <benchmark/benchmark.h>

#include <map>

#include "frota/base/file.h"
#include "frota/geo/area.h"
#include "frota/job/pipeline.h"
#include "frota/job/testing/random_feed.h"

namespace frota::job {
namespace {

// An hour of `vehicles` vehicles reporting every 15-60 s (3,600: about 210 k records).
const std::vector<testing::OfferedRecord>& Records(model::SourceCatalog& catalog, int vehicles) {
  static std::map<int, std::vector<testing::OfferedRecord>> cache;
  auto& records = cache[vehicles];
  if (records.empty()) {
    testing::RandomFeedOptions options;
    options.vehicles = vehicles;
    options.minutes = 60;
    options.seed = 42;
    records = testing::GenerateRandomFeed(options, catalog);
  }
  return records;
}

void BM_PipelineAllJobs(benchmark::State& state) {
  static model::SourceCatalog catalog;
  const auto& records = Records(catalog, static_cast<int>(state.range(2)));
  const auto area = geo::Area::ParseGeoJson(testing::RandomFeedAreaGeoJson(), "area");
  JobConfig config;
  config.area = &*area;
  config.time_zone =
      std::make_shared<const base::TimeZone>(*base::TimeZone::Load("America/Sao_Paulo"));
  const auto partitions = static_cast<std::int32_t>(state.range(0));
  const auto threads = static_cast<std::size_t>(state.range(1));
  std::int64_t rows = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<testing::OfferedRecord> copy = records;
    Pipeline pipeline(config, Routing::kByKeyHash, partitions, &catalog, threads);
    state.ResumeTiming();
    std::size_t i = 0;
    for (auto& record : copy) {
      pipeline.Offer(record.partition, std::move(record.position));
      if (++i % 16384 == 0) {
        pipeline.Advance();
        rows += static_cast<std::int64_t>(pipeline.TakeRows().RowCount());
      }
    }
    pipeline.Finish();
    rows += static_cast<std::int64_t>(pipeline.TakeRows().RowCount());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(records.size()));
  state.counters["rows"] = static_cast<double>(rows) / static_cast<double>(state.iterations());
  state.counters["peak_rss_mb"] = static_cast<double>(base::PeakRssBytes()) / (1 << 20);
}
// Args: state partitions, threads, vehicles.
BENCHMARK(BM_PipelineAllJobs)
    ->Args({1, 1, 3600})
    ->Args({2, 2, 3600})
    ->Args({1, 1, 300})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace frota::job
