#include "frota/geo/grid.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace frota::geo {
namespace {

TEST(CellOf, FloorsTowardsMinusInfinityInBothHemispheres) {
  EXPECT_EQ(CellOf(-22.9068, -43.1729), (GridCell{-8635, -4582}));
  EXPECT_EQ(CellOf(0.001, 0.001), (GridCell{0, 0}));
  EXPECT_EQ(CellOf(-0.001, -0.001), (GridCell{-1, -1}));
}

TEST(CellOf, ExactDoubleMultiplesStartTheirCell) {
  EXPECT_EQ(CellOf(0.0, 0.0), (GridCell{0, 0}));
  EXPECT_EQ(CellOf(0.01, -0.01), (GridCell{-2, 2}));
  EXPECT_EQ(CellOf(-22.91, -43.005), (GridCell{-8601, -4582}));
}

TEST(CellOf, DecimalMultiplesFollowTheDoubleQuotientNotTheDecimalOne) {
  // The contract is floor(lon / size) in double, as DuckDB computes it.
  ASSERT_LT(0.145 / 0.005, 29.0);
  EXPECT_EQ(CellOf(0.145, 0.0).y, 28);
  ASSERT_LT(-0.035 / 0.005, -7.0);
  EXPECT_EQ(CellOf(-0.035, 0.0).y, -8);
}

TEST(CellOf, HonoursACustomCellSize) {
  EXPECT_EQ(CellOf(-22.9068, -43.1729, 0.01), (GridCell{-4318, -2291}));
}

TEST(CellOf, SaturatesInsteadOfOverflowing) {
  EXPECT_EQ(CellOf(0, 1e300).x, std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(CellOf(std::nan(""), -1e300).x, std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(CellOf(std::nan(""), 0).y, std::numeric_limits<std::int32_t>::min());
}

TEST(GridCell, OrdersByXThenY) {
  EXPECT_LT((GridCell{1, 5}), (GridCell{2, 0}));
  EXPECT_LT((GridCell{1, 0}), (GridCell{1, 1}));
}

}  // namespace
}  // namespace frota::geo
