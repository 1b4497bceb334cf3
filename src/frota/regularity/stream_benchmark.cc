// Positions per second into regularity::Stream::Add: what the regularity job costs per
// accepted position before the detector reads it (texts interned, the vehicle found, the
// trip checked), with as many vehicles and trips as a city's morning brings.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "frota/base/time_zone.h"
#include "frota/gtfs/holidays.h"
#include "frota/gtfs/route_resolver.h"
#include "frota/gtfs/static_feed.h"
#include "frota/regularity/stream.h"
#include "frota/testing/street_feed.h"
#include "frota/testing/subprocess.h"

namespace frota::regularity {
namespace {

// The street feed with 500 eastward trips (I0..I499, every 10 minutes from 06:00) and
// 2,000 buses, each tagged with one of them and leaving at its time (four buses a trip:
// the same texts come back from different vehicles), a fix every 30 s: about 50,000
// positions in time order.
struct StreetMorning {
  StreetMorning() {
    testing::StreetFeedOptions options;
    options.eastward_trips = kTrips;
    testing::WriteStreetFeed(dir.path(), options);
    auto loaded = gtfs::StaticFeed::Load(dir.path());
    if (!loaded.ok()) {
      error = loaded.error().message();
      return;
    }
    feed.emplace(std::move(loaded).value());
    routes.emplace(*feed);
    zone.emplace(*base::TimeZone::Load("America/Sao_Paulo"));
    for (int bus = 0; bus < kBuses; ++bus) {
      const int trip = bus % kTrips;
      testing::AddStreetBus(fixes, fmt::format("bus{}", bus),
                            testing::StreetLocal(6, 0) + std::chrono::minutes(10 * trip) +
                                std::chrono::seconds(bus / kTrips),
                            fmt::format("I{}", trip));
    }
    std::stable_sort(fixes.begin(), fixes.end(),
                     [](const auto& a, const auto& b) { return a.time < b.time; });
  }

  static constexpr int kTrips = 500;
  static constexpr int kBuses = 2000;
  testing::TempDir dir{"regularity_stream_benchmark"};
  std::optional<gtfs::StaticFeed> feed;
  std::optional<gtfs::RouteResolver> routes;
  std::optional<base::TimeZone> zone;
  std::vector<testing::StreetFix> fixes;
  std::string error;
};

void BM_StreamAddPositions(benchmark::State& state) {
  static const StreetMorning kMorning;
  if (!kMorning.error.empty()) {
    state.SkipWithError(kMorning.error.c_str());
    return;
  }
  for (auto _ : state) {
    state.PauseTiming();
    auto stream = std::make_unique<Stream>(*kMorning.feed, *kMorning.routes, *kMorning.zone,
                                           gtfs::HolidayCalendar::ForTimeZone("America/Sao_Paulo"));
    state.ResumeTiming();
    for (const auto& fix : kMorning.fixes) {
      stream->Add("feed", fix.vehicle, fix.time, fix.lat, fix.lon, fix.route, fix.trip, "20220803");
    }
    benchmark::DoNotOptimize(stream.get());
    state.PauseTiming();
    stream.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kMorning.fixes.size()));
}
BENCHMARK(BM_StreamAddPositions)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace frota::regularity
