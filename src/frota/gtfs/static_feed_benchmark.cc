// Time to load a static GTFS feed: the 2022 BRT folder (2.8 MB of shapes) and Angra's
// zip (135,000 stop_times).
#include <benchmark/benchmark.h>

#include "frota/gtfs/route_resolver.h"
#include "frota/gtfs/static_feed.h"
#include "frota/testing/shared_data.h"

namespace {

void Load(benchmark::State& state, const char* relative) {
  const auto path = frota::testing::SharedFile(relative);
  if (!path) {
    state.SkipWithError("shared data not found (set FROTA_SHARED_DATA)");
    return;
  }
  for (auto _ : state) {
    auto feed = frota::gtfs::StaticFeed::Load(*path);
    if (!feed.ok()) {
      state.SkipWithError(feed.error().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(feed->counts());
  }
}

void BM_LoadBrt2022Folder(benchmark::State& state) { Load(state, "rio-brt-2022/gtfs"); }
void BM_LoadAngraZip(benchmark::State& state) { Load(state, "gtfs-rt/angra-malformed/gtfs.zip"); }

void BM_ResolveArchiveServiceNames(benchmark::State& state) {
  const auto path = frota::testing::SharedFile("rio-brt-2022/gtfs");
  if (!path) {
    state.SkipWithError("shared data not found (set FROTA_SHARED_DATA)");
    return;
  }
  auto feed = frota::gtfs::StaticFeed::Load(*path);
  const frota::gtfs::RouteResolver resolver(*feed);
  const char* names[] = {"11N", "13", "17", "18", "19", "35", "38N", "53B", "9999"};
  for (auto _ : state) {
    for (const char* name : names) {
      benchmark::DoNotOptimize(resolver.Find(name));
    }
  }
  state.SetItemsProcessed(state.iterations() * 9);
}

}  // namespace

BENCHMARK(BM_LoadBrt2022Folder)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadAngraZip)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResolveArchiveServiceNames);
