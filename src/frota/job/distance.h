// The jobs' haversine with each point's cos(latitude) computed once, to the bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <numbers>

#include "frota/geo/haversine.h"

namespace frota::job {

/// A position with the cosine of its latitude, computed once per position instead of
/// once per distance it takes part in (a record is the end of its jump segment and is
/// compared with its stop anchor; VehicleState keeps the last position's and the
/// anchor's cosines).
struct CosPoint {
  double lat = 0;
  double lon = 0;
  double cos_lat = 1;  // std::cos(lat in radians), exactly as geo::HaversineM computes it
};

inline constexpr double kRadiansPerDegree = std::numbers::pi / 180.0;

inline CosPoint MakeCosPoint(double lat, double lon) {
  return {lat, lon, std::cos(lat * kRadiansPerDegree)};
}

/// geo::HaversineM(a.lat, a.lon, b.lat, b.lon), bit for bit: the same operations in the
/// same order on the same doubles, with the two cosines taken from the points
/// (distance_test.cc holds it to geo::HaversineM on random and edge-case points).
inline double HaversineM(const CosPoint& a, const CosPoint& b) {
  const double phi1 = a.lat * kRadiansPerDegree;
  const double phi2 = b.lat * kRadiansPerDegree;
  const double sin_dphi = std::sin((phi2 - phi1) / 2);
  const double sin_dlambda = std::sin((b.lon - a.lon) * kRadiansPerDegree / 2);
  const double h = sin_dphi * sin_dphi + a.cos_lat * b.cos_lat * sin_dlambda * sin_dlambda;
  return 2 * geo::kEarthRadiusM * std::asin(std::sqrt(std::clamp(h, 0.0, 1.0)));
}

/// Whether HaversineM(a, b) is certainly greater than `radius_m`, decided without
/// trigonometry; false means "compute it". Sound, never approximate: with
/// h = sin²(Δφ/2) + cosφ1·cosφ2·sin²(Δλ/2), |sin x| ≥ max(0, |x|·(1 − x²/6)) and
/// asin(y) ≥ y, the distance 2R·asin(√h) is at least 2R·√h_low, where h_low uses the
/// polynomial bounds. The bound is only trusted when it exceeds the radius by a relative
/// 1e-6, far more than the few ulps by which the computed values can stray.
inline bool CertainlyFartherThan(const CosPoint& a, const CosPoint& b, double radius_m) {
  const auto low_sin = [](double x) {
    const double ax = std::abs(x);
    return std::max(0.0, ax * (1 - ax * ax / 6));
  };
  const double phi1 = a.lat * kRadiansPerDegree;
  const double phi2 = b.lat * kRadiansPerDegree;
  const double s_phi = low_sin((phi2 - phi1) / 2);
  const double s_lambda = low_sin((b.lon - a.lon) * kRadiansPerDegree / 2);
  const double h_low = s_phi * s_phi + std::max(0.0, a.cos_lat * b.cos_lat) * s_lambda * s_lambda;
  const double low_m = 2 * geo::kEarthRadiusM * std::sqrt(h_low);
  return low_m > radius_m * (1 + 1e-6);
}

}  // namespace frota::job
