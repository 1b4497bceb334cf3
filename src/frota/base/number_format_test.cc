#include "frota/base/number_format.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

namespace frota::base {
namespace {

std::string Fmt(double value, int precision) { return fmt::format("{:.{}f}", value, precision); }

TEST(FormatFixed, RoundsHalfToEvenLikePrintf) {
  EXPECT_EQ(FormatFixed(0.125, 1), "0.1");
  EXPECT_EQ(FormatFixed(0.375, 1), "0.4");
  EXPECT_EQ(FormatFixed(2.5, 0), "2");
  EXPECT_EQ(FormatFixed(3.5, 0), "4");
  EXPECT_EQ(FormatFixed(0.0078125, 6), "0.007812");
  EXPECT_EQ(FormatFixed(2.675, 2), "2.67");  // the double is just below 2.675
  EXPECT_EQ(FormatFixed(-22.9068, 6), "-22.906800");
  EXPECT_EQ(FormatFixed(-0.04, 1), "-0.0");
  EXPECT_EQ(FormatFixed(-0.0, 3), "-0.000");
  EXPECT_EQ(FormatFixed(0.0, 0), "0");
  EXPECT_EQ(FormatFixed(299.9995, 3), Fmt(299.9995, 3));
}

TEST(FormatFixed, FallsBackOutsideItsRange) {
  for (const double v :
       {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::quiet_NaN(), 1e300, -1e30, 0x1p93, 0x1p93 - 0x1p41,
        std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min()}) {
    for (int precision : {0, 1, 3, 6, 9}) {
      EXPECT_EQ(FormatFixed(v, precision), Fmt(v, precision)) << v << " " << precision;
    }
  }
  EXPECT_EQ(FormatFixed(1.25, 12), Fmt(1.25, 12));
}

TEST(FormatFixed, MatchesFmtOnMillionsOfValues) {
  std::mt19937_64 rng(20261129);
  std::uniform_int_distribution<int> precision_of(0, 9);
  std::uniform_real_distribution<double> coordinate(-180.0, 180.0);
  std::uniform_int_distribution<std::int64_t> micros(-400'000'000, 4'000'000'000'000'000);
  std::uniform_int_distribution<int> exponent_of(-60, 95);
  std::size_t checked = 0;
  const auto check = [&](double v, int precision) {
    ASSERT_EQ(FormatFixed(v, precision), Fmt(v, precision)) << fmt::format("{:a}", v);
    ++checked;
  };
  for (int i = 0; i < 300'000; ++i) {
    const int precision = precision_of(rng);
    check(coordinate(rng), precision);                         // lat/lon
    check(static_cast<double>(micros(rng)) / 1e6, precision);  // lags in seconds
    // Exact ties at this precision: odd multiples of half a unit that are dyadic.
    const double unit = 1.0 / static_cast<double>(std::uint64_t{1} << (i % 12));
    check(static_cast<double>(static_cast<std::int64_t>(rng() % 2'000'000) - 1'000'000) * unit +
              unit / 2,
          precision);
    // Any bits at all, over every magnitude the fast path takes.
    std::uint64_t bits = rng();
    double any = 0;
    std::memcpy(&any, &bits, sizeof any);
    if (std::isfinite(any)) {
      int ignored = 0;
      check(std::ldexp(std::frexp(any, &ignored), exponent_of(rng)), precision);
    }
  }
  EXPECT_GE(checked, 1'190'000u);
}

}  // namespace
}  // namespace frota::base
