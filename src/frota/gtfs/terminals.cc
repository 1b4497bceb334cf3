#include "frota/gtfs/terminals.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>

#include "frota/geo/haversine.h"

namespace frota::gtfs {
namespace {

void AddPoint(std::vector<TerminalPoint>& points, double lat, double lon) {
  if (!std::isfinite(lat) || !std::isfinite(lon)) {
    return;
  }
  const bool known = std::any_of(points.begin(), points.end(), [&](const TerminalPoint& p) {
    return p.lat == lat && p.lon == lon;
  });
  if (!known) {
    points.push_back({lat, lon});
  }
}

}  // namespace

TerminalIndex::TerminalIndex(const StaticFeed& feed, const RouteResolver& resolver)
    : resolver_(&resolver), terminals_(feed.routes().size()) {
  if (!feed.routes().empty()) {
    first_route_ = feed.routes().data();
  }
  for (const Trip& trip : feed.trips()) {
    const Route* route = feed.FindRoute(trip.route_id);
    if (route == nullptr) {
      continue;  // a trip of an unknown route: nothing to attach it to
    }
    auto& points = terminals_[static_cast<std::size_t>(route - first_route_)];
    const Shape* shape = trip.shape_id.empty() ? nullptr : feed.FindShape(trip.shape_id);
    if (shape != nullptr && !shape->points.empty()) {
      AddPoint(points, shape->points.front().lat, shape->points.front().lon);
      AddPoint(points, shape->points.back().lat, shape->points.back().lon);
      continue;
    }
    const auto add_stop = [&](std::string_view stop_id) {
      if (const Stop* stop = feed.FindStop(stop_id)) {
        AddPoint(points, stop->lat, stop->lon);
      }
    };
    if (const FirstStopDeparture* first = feed.FindFirstStop(trip.id)) {
      add_stop(first->stop_id);
    }
    if (const LastStopArrival* last = feed.FindLastStop(trip.id)) {
      add_stop(last->stop_id);
    }
  }
}

const std::vector<TerminalPoint>& TerminalIndex::TerminalsOf(const Route* route) const {
  static const std::vector<TerminalPoint> kNone;
  const std::less<const Route*> before;
  if (route == nullptr || first_route_ == nullptr || before(route, first_route_) ||
      !before(route, first_route_ + terminals_.size())) {
    return kNone;
  }
  return terminals_[static_cast<std::size_t>(route - first_route_)];
}

std::optional<bool> TerminalIndex::NearTerminal(std::string_view feed_route_id, double lat,
                                                double lon, double radius_m) const {
  const Route* route = resolver_->Find(feed_route_id);
  if (route == nullptr) {
    return std::nullopt;
  }
  // A cheap latitude pre-check (a degree of latitude is never shorter than on the
  // sphere's meridian) before the haversine.
  constexpr double kMetresPerDegree = geo::kEarthRadiusM * std::numbers::pi / 180;
  const double max_dlat = radius_m / kMetresPerDegree * 1.000001 + 1e-12;
  for (const TerminalPoint& point : TerminalsOf(route)) {
    if (std::abs(point.lat - lat) <= max_dlat &&
        geo::HaversineM(lat, lon, point.lat, point.lon) <= radius_m) {
      return true;
    }
  }
  return false;
}

}  // namespace frota::gtfs
