// Vectors that grow by an eighth at a time, for big long-lived per-key tables.
#pragma once

#include <cstddef>
#include <vector>

namespace frota::base {

/// Makes room in `v` for `size` elements, growing its capacity by an eighth at a time
/// rather than libstdc++'s doubling, which leaves up to half of a big table unused for
/// good (per-vehicle state: BM_EngineMemoryPerVehicle). Still amortised O(1) per element.
template <typename T>
void ReserveGrowing(std::vector<T>& v, std::size_t size) {
  if (size > v.capacity()) {
    v.reserve(size + size / 8 + 64);
  }
}

/// `v[index]`, after growing `v` (value-initialised elements) to hold it, by ReserveGrowing.
/// For vectors indexed by string id: one slot per id ever interned.
template <typename T>
T& GrowingAt(std::vector<T>& v, std::size_t index) {
  if (index >= v.size()) {
    ReserveGrowing(v, index + 1);
    v.resize(index + 1);
  }
  return v[index];
}

}  // namespace frota::base
