// A route's shape as a path measured in metres: where a vehicle is after driving s metres.
#pragma once

#include <vector>

namespace frota::sim {

struct LatLon {
  double lat = 0;
  double lon = 0;
};

/// Metres per degree of latitude on frota's sphere (geo::kEarthRadiusM).
double MetresPerDegreeLat();

/// A local east/north plane around an origin, for building geometry in metres.
class LocalPlane {
 public:
  explicit LocalPlane(LatLon origin);
  [[nodiscard]] LatLon ToLatLon(double x_m, double y_m) const;
  [[nodiscard]] double X(LatLon p) const;
  [[nodiscard]] double Y(LatLon p) const;

 private:
  LatLon origin_;
  double m_per_deg_lat_;
  double m_per_deg_lon_;
};

/// A polyline with cumulative haversine distances; positions in between are linear in
/// lat/lon (segments are short, so the difference from the great circle is far below a
/// millimetre). Immutable after construction; safe to share between threads.
class ShapePath {
 public:
  ShapePath() = default;
  explicit ShapePath(std::vector<LatLon> points);

  [[nodiscard]] double length_m() const { return cumulative_.empty() ? 0 : cumulative_.back(); }
  [[nodiscard]] const std::vector<LatLon>& points() const { return points_; }
  /// Distance along the path of each point (first 0).
  [[nodiscard]] const std::vector<double>& cumulative() const { return cumulative_; }
  /// The point `s` metres along the path, clamped to its ends.
  [[nodiscard]] LatLon At(double s) const;
  /// Compass bearing of travel at `s`, degrees clockwise from north in [0, 360).
  [[nodiscard]] double BearingAt(double s) const;
  /// Where along the path `p` projects, if it lies within `max_offset_m` of it.
  [[nodiscard]] bool Project(LatLon p, double max_offset_m, double& s_out) const;

 private:
  [[nodiscard]] std::size_t SegmentAt(double s) const;
  std::vector<LatLon> points_;
  std::vector<double> cumulative_;
};

}  // namespace frota::sim
