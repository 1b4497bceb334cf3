// Strong types for ids and offsets, so a partition is never passed where an offset belongs.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace frota::base {

/// A value of type T that only converts to and from T explicitly.
template <typename T, typename Tag>
class NamedType {
 public:
  using ValueType = T;
  constexpr NamedType() = default;
  constexpr explicit NamedType(T value) : value_(value) {}
  [[nodiscard]] constexpr T value() const { return value_; }
  constexpr auto operator<=>(const NamedType&) const = default;

 private:
  T value_{};
};

using PartitionId = NamedType<std::int32_t, struct PartitionIdTag>;
using Offset = NamedType<std::int64_t, struct OffsetTag>;
using EpochId = NamedType<std::int64_t, struct EpochIdTag>;

}  // namespace frota::base

template <typename T, typename Tag>
struct std::hash<frota::base::NamedType<T, Tag>> {
  std::size_t operator()(const frota::base::NamedType<T, Tag>& id) const noexcept {
    return std::hash<T>{}(id.value());
  }
};
