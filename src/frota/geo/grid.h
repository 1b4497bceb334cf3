// The speed job's grid cells: integer cell coordinates of a position (semantics §4).
#pragma once

#include <compare>
#include <cstdint>

namespace frota::geo {

/// One cell of the global lon/lat grid: x counts cells eastwards from lon 0, y
/// northwards from the equator (negative in the southern and western hemispheres).
struct GridCell {
  std::int32_t x;
  std::int32_t y;
  auto operator<=>(const GridCell&) const = default;
};

/// Default cell size: 0.005° (about 510 m × 556 m at Rio's latitude).
inline constexpr double kCellDegrees = 0.005;

/// The cell of a point: x = floor(lon / cell_degrees), y = floor(lat / cell_degrees).
///
/// The contract is the floor of the quotient *as computed in IEEE double*, which is
/// also what the batch SQL computes (`floor(lon / 0.005)` in DuckDB divides two
/// doubles the same way). The decimal 0.005 is not exact in binary, so a coordinate
/// that is "exactly" a multiple of the size in decimal may land in the cell below:
/// 0.145 / 0.005 = 28.999999999999996, so a latitude of 0.145 is in row 28, not 29,
/// and -0.035 / 0.005 = -7.000000000000001 puts -0.035 in row -8. No
/// correction is applied, on purpose: stream and batch must agree to the bit.
/// Quotients beyond the int32 range (and NaN) saturate to INT32_MIN / INT32_MAX
/// (NaN gives INT32_MIN); valid WGS84 coordinates never get there.
GridCell CellOf(double lat, double lon, double cell_degrees = kCellDegrees);

}  // namespace frota::geo
