// How fast the simulator builds a city, drives its fleet and writes a simulated archive.
#include <benchmark/benchmark.h>

#include "frota/base/time_zone.h"
#include "frota/gtfs/static_feed.h"
#include "frota/sim/city.h"
#include "frota/sim/fleet.h"
#include "frota/sim/schedule.h"
#include "frota/sim/sim_test_util.h"
#include "frota/sim/simulator.h"

namespace frota::sim {
namespace {

using testing_util::ScratchDir;
using testing_util::TestDate;

void BM_BuildCity(benchmark::State& state) {
  const auto vehicles = static_cast<std::int32_t>(state.range(0));
  for (auto _ : state) {
    const City city = BuildCity({vehicles, 1, TestDate()});
    benchmark::DoNotOptimize(city.trips.size());
    state.counters["trips"] = static_cast<double>(city.trips.size());
  }
}
BENCHMARK(BM_BuildCity)->Arg(600)->Arg(3600)->Unit(benchmark::kMillisecond);

void BM_BuildFleet(benchmark::State& state) {
  const auto vehicles = static_cast<std::int32_t>(state.range(0));
  ScratchDir dir("bench-fleet");
  const City city = BuildCity({vehicles, 1, TestDate()});
  if (!WriteCityGtfs(city, dir.path() / "gtfs").ok()) {
    state.SkipWithError("cannot write the GTFS");
    return;
  }
  const auto feed = gtfs::StaticFeed::Load(dir.path() / "gtfs");
  const auto plan = PlanDay(*feed, TestDate(), city.traffic);
  const auto zone = base::TimeZone::Load(plan->time_zone);
  for (auto _ : state) {
    const Fleet fleet = BuildFleet(*plan, city.traffic, FaultConfig{}, 1, *zone);
    benchmark::DoNotOptimize(fleet.vehicles.size());
    state.counters["buses"] = static_cast<double>(fleet.vehicles.size());
  }
}
BENCHMARK(BM_BuildFleet)->Arg(600)->Arg(3600)->Unit(benchmark::kMillisecond);

// A morning of a 600-bus city: archive, truth and all. Written to /dev/shm when there,
// so this measures the simulator rather than the disk's fsync.
void BM_SimulateMorning(benchmark::State& state) {
  std::int64_t records = 0;
  std::int64_t run = 0;
  for (auto _ : state) {
    state.PauseTiming();
    ScratchDir dir("bench-morning-" + std::to_string(run++));
    auto options = testing_util::SmallDay(dir.path(), 600);
    options.departures_between_s = std::pair(6 * 3600, 9 * 3600);
    state.ResumeTiming();
    const auto summary = Simulate(options);
    if (!summary.ok()) {
      state.SkipWithError(summary.error().message().c_str());
      return;
    }
    records += summary->records;
  }
  state.counters["records_per_s"] =
      benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SimulateMorning)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace frota::sim
