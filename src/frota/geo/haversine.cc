#include "frota/geo/haversine.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace frota::geo {

double HaversineM(double lat1, double lon1, double lat2, double lon2) {
  constexpr double kRadiansPerDegree = std::numbers::pi / 180.0;
  const double phi1 = lat1 * kRadiansPerDegree;
  const double phi2 = lat2 * kRadiansPerDegree;
  const double sin_dphi = std::sin((phi2 - phi1) / 2);
  const double sin_dlambda = std::sin((lon2 - lon1) * kRadiansPerDegree / 2);
  const double a =
      sin_dphi * sin_dphi + std::cos(phi1) * std::cos(phi2) * sin_dlambda * sin_dlambda;
  // Rounding can push `a` a hair past 1 for antipodal points; asin would return NaN.
  return 2 * kEarthRadiusM * std::asin(std::sqrt(std::clamp(a, 0.0, 1.0)));
}

}  // namespace frota::geo
