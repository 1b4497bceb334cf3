#include "frota/sim/traffic.h"

#include <algorithm>

#include "frota/geo/haversine.h"

namespace frota::sim {

double TrafficModel::AreaFactor(LatLon p) const {
  double factor = 1;
  for (const auto& area : slow_areas) {
    const double d = geo::HaversineM(p.lat, p.lon, area.center.lat, area.center.lon);
    if (d >= area.radius_m + kSlowAreaRampM) {
      continue;
    }
    const double inside = d <= area.radius_m ? 1.0 : 1.0 - (d - area.radius_m) / kSlowAreaRampM;
    factor = std::min(factor, 1.0 - inside * (1.0 - area.factor));
  }
  return factor;
}

double TrafficModel::SpeedMps(int hour, LatLon p) const {
  const double hf = hour_factor[static_cast<std::size_t>(std::clamp(hour, 0, 23))];
  return free_flow_kmh / 3.6 * hf * AreaFactor(p);
}

}  // namespace frota::sim
