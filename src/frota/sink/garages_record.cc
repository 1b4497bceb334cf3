#include "frota/sink/garages_record.h"

#include <fmt/format.h>

namespace frota::sink {

GarageRecord GarageEdges(const std::vector<std::vector<std::pair<double, double>>>& rings) {
  GarageRecord edges;
  for (const auto& ring : rings) {
    for (std::size_t i = 0; i + 1 < ring.size(); ++i) {
      const auto [lon_a, lat_a] = ring[i];
      const auto [lon_b, lat_b] = ring[i + 1];
      if (lat_a != lat_b) {
        edges.push_back({lat_a, lon_a, lat_b, lon_b});
      }
    }
  }
  return edges;
}

std::string InsertGarageEdgesSql(const GarageRecord& edges, std::string_view double_type) {
  const auto value = [&](double degrees) { return fmt::format("'{}'::{}", degrees, double_type); };
  std::string sql = "INSERT INTO garage_edges VALUES ";
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const GarageEdge& e = edges[i];
    sql += fmt::format("{}({}, {}, {}, {}, {})", i == 0 ? "" : ", ", i, value(e.lat_a),
                       value(e.lon_a), value(e.lat_b), value(e.lon_b));
  }
  return sql;
}

}  // namespace frota::sink
