#include "frota/geo/haversine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace frota::geo {
namespace {

constexpr double kMetresPerDegree = kEarthRadiusM * std::numbers::pi / 180;  // 111,195.08 m

TEST(Haversine, OneDegreeAlongAMeridianIsTheArcOfTheSphere) {
  EXPECT_NEAR(HaversineM(-23, -43, -22, -43), kMetresPerDegree, 1e-6);
  EXPECT_NEAR(kMetresPerDegree, 111'195.08, 0.01);
}

TEST(Haversine, OneDegreeOfLongitudeShrinksWithTheCosineOfLatitudeForShortHops) {
  // At 60° a short east-west hop is half as long as on the equator.
  EXPECT_NEAR(HaversineM(60, 0, 60, 0.001), 0.5 * HaversineM(0, 0, 0, 0.001), 1e-6);
}

TEST(Haversine, IsZeroForEqualPointsAndSymmetric) {
  EXPECT_EQ(HaversineM(-22.9068, -43.1729, -22.9068, -43.1729), 0.0);
  EXPECT_DOUBLE_EQ(HaversineM(-22.9068, -43.1729, -22.8832, -43.1034),
                   HaversineM(-22.8832, -43.1034, -22.9068, -43.1729));
}

TEST(Haversine, AntipodesAreHalfACircumferenceApart) {
  // asin is ill-conditioned next to 1, so the formula loses ~0.2 m at the antipodes
  // (a known property of haversine; frota's distances are short).
  EXPECT_NEAR(HaversineM(10, 20, -10, -160), std::numbers::pi * kEarthRadiusM, 1.0);
}

TEST(Haversine, RioCentreToNiteroiIsAboutSevenAndAHalfKilometres) {
  // Equirectangular estimate, good to well under a metre at this range.
  const double dlat = (-22.8832 - -22.9068) * kMetresPerDegree;
  const double dlon =
      (-43.1034 - -43.1729) * kMetresPerDegree * std::cos(-22.895 * std::numbers::pi / 180);
  EXPECT_NEAR(HaversineM(-22.9068, -43.1729, -22.8832, -43.1034), std::hypot(dlat, dlon), 1.0);
}

}  // namespace
}  // namespace frota::geo
