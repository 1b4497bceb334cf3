#include "frota/sim/random.h"

#include <gtest/gtest.h>

#include <cmath>

namespace frota::sim {
namespace {

TEST(SimRandom, TheSameSeedAndStreamGiveTheSameNumbers) {
  Rng a = Rng::For(42, "poll", 7);
  Rng b = Rng::For(42, "poll", 7);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(a.Next(), b.Next());
  }
  EXPECT_NE(Rng::For(42, "poll", 8).Next(), Rng::For(42, "poll", 7).Next());
  EXPECT_NE(Rng::For(43, "poll", 7).Next(), Rng::For(42, "poll", 7).Next());
  EXPECT_NE(Rng::For(42, "trip", 7).Next(), Rng::For(42, "poll", 7).Next());
}

TEST(SimRandom, OutputIsPinnedAcrossPlatforms) {
  // xoshiro256** over SplitMix64 is pure integer arithmetic: these values must never
  // change, or every simulated archive changes with them.
  Rng rng(1);
  EXPECT_EQ(rng.Next(), 12966619160104079557ULL);
  EXPECT_EQ(rng.Next(), 9600361134598540522ULL);
  EXPECT_EQ(Rng::For(42, "poll", 7).Next(), 5913514105949610448ULL);
}

TEST(SimRandom, DistributionsHaveTheirMoments) {
  Rng rng(3);
  constexpr int kN = 200'000;
  double uniform = 0;
  double normal = 0;
  double normal2 = 0;
  double exponential = 0;
  std::int64_t in_range = 0;
  for (int i = 0; i < kN; ++i) {
    const double u = rng.Uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    uniform += u;
    const double z = rng.Normal();
    normal += z;
    normal2 += z * z;
    exponential += rng.Exponential(5);
    const auto k = rng.UniformInt(3, 9);
    in_range += (k >= 3 && k <= 9) ? 1 : 0;
  }
  EXPECT_NEAR(uniform / kN, 0.5, 0.005);
  EXPECT_NEAR(normal / kN, 0.0, 0.01);
  EXPECT_NEAR(normal2 / kN, 1.0, 0.02);
  EXPECT_NEAR(exponential / kN, 5.0, 0.1);
  EXPECT_EQ(in_range, kN);
  std::vector<double> draws;
  for (int i = 0; i < 20'001; ++i) {
    draws.push_back(rng.LogNormal(28, 0.35));
  }
  std::nth_element(draws.begin(), draws.begin() + 10'000, draws.end());
  EXPECT_NEAR(draws[10'000], 28, 0.5);
}

}  // namespace
}  // namespace frota::sim
