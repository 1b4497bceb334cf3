// Points per second through Area::Contains against the Rio municipality boundary.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

#include "frota/geo/area.h"
#include "frota/testing/shared_data.h"

namespace {

// The rule without the index, for the speed-up ratio (same points, same answers).
bool NaiveEvenOdd(const std::vector<frota::geo::Ring>& rings, double lat, double lon) {
  bool inside = false;
  for (const auto& ring : rings) {
    for (std::size_t i = 0; i + 1 < ring.size(); ++i) {
      const auto [lon_a, lat_a] = ring[i];
      const auto [lon_b, lat_b] = ring[i + 1];
      if ((lat_a > lat) != (lat_b > lat)) {
        const double x = std::clamp(lon_a + (lat - lat_a) * (lon_b - lon_a) / (lat_b - lat_a),
                                    std::min(lon_a, lon_b), std::max(lon_a, lon_b));
        inside ^= lon < x;
      }
    }
  }
  return inside;
}

void RunContains(benchmark::State& state, const char* relative, bool naive = false) {
  const auto path = frota::testing::SharedFile(relative);
  if (!path) {
    state.SkipWithError("shared data not found (set FROTA_SHARED_DATA)");
    return;
  }
  auto area = frota::geo::Area::LoadGeoJson(*path);
  if (!area.ok()) {
    state.SkipWithError(area.error().message().c_str());
    return;
  }
  // Uniform random points in the bounding box: a mix of inside, outside and boundary cells.
  const auto& box = area->bounding_box();
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> lat(box.min_lat, box.max_lat);
  std::uniform_real_distribution<double> lon(box.min_lon, box.max_lon);
  std::vector<std::pair<double, double>> points(1 << 16);
  for (auto& point : points) {
    point = {lat(rng), lon(rng)};
  }
  std::int64_t inside = 0;
  for (auto _ : state) {
    for (const auto& [la, lo] : points) {
      inside += (naive ? NaiveEvenOdd(area->rings(), la, lo) : area->Contains(la, lo)) ? 1 : 0;
    }
  }
  benchmark::DoNotOptimize(inside);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(points.size()));
  state.counters["edges"] = static_cast<double>(area->edge_count());
}

void BM_ContainsRioBoundary(benchmark::State& state) {
  RunContains(state, "rio-boundary/rio-de-janeiro-3304557.geojson");
}
void BM_ContainsRioBoundaryNaive(benchmark::State& state) {
  RunContains(state, "rio-boundary/rio-de-janeiro-3304557.geojson", true);
}
void BM_ContainsRioNeighbourhoods(benchmark::State& state) {
  RunContains(state, "rio-boundary/rio_bairros_prefeitura.geojson");
}

void BM_LoadRioBoundary(benchmark::State& state) {
  const auto path = frota::testing::SharedFile("rio-boundary/geojs-33-mun.json");
  if (!path) {
    state.SkipWithError("shared data not found (set FROTA_SHARED_DATA)");
    return;
  }
  for (auto _ : state) {
    auto area = frota::geo::Area::LoadGeoJson(*path, frota::geo::FeatureFilter{"id", "3304557"});
    benchmark::DoNotOptimize(area);
  }
}

}  // namespace

BENCHMARK(BM_ContainsRioBoundary)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ContainsRioBoundaryNaive)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ContainsRioNeighbourhoods)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadRioBoundary)->Unit(benchmark::kMillisecond);
