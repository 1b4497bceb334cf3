// Area: ring validation and the grid index behind Contains().
//
// The index is an acceleration of the exact rule in area.h, never an approximation:
//  - Rows. Each non-horizontal edge is listed in every grid row from RowOf(its min
//    lat) to RowOf(its max lat). RowOf is monotone, so every edge whose latitude range
//    holds a point's lat is in the list of that point's row: the row list is all a
//    horizontal ray through the point can meet.
//  - Boundary cells. Every cell that an edge passes within kMargin degrees of is a
//    boundary cell (computed per row from the edge's exact lat interval, with the
//    margin absorbing rounding). A point in a boundary cell is decided by the exact
//    rule over the row's edges, dropping only edges that provably cannot count:
//    with a ray to the east, edges whose whole lon range lies west of the cell
//    (ColOf(max_lon) < col implies lon > max_lon >= X, so `lon < X` is false).
//    Alternatively the ray goes west: counting `!(lon < X)` instead of `lon < X`
//    over the edges that satisfy the lat condition gives the same parity, because
//    every closed ring crosses a horizontal line an even number of times; then edges
//    wholly east of the cell drop out. Each cell uses the shorter of the two lists.
//  - Inside/outside cells. A cell no edge comes within kMargin of lies in one
//    connected edge-free region, where the exact even-odd count is constant; rounding
//    in X (a few ulps, far below kMargin) cannot flip any comparison there, so the
//    computed rule is constant too. Its value is computed once per run of such
//    cells in a row, at a cell centre, with the row's edge list.
#include "frota/geo/area.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace frota::geo {
namespace {

// Far above the rounding error of any coordinate computation here (~1e-13 degrees)
// and far below any real geometry (1e-9 degrees is 0.1 mm).
constexpr double kMargin = 1e-9;
// Grid size: about this many cells per edge, within these bounds.
constexpr double kCellsPerEdge = 256;
constexpr double kMinCells = 4096;
constexpr double kMaxCells = 1 << 22;

bool ValidPosition(double lon, double lat) {
  return std::isfinite(lon) && std::isfinite(lat) && lon >= -180 && lon <= 180 && lat >= -90 &&
         lat <= 90;
}

std::size_t DistinctVertices(const Ring& ring) {
  Ring sorted = ring;
  std::sort(sorted.begin(), sorted.end());
  return static_cast<std::size_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
}

}  // namespace

base::Result<Area> Area::FromRings(std::vector<Ring> rings, std::string_view name_for_errors) {
  Area area;
  area.name_ = std::string(name_for_errors);
  for (std::size_t r = 0; r < rings.size(); ++r) {
    Ring& ring = rings[r];
    for (std::size_t i = 0; i < ring.size(); ++i) {
      if (!ValidPosition(ring[i].first, ring[i].second)) {
        return base::InvalidInput("{}: ring {} position {}: ({}, {}) is not a valid lon, lat",
                                  name_for_errors, r, i, ring[i].first, ring[i].second);
      }
    }
    if (DistinctVertices(ring) < 3) {
      continue;  // encloses nothing
    }
    if (ring.front() != ring.back()) {
      ring.push_back(ring.front());
    }
    area.rings_.push_back(std::move(ring));
  }
  if (area.rings_.empty()) {
    return base::InvalidInput("{}: no polygon ring with at least three distinct vertices",
                              name_for_errors);
  }
  area.BuildIndex();
  return area;
}

std::int32_t Area::RowOf(double lat) const {
  const double v = (lat - bbox_.min_lat) * row_per_degree_;
  if (!(v >= 0)) {
    return 0;
  }
  if (v >= rows_) {
    return rows_ - 1;
  }
  return static_cast<std::int32_t>(v);
}

std::int32_t Area::ColOf(double lon) const {
  const double v = (lon - bbox_.min_lon) * col_per_degree_;
  if (!(v >= 0)) {
    return 0;
  }
  if (v >= cols_) {
    return cols_ - 1;
  }
  return static_cast<std::int32_t>(v);
}

bool Area::Crosses(const Edge& edge, double lat, double lon) {
  double x =
      edge.lon_a + (lat - edge.lat_a) * (edge.lon_b - edge.lon_a) / (edge.lat_b - edge.lat_a);
  x = std::clamp(x, edge.min_lon, edge.max_lon);
  return lon < x;
}

bool Area::OddCrossings(const std::uint32_t* begin, const std::uint32_t* end, double lat,
                        double lon, bool west_ray) const {
  bool odd = false;
  for (const std::uint32_t* it = begin; it != end; ++it) {
    const Edge& edge = edges_[*it];
    if ((edge.lat_a > lat) != (edge.lat_b > lat)) {
      odd ^= (Crosses(edge, lat, lon) != west_ray);
    }
  }
  return odd;
}

bool Area::Contains(double lat, double lon) const {
  if (!(lat >= bbox_.min_lat && lat < bbox_.max_lat && lon >= bbox_.min_lon &&
        lon < bbox_.max_lon)) {
    return false;  // the exact rule gives outside here too (see area.h); NaN lands here
  }
  const std::uint32_t state =
      cell_state_[static_cast<std::size_t>(RowOf(lat)) * static_cast<std::size_t>(cols_) +
                  static_cast<std::size_t>(ColOf(lon))];
  if (state < kBoundaryBase) {
    return state == kInside;
  }
  const BoundaryCell& boundary = boundary_cells_[state - kBoundaryBase];
  return OddCrossings(boundary_edges_.data() + boundary.begin,
                      boundary_edges_.data() + boundary.end, lat, lon, boundary.west_ray);
}

void Area::BuildIndex() {
  CollectEdges();
  SizeGrid();
  const auto [row_offsets, row_edges] = RowLists();
  ClassifyCells(row_offsets, row_edges, BoundaryMask());
}

void Area::CollectEdges() {
  // Bounding box and edges (zero-length edges never satisfy the lat condition).
  bbox_ = {rings_[0][0].second, rings_[0][0].first, rings_[0][0].second, rings_[0][0].first};
  for (const Ring& ring : rings_) {
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const auto [lon, lat] = ring[i];
      bbox_.min_lat = std::min(bbox_.min_lat, lat);
      bbox_.max_lat = std::max(bbox_.max_lat, lat);
      bbox_.min_lon = std::min(bbox_.min_lon, lon);
      bbox_.max_lon = std::max(bbox_.max_lon, lon);
      if (i + 1 < ring.size() && ring[i] != ring[i + 1]) {
        const auto [lon_b, lat_b] = ring[i + 1];
        edges_.push_back({lat, lon, lat_b, lon_b, std::min(lon, lon_b), std::max(lon, lon_b)});
      }
    }
  }
}

void Area::SizeGrid() {
  // Grid dimensions: roughly square cells, kCellsPerEdge cells per edge.
  const double width = bbox_.max_lon - bbox_.min_lon;
  const double height = bbox_.max_lat - bbox_.min_lat;
  const double target =
      std::clamp(kCellsPerEdge * static_cast<double>(edges_.size()), kMinCells, kMaxCells);
  if (width > 0 && height > 0) {
    cols_ = static_cast<std::int32_t>(
        std::clamp(std::round(std::sqrt(target * width / height)), 1.0, target));
    rows_ = static_cast<std::int32_t>(std::clamp(std::round(target / cols_), 1.0, target));
  } else {
    cols_ = width > 0 ? static_cast<std::int32_t>(target) : 1;
    rows_ = height > 0 ? static_cast<std::int32_t>(target) : 1;
  }
  col_per_degree_ = width > 0 ? cols_ / width : 1;
  row_per_degree_ = height > 0 ? rows_ / height : 1;
}

std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> Area::RowLists() const {
  const auto rows = static_cast<std::size_t>(rows_);
  // Row lists (CSR): every non-horizontal edge in the rows its lat range touches.
  std::vector<std::uint32_t> row_offsets(rows + 1, 0);
  for (const Edge& edge : edges_) {
    if (edge.lat_a != edge.lat_b) {
      const auto [lo, hi] = std::minmax(edge.lat_a, edge.lat_b);
      for (std::int32_t r = RowOf(lo); r <= RowOf(hi); ++r) {
        ++row_offsets[static_cast<std::size_t>(r) + 1];
      }
    }
  }
  for (std::size_t r = 0; r < rows; ++r) {
    row_offsets[r + 1] += row_offsets[r];
  }
  std::vector<std::uint32_t> row_edges(row_offsets[rows]);
  {
    std::vector<std::uint32_t> fill(row_offsets.begin(), row_offsets.end() - 1);
    for (std::uint32_t e = 0; e < edges_.size(); ++e) {
      const Edge& edge = edges_[e];
      if (edge.lat_a != edge.lat_b) {
        const auto [lo, hi] = std::minmax(edge.lat_a, edge.lat_b);
        for (std::int32_t r = RowOf(lo); r <= RowOf(hi); ++r) {
          row_edges[fill[static_cast<std::size_t>(r)]++] = e;
        }
      }
    }
  }
  return {std::move(row_offsets), std::move(row_edges)};
}

std::vector<std::uint8_t> Area::BoundaryMask() const {
  const auto cols = static_cast<std::size_t>(cols_);
  const auto rows = static_cast<std::size_t>(rows_);
  // Boundary cells: every cell some edge passes within kMargin of.
  std::vector<std::uint8_t> boundary(rows * cols, 0);
  for (const Edge& edge : edges_) {
    const auto [lat_lo, lat_hi] = std::minmax(edge.lat_a, edge.lat_b);
    for (std::int32_t r = RowOf(lat_lo - kMargin); r <= RowOf(lat_hi + kMargin); ++r) {
      const double band_lo = bbox_.min_lat + r / row_per_degree_ - kMargin;
      const double band_hi = bbox_.min_lat + (r + 1) / row_per_degree_ + kMargin;
      const double y0 = std::max(band_lo, lat_lo);
      const double y1 = std::min(band_hi, lat_hi);
      double x0 = edge.min_lon;
      double x1 = edge.max_lon;
      if (edge.lat_a != edge.lat_b) {
        if (y0 > y1) {
          continue;
        }
        const double slope = (edge.lon_b - edge.lon_a) / (edge.lat_b - edge.lat_a);
        const double xa =
            std::clamp(edge.lon_a + (y0 - edge.lat_a) * slope, edge.min_lon, edge.max_lon);
        const double xb =
            std::clamp(edge.lon_a + (y1 - edge.lat_a) * slope, edge.min_lon, edge.max_lon);
        x0 = std::min(xa, xb);
        x1 = std::max(xa, xb);
      }
      for (std::int32_t c = ColOf(x0 - kMargin); c <= ColOf(x1 + kMargin); ++c) {
        boundary[static_cast<std::size_t>(r) * cols + static_cast<std::size_t>(c)] = 1;
      }
    }
  }
  return boundary;
}

void Area::ClassifyCells(const std::vector<std::uint32_t>& row_offsets,
                         const std::vector<std::uint32_t>& row_edges,
                         const std::vector<std::uint8_t>& boundary) {
  const auto cols = static_cast<std::size_t>(cols_);
  const auto rows = static_cast<std::size_t>(rows_);
  // Cell states and boundary candidate lists. Per row, boundary_edges_ holds the
  // row's edges twice: sorted by the last column they reach (descending), then by the
  // first column (ascending). A cell's east list (edges reaching its column or beyond)
  // and west list (edges starting at its column or before) are prefixes of those, so
  // a boundary cell stores a range, and memory stays linear in the row lists.
  cell_state_.assign(rows * cols, kOutside);
  boundary_edges_.reserve(2 * row_edges.size());
  std::vector<std::pair<std::int32_t, std::uint32_t>> by_last_col;   // (-last col, edge)
  std::vector<std::pair<std::int32_t, std::uint32_t>> by_first_col;  // (first col, edge)
  for (std::size_t r = 0; r < rows; ++r) {
    const std::uint32_t* row_begin = row_edges.data() + row_offsets[r];
    const std::uint32_t* row_end = row_edges.data() + row_offsets[r + 1];
    by_last_col.clear();
    by_first_col.clear();
    for (const std::uint32_t* it = row_begin; it != row_end; ++it) {
      by_last_col.emplace_back(-ColOf(edges_[*it].max_lon), *it);
      by_first_col.emplace_back(ColOf(edges_[*it].min_lon), *it);
    }
    std::sort(by_last_col.begin(), by_last_col.end());
    std::sort(by_first_col.begin(), by_first_col.end());
    const auto east_begin = static_cast<std::uint32_t>(boundary_edges_.size());
    for (const auto& [key, edge] : by_last_col) {
      boundary_edges_.push_back(edge);
    }
    const auto west_begin = static_cast<std::uint32_t>(boundary_edges_.size());
    for (const auto& [key, edge] : by_first_col) {
      boundary_edges_.push_back(edge);
    }
    std::size_t east_count = by_last_col.size();  // edges whose last col >= c
    std::size_t west_count = 0;                   // edges whose first col <= c
    const double centre_lat = bbox_.min_lat + (static_cast<double>(r) + 0.5) / row_per_degree_;
    bool run_known = false;
    bool run_inside = false;
    for (std::size_t c = 0; c < cols; ++c) {
      const auto col = static_cast<std::int32_t>(c);
      while (east_count > 0 && by_last_col[east_count - 1].first > -col) {
        --east_count;
      }
      while (west_count < by_first_col.size() && by_first_col[west_count].first <= col) {
        ++west_count;
      }
      const std::size_t cell = r * cols + c;
      if (boundary[cell] == 0) {
        if (!run_known) {
          const double centre_lon =
              bbox_.min_lon + (static_cast<double>(c) + 0.5) / col_per_degree_;
          run_inside = OddCrossings(row_begin, row_end, centre_lat, centre_lon, false);
          run_known = true;
        }
        cell_state_[cell] = run_inside ? kInside : kOutside;
        continue;
      }
      run_known = false;
      cell_state_[cell] = kBoundaryBase + static_cast<std::uint32_t>(boundary_cells_.size());
      const bool use_west = west_count < east_count;
      const std::uint32_t begin = use_west ? west_begin : east_begin;
      const auto count = static_cast<std::uint32_t>(use_west ? west_count : east_count);
      boundary_cells_.push_back({begin, begin + count, use_west});
    }
  }
}

}  // namespace frota::geo
