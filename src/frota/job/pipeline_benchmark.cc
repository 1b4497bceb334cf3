// Throughput of validation and every job over pre-decoded records (the engine's ceiling).
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <malloc.h>

#include <map>
#include <memory>

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
    ->Args({1, 1, 14400})
    ->Args({1, 1, 28800})
    ->Unit(benchmark::kMillisecond);

// Bytes malloc has handed out and not taken back (glibc): what data structures hold,
// without the allocator's cached free memory that RSS would count.
std::int64_t HeapBytesInUse() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<std::int64_t>(info.uordblks + info.hblkhd);
}

// Engine memory per active vehicle: `vehicles` distinct vehicles, each with two released
// positions on a trip (so each holds an open stop run and an open trip, as a moving
// fleet does), and the watermark just past them, so nothing is buffered. The counter
// state_bytes_per_vehicle is the heap the pipeline holds (malloc's bytes in use, after
// minus before: per-vehicle state, key index, interned ids and strings) divided by the
// vehicles; mib_per_million_vehicles is the same scaled. buffered_bytes_per_record is what
// each record waiting for the watermark adds on top (measured the same way, with one
// more position per vehicle offered but not released): with the 6-minute lateness bound a
// vehicle reporting every 30 s holds about 12 of them.
void BM_EngineMemoryPerVehicle(benchmark::State& state) {
  const auto vehicles = static_cast<std::int64_t>(state.range(0));
  model::SourceCatalog catalog;
  const model::SourceId source = catalog.Intern("memory-benchmark");
  JobConfig config;
  config.time_zone =
      std::make_shared<const base::TimeZone>(*base::TimeZone::Load("America/Sao_Paulo"));
  const base::Timestamp t0 = base::FromUnixMicros(1'717'600'000'000'000);
  // Vehicle v reports at t0 + k * 30 s (k = 0, 1, 2), about 50 m apart, on trip "t<v>".
  const auto make = [&](std::int64_t v, int k) {
    model::Position p;
    p.feed_id = "rio-sppo";
    p.vehicle_id = fmt::format("B{:07d}", v);
    p.route_id = fmt::format("{}", 100 + v % 500);
    p.trip_id = fmt::format("t{}", v);
    p.trip_start_date = "20240605";
    p.trip_start_time = "08:00:00";
    p.direction_id = 0;
    p.mode = model::Mode::kBus;
    p.lat = -22.9 + static_cast<double>(v % 1000) * 1e-3 + k * 4.5e-4;
    const auto column = v / 1000;  // 1,000 vehicles per column, 1e-4° of longitude apart
    p.lon = -43.2 + static_cast<double>(column) * 1e-4;
    p.event_time = t0 + std::chrono::seconds(30 * k);
    p.ingest_time = p.event_time + std::chrono::seconds(5);
    p.source = {source, v * 3 + k};
    return p;
  };
  std::vector<model::Position> first;
  std::vector<model::Position> third;
  first.reserve(static_cast<std::size_t>(2 * vehicles + 1));
  third.reserve(static_cast<std::size_t>(vehicles));
  for (std::int64_t v = 0; v < vehicles; ++v) {
    first.push_back(make(v, 0));
    first.push_back(make(v, 1));
    third.push_back(make(v, 2));
  }
  // A clock vehicle whose record moves the watermark to t0 + 31 s: every record above is
  // released, no stop or trip timer (300 s, 900 s) is due.
  model::Position clock = make(vehicles, 0);
  clock.event_time = t0 + std::chrono::seconds(31) + config.max_lateness();
  clock.ingest_time = clock.event_time;
  first.push_back(clock);

  double state_bytes = 0;
  double record_bytes = 0;
  for (auto _ : state) {
    const auto before = HeapBytesInUse();
    auto pipeline = std::make_unique<Pipeline>(config, Routing::kByKeyHash, 1, &catalog, 1);
    // As the runner does: batches of 16,384 records, each advanced, rows taken.
    const auto offer_all = [&](std::vector<model::Position>& records) {
      std::size_t i = 0;
      for (auto& p : records) {
        pipeline->Offer(base::PartitionId(0), std::move(p));
        if (++i % 16384 == 0) {
          pipeline->Advance();
          auto rows = pipeline->TakeRows();
        }
      }
      pipeline->Advance();
      auto rows = pipeline->TakeRows();
    };
    offer_all(first);
    const auto with_state = HeapBytesInUse();
    offer_all(third);
    const auto with_buffer = HeapBytesInUse();
    if (pipeline->vehicle_count() != static_cast<std::size_t>(vehicles + 1) ||
        pipeline->pending_records() != static_cast<std::size_t>(vehicles + 1)) {
      state.SkipWithError("the scenario did not leave the expected state");  // clock: +1
      break;
    }
    state_bytes = static_cast<double>(with_state - before) / static_cast<double>(vehicles);
    record_bytes = static_cast<double>(with_buffer - with_state) / static_cast<double>(vehicles);
    state.PauseTiming();
    pipeline.reset();
    state.ResumeTiming();
  }
  state.counters["state_bytes_per_vehicle"] = state_bytes;
  state.counters["mib_per_million_vehicles"] = state_bytes * 1e6 / (1 << 20);
  state.counters["buffered_bytes_per_record"] = record_bytes;
}
// Arg: vehicles (1.3 M: a count that is not just under a power of two, as 1 M is). One
// iteration: the records are consumed (moved from).
BENCHMARK(BM_EngineMemoryPerVehicle)
    ->Arg(1'000'000)
    ->Arg(1'300'000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace frota::job
