#include "frota/geo/grid.h"

#include <cmath>
#include <limits>

namespace frota::geo {
namespace {

std::int32_t FloorToInt32(double quotient) {
  const double floored = std::floor(quotient);
  constexpr auto kMin = std::numeric_limits<std::int32_t>::min();
  constexpr auto kMax = std::numeric_limits<std::int32_t>::max();
  if (!(floored >= static_cast<double>(kMin))) {  // also NaN
    return kMin;
  }
  if (floored > static_cast<double>(kMax)) {
    return kMax;
  }
  return static_cast<std::int32_t>(floored);
}

}  // namespace

GridCell CellOf(double lat, double lon, double cell_degrees) {
  return GridCell{FloorToInt32(lon / cell_degrees), FloorToInt32(lat / cell_degrees)};
}

}  // namespace frota::geo
