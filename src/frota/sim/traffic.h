// How fast buses drive: free flow scaled by the local hour and by slow areas of the city.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "frota/sim/shape_path.h"

namespace frota::sim {

/// A part of the city where traffic is slower all day (a congested centre, a hill).
struct SlowArea {
  std::string name;
  LatLon center;
  double radius_m = 0;
  double factor = 1;  // speed multiplier inside; ramps linearly to 1 over kSlowAreaRampM
};

inline constexpr double kSlowAreaRampM = 400;

/// The expected running speed of a bus at a place and local hour (before the per-trip
/// and per-stretch randomness the simulator adds). Plain data; safe to share.
struct TrafficModel {
  double free_flow_kmh = 42;
  /// Multiplier per local hour: free flow at night, congestion at the 7-8 h and
  /// 17-18 h peaks.
  std::array<double, 24> hour_factor = {
      1.00, 1.00, 1.00, 1.00, 1.00, 0.95,  // 00-05
      0.75, 0.55, 0.55, 0.70, 0.80, 0.80,  // 06-11
      0.78, 0.78, 0.80, 0.78, 0.68, 0.50,  // 12-17
      0.50, 0.68, 0.85, 0.92, 0.96, 1.00,  // 18-23
  };
  std::vector<SlowArea> slow_areas;

  /// Multiplier of the slow areas at `p` (the smallest one that applies).
  [[nodiscard]] double AreaFactor(LatLon p) const;
  /// Expected speed in m/s at local hour `hour` (0-23) and place `p`.
  [[nodiscard]] double SpeedMps(int hour, LatLon p) const;
};

}  // namespace frota::sim
