// A geographic area read from GeoJSON, with a fast even-odd point-in-area test (semantics §2 rule
// 4).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frota/base/status.h"

namespace frota::geo {

/// A ring as (lon, lat) pairs in degrees, the GeoJSON order.
using Ring = std::vector<std::pair<double, double>>;

/// The smallest lat/lon box holding every ring vertex.
struct BoundingBox {
  double min_lat = 0;
  double min_lon = 0;
  double max_lat = 0;
  double max_lon = 0;
};

/// Picks one or more features of a FeatureCollection: those whose property
/// `property` equals `value`. A string property matches by text; a number matches
/// when its JSON text is `value` (3304557 matches "3304557"). When the feature has
/// no such property, its top-level GeoJSON member of that name (e.g. "id") is used.
struct FeatureFilter {
  std::string property;
  std::string value;
};

/// An area: all rings of all polygons of a GeoJSON document (or of the features a
/// FeatureFilter selects), with a grid index for Contains().
///
/// Inside is the even-odd rule over ALL rings together, so holes are outside, and
/// islands stored as extra rings of one Polygon (the IBGE boundaries do this) are
/// inside. The rule, exactly: a point is inside when the number of edges (a, b) with
/// `(a.lat > lat) != (b.lat > lat)` and `lon < X` is odd, where X is the edge's
/// longitude at `lat`, `a.lon + (lat - a.lat) * (b.lon - a.lon) / (b.lat - a.lat)`
/// computed in double and clamped to the edge's longitude range. Consequences:
///   - the answer is deterministic and the index never changes it (the index is an
///     acceleration of exactly this formula; the fuzzer and tests check it);
///   - a point on the boundary counts as inside exactly when a point a hair east
///     (then a hair north) of it would: on a west or south edge it is inside, on an
///     east or north edge outside; vertices likewise; exact for vertices and for
///     axis-parallel edges, and "as computed in double" on slanted edges;
///   - NaN coordinates are outside.
/// Rings are closed when the file leaves them open; rings with fewer than three
/// distinct vertices enclose nothing and are dropped; a document with no ring left
/// is an error. Coordinates are planar lon/lat: an area crossing the antimeridian
/// must be split there, as RFC 7946 asks.
///
/// Lifecycle: built once by a factory, then immutable. Copyable and movable; const
/// members are safe to call from any number of threads.
class Area {
 public:
  /// Reads a GeoJSON file: FeatureCollection, Feature, Polygon or MultiPolygon.
  static base::Result<Area> LoadGeoJson(const std::filesystem::path& path,
                                        const std::optional<FeatureFilter>& filter = std::nullopt);
  /// Parses GeoJSON text; errors start with `name_for_errors` and say where it failed.
  static base::Result<Area> ParseGeoJson(std::string_view text, std::string_view name_for_errors,
                                         const std::optional<FeatureFilter>& filter = std::nullopt);
  /// `PATH` or `PATH#PROPERTY=VALUE` (e.g. `geojs-33-mun.json#id=3304557`), the form
  /// command lines and configuration use for `--area`.
  static base::Result<Area> LoadSpec(std::string_view spec);
  /// An area from rings already in memory ((lon, lat) pairs); same rules as GeoJSON.
  static base::Result<Area> FromRings(std::vector<Ring> rings, std::string_view name_for_errors);

  /// Even-odd containment as defined in the class comment. Typically a few ns.
  [[nodiscard]] bool Contains(double lat, double lon) const;

  /// The rings used by Contains(), each closed (first vertex repeated at the end).
  [[nodiscard]] const std::vector<Ring>& rings() const { return rings_; }
  [[nodiscard]] const BoundingBox& bounding_box() const { return bbox_; }
  /// Where the area came from (the file name, or the name given to FromRings).
  [[nodiscard]] const std::string& name() const { return name_; }
  /// Number of edges over all rings.
  [[nodiscard]] std::size_t edge_count() const { return edges_.size(); }

 private:
  struct Edge {
    double lat_a, lon_a, lat_b, lon_b;
    double min_lon, max_lon;
  };

  Area() = default;
  void BuildIndex();
  // The steps of BuildIndex, in order.
  void CollectEdges();
  void SizeGrid();
  // Every non-horizontal edge in the rows its lat range touches: offsets per row, edges.
  [[nodiscard]] std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> RowLists() const;
  [[nodiscard]] std::vector<std::uint8_t> BoundaryMask() const;
  void ClassifyCells(const std::vector<std::uint32_t>& row_offsets,
                     const std::vector<std::uint32_t>& row_edges,
                     const std::vector<std::uint8_t>& boundary);
  [[nodiscard]] std::int32_t RowOf(double lat) const;
  [[nodiscard]] std::int32_t ColOf(double lon) const;
  [[nodiscard]] static bool Crosses(const Edge& edge, double lat, double lon);
  /// The exact rule over `edges` (indexes into edges_); `west_ray` counts the
  /// complementary crossings (see BuildIndex), which have the same parity.
  [[nodiscard]] bool OddCrossings(const std::uint32_t* begin, const std::uint32_t* end, double lat,
                                  double lon, bool west_ray) const;

  std::string name_;
  std::vector<Ring> rings_;
  BoundingBox bbox_;
  std::vector<Edge> edges_;

  // Candidate edges of a boundary cell: boundary_edges_[begin, end), by a west ray or
  // an east one.
  struct BoundaryCell {
    std::uint32_t begin;
    std::uint32_t end;
    bool west_ray;
  };

  // Grid over bbox_: cols_ × rows_ cells. cell_state_[row * cols_ + col] is kOutside,
  // kInside, or kBoundaryBase + i for boundary_cells_[i].
  static constexpr std::uint32_t kOutside = 0;
  static constexpr std::uint32_t kInside = 1;
  static constexpr std::uint32_t kBoundaryBase = 2;
  std::int32_t cols_ = 1;
  std::int32_t rows_ = 1;
  double col_per_degree_ = 1;
  double row_per_degree_ = 1;
  std::vector<std::uint32_t> cell_state_;
  std::vector<BoundaryCell> boundary_cells_;
  std::vector<std::uint32_t> boundary_edges_;
};

}  // namespace frota::geo
