// The simulator's own pseudo-random numbers: the same seed gives the same day on every platform.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string_view>

#include "frota/base/hash.h"

namespace frota::sim {

/// xoshiro256** seeded through SplitMix64, with the few distributions the simulator needs
/// written out from the raw 64-bit output (std:: distributions differ between standard
/// libraries, so they would break byte-for-byte reproducibility).
///
/// Streams: `Rng::For(seed, "poll", k)` gives an independent generator per purpose and
/// index, so adding a draw in one place never shifts the numbers drawn elsewhere.
/// Cheap to construct (4 words of state). Not thread-safe; copyable.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& word : state_) {
      word = SplitMix(seed);
    }
  }

  /// A generator for one purpose (`stream`) and index, derived from the run's seed.
  static Rng For(std::uint64_t seed, std::string_view stream, std::uint64_t index = 0) {
    std::uint64_t mixed = seed ^ base::StableHash(stream);
    mixed = SplitMix(mixed) ^ (index * 0x9e3779b97f4a7c15ULL);
    return Rng(SplitMix(mixed));
  }

  std::uint64_t Next() {
    const std::uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }

  /// Uniform in [0, 1), 53 random bits.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  /// Uniform in [a, b).
  double Uniform(double a, double b) { return a + (b - a) * Uniform(); }
  /// Uniform integer in [lo, hi] (inclusive); lo when hi < lo.
  std::int64_t UniformInt(std::int64_t lo, std::int64_t hi) {
    if (hi <= lo) {
      return lo;
    }
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
    // Modulo bias is below 2^-40 for the spans the simulator draws from.
    return lo + static_cast<std::int64_t>(Next() % span);
  }
  bool Bernoulli(double p) { return Uniform() < p; }
  /// Standard normal by Box-Muller (one value per call, no cached second value, so the
  /// count of draws never depends on history).
  double Normal() {
    const double u1 = 1.0 - Uniform();  // (0, 1]
    const double u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  double Exponential(double mean) { return -mean * std::log(1.0 - Uniform()); }
  /// Log-normal with the given median and sigma of the underlying normal.
  double LogNormal(double median, double sigma) { return median * std::exp(sigma * Normal()); }

 private:
  static std::uint64_t SplitMix(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  static constexpr std::uint64_t Rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::uint64_t state_[4];
};

}  // namespace frota::sim
