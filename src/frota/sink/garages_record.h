// The garages a database's stops are placed by (table `garage_edges`, schema version 11
// in DuckDB and PostgreSQL): the edges of the polygons a run was given with --garages.
// The read view `stop_rows` calls a stop inside them `depot` (docs/semantics-notes.md,
// "Depots").
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace frota::sink {

/// One edge of a garage ring, from (lat_a, lon_a) to (lat_b, lon_b), in degrees.
struct GarageEdge {
  double lat_a = 0;
  double lon_a = 0;
  double lat_b = 0;
  double lon_b = 0;
  bool operator==(const GarageEdge&) const = default;
};

/// The edges in ring order. Only edges that are not horizontal: the even-odd rule of
/// geo::Area never counts a horizontal one, and leaving them out keeps the view's
/// division by (lat_b - lat_a) away from zero.
using GarageRecord = std::vector<GarageEdge>;

/// The edges of every ring of `rings`: closed rings of (lon, lat) pairs, as
/// geo::Area::rings() holds them.
GarageRecord GarageEdges(const std::vector<std::vector<std::pair<double, double>>>& rings);

/// `INSERT INTO garage_edges VALUES ...` of `edges` (not empty), numbered from 0 in
/// order. Each double is a string in its shortest exact form cast to `double_type`
/// (a bare literal would be a DECIMAL in DuckDB, rounded twice on its way to a double),
/// so what is read back equals what was written.
std::string InsertGarageEdgesSql(const GarageRecord& edges, std::string_view double_type);

}  // namespace frota::sink
