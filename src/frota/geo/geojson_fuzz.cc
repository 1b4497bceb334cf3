// Fuzz target: the GeoJSON reader accepts or rejects any bytes without crashing, and
// an accepted area answers Contains() exactly like the naive even-odd rule.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "frota/geo/area.h"

namespace {

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

void Check(const frota::geo::Area& area, double lat, double lon) {
  if (area.Contains(lat, lon) != NaiveEvenOdd(area.rings(), lat, lon)) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto area = frota::geo::Area::ParseGeoJson(text, "fuzz.geojson");
  if (!area.ok()) {
    return 0;
  }
  // Vertices, edge midpoints and mixed vertex coordinates: where rounding and the
  // boundary rule matter most.
  std::size_t checks = 0;
  for (const auto& ring : area->rings()) {
    for (std::size_t i = 0; i + 1 < ring.size() && checks < 4000; ++i, checks += 4) {
      const auto [lon_a, lat_a] = ring[i];
      const auto [lon_b, lat_b] = ring[i + 1];
      Check(*area, lat_a, lon_a);
      Check(*area, (lat_a + lat_b) / 2, (lon_a + lon_b) / 2);
      Check(*area, lat_a, lon_b);
      Check(*area, lat_b, lon_a);
    }
  }
  const auto& box = area->bounding_box();
  for (int i = 0; i <= 16; ++i) {
    for (int j = 0; j <= 16; ++j) {
      Check(*area, box.min_lat + (box.max_lat - box.min_lat) * i / 16,
            box.min_lon + (box.max_lon - box.min_lon) * j / 16);
    }
  }
  return 0;
}
