#include "frota/job/distance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "frota/geo/haversine.h"

namespace frota::job {
namespace {

struct Pair {
  double lat1, lon1, lat2, lon2;
};

// Random pairs at every scale (cm to antipodes), plus the edges: equal points, poles,
// the antimeridian, antipodes.
std::vector<Pair> Pairs() {
  std::vector<Pair> pairs = {{0, 0, 0, 0},
                             {90, 0, -90, 0},
                             {-22.9, -43.2, -22.9, -43.2},
                             {10, 179.9, 10, -179.9},
                             {0, 0, 0, 180},
                             {45, 10, -45, -170},
                             {-22.9, -43.2, -22.9004, -43.2},
                             {89.999, 0, 89.999, 180}};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> lat(-90, 90);
  std::uniform_real_distribution<double> lon(-180, 180);
  std::uniform_real_distribution<double> exponent(-7, 1);
  std::uniform_real_distribution<double> unit(-1, 1);
  for (int i = 0; i < 200'000; ++i) {
    const double la = lat(rng);
    const double lo = lon(rng);
    const double scale = std::pow(10.0, exponent(rng));  // degrees
    pairs.push_back(
        {la, lo, std::clamp(la + unit(rng) * scale, -90.0, 90.0), lo + unit(rng) * scale});
  }
  return pairs;
}

TEST(CosPointHaversine, IsGeoHaversineToTheBit) {
  for (const auto& p : Pairs()) {
    const double expected = geo::HaversineM(p.lat1, p.lon1, p.lat2, p.lon2);
    const double got = HaversineM(MakeCosPoint(p.lat1, p.lon1), MakeCosPoint(p.lat2, p.lon2));
    ASSERT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(expected))
        << p.lat1 << "," << p.lon1 << " " << p.lat2 << "," << p.lon2;
  }
}

TEST(CertainlyFartherThan, NeverClaimsAPointWithinTheRadius) {
  int decided = 0;
  for (const auto& p : Pairs()) {
    const auto a = MakeCosPoint(p.lat1, p.lon1);
    const auto b = MakeCosPoint(p.lat2, p.lon2);
    const double d = geo::HaversineM(p.lat1, p.lon1, p.lat2, p.lon2);
    for (const double radius : {0.0, 1.0, 50.0, 49.999999, d, d * (1 - 1e-9), 1e6}) {
      if (CertainlyFartherThan(a, b, radius)) {
        ASSERT_GT(d, radius) << p.lat1 << "," << p.lon1 << " " << p.lat2 << "," << p.lon2;
        ++decided;
      }
    }
  }
  EXPECT_GT(decided, 100'000);  // the bound does settle most far points
}

TEST(CertainlyFartherThan, DecidesAtFiftyMetresNearRio) {
  const auto anchor = MakeCosPoint(-22.9, -43.2);
  // 60 m north, 60 m east: far; 40 m: undecided (the exact distance decides).
  EXPECT_TRUE(CertainlyFartherThan(anchor, MakeCosPoint(-22.9 + 60 / 111195.0, -43.2), 50));
  EXPECT_TRUE(CertainlyFartherThan(anchor, MakeCosPoint(-22.9, -43.2 + 60 / 102400.0), 50));
  EXPECT_FALSE(CertainlyFartherThan(anchor, MakeCosPoint(-22.9 + 40 / 111195.0, -43.2), 50));
}

}  // namespace
}  // namespace frota::job
