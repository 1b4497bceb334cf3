#include "frota/sim/shape_path.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "frota/geo/haversine.h"

namespace frota::sim {

double MetresPerDegreeLat() { return geo::kEarthRadiusM * std::numbers::pi / 180.0; }

LocalPlane::LocalPlane(LatLon origin)
    : origin_(origin),
      m_per_deg_lat_(MetresPerDegreeLat()),
      m_per_deg_lon_(MetresPerDegreeLat() * std::cos(origin.lat * std::numbers::pi / 180.0)) {}

LatLon LocalPlane::ToLatLon(double x_m, double y_m) const {
  return {origin_.lat + y_m / m_per_deg_lat_, origin_.lon + x_m / m_per_deg_lon_};
}

double LocalPlane::X(LatLon p) const { return (p.lon - origin_.lon) * m_per_deg_lon_; }
double LocalPlane::Y(LatLon p) const { return (p.lat - origin_.lat) * m_per_deg_lat_; }

ShapePath::ShapePath(std::vector<LatLon> points) : points_(std::move(points)) {
  cumulative_.reserve(points_.size());
  double total = 0;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    if (i > 0) {
      total +=
          geo::HaversineM(points_[i - 1].lat, points_[i - 1].lon, points_[i].lat, points_[i].lon);
    }
    cumulative_.push_back(total);
  }
}

std::size_t ShapePath::SegmentAt(double s) const {
  // The segment [i, i+1] with cumulative_[i] <= s < cumulative_[i+1].
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), s);
  const auto i =
      static_cast<std::size_t>(std::max<std::ptrdiff_t>(it - cumulative_.begin() - 1, 0));
  return std::min(i, points_.size() >= 2 ? points_.size() - 2 : 0);
}

LatLon ShapePath::At(double s) const {
  if (points_.empty()) {
    return {};
  }
  if (points_.size() == 1 || s <= 0) {
    return points_.front();
  }
  if (s >= cumulative_.back()) {
    return points_.back();
  }
  const std::size_t i = SegmentAt(s);
  const double span = cumulative_[i + 1] - cumulative_[i];
  const double f = span > 0 ? (s - cumulative_[i]) / span : 0;
  return {points_[i].lat + f * (points_[i + 1].lat - points_[i].lat),
          points_[i].lon + f * (points_[i + 1].lon - points_[i].lon)};
}

double ShapePath::BearingAt(double s) const {
  if (points_.size() < 2) {
    return 0;
  }
  std::size_t i = SegmentAt(s);
  // Skip zero-length segments (repeated points) forwards, then backwards.
  while (i + 2 < points_.size() && cumulative_[i + 1] == cumulative_[i]) {
    ++i;
  }
  const double to_rad = std::numbers::pi / 180.0;
  const LatLon a = points_[i];
  const LatLon b = points_[i + 1];
  const double dy = (b.lat - a.lat);
  const double dx = (b.lon - a.lon) * std::cos(a.lat * to_rad);
  double bearing = std::atan2(dx, dy) / to_rad;
  if (bearing < 0) {
    bearing += 360;
  }
  return bearing >= 360 ? 0 : bearing;
}

bool ShapePath::Project(LatLon p, double max_offset_m, double& s_out) const {
  if (points_.size() < 2) {
    return false;
  }
  const LocalPlane plane(p);
  double best = max_offset_m;
  bool found = false;
  for (std::size_t i = 0; i + 1 < points_.size(); ++i) {
    const double ax = plane.X(points_[i]);
    const double ay = plane.Y(points_[i]);
    const double bx = plane.X(points_[i + 1]);
    const double by = plane.Y(points_[i + 1]);
    const double vx = bx - ax;
    const double vy = by - ay;
    const double len2 = vx * vx + vy * vy;
    double f = len2 > 0 ? -(ax * vx + ay * vy) / len2 : 0;
    f = std::clamp(f, 0.0, 1.0);
    const double qx = ax + f * vx;
    const double qy = ay + f * vy;
    const double d = std::sqrt(qx * qx + qy * qy);
    if (d <= best) {
      // Ties keep the earliest position along the path.
      if (!found || d < best) {
        s_out = cumulative_[i] + f * (cumulative_[i + 1] - cumulative_[i]);
      }
      best = d;
      found = true;
    }
  }
  return found;
}

}  // namespace frota::sim
