// A small open-addressing map for the hourly aggregates: no node per entry, no modulo.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace frota::job {

/// A map from small trivially copyable keys to values, for the per-hour aggregates the
/// jobs update on every record (grid cells, lines). Entries sit in a vector in insertion
/// order (so iteration is deterministic: the order the input created them); an index of
/// entry positions, linear probing over a power-of-two table at most half full, finds
/// them. Entries are never erased: a bucket is emitted and dropped as a whole.
/// `Hash` must mix well in its high bits (a multiplicative hash does).
template <typename Key, typename Value, typename Hash>
class FlatMap {
 public:
  using Entry = std::pair<Key, Value>;

  /// The value of `key`, value-initialised if new.
  Value& operator[](const Key& key) {
    if (slots_.empty()) {
      slots_.assign(16, 0);
      shift_ = 64 - 4;
    }
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = Slot(key);; i = (i + 1) & mask) {
      const std::uint32_t at = slots_[i];
      if (at == 0) {
        entries_.emplace_back(key, Value{});
        slots_[i] = static_cast<std::uint32_t>(entries_.size());
        if (entries_.size() * 2 > slots_.size()) {
          Grow();
        }
        return entries_.back().second;
      }
      if (entries_[at - 1].first == key) {
        return entries_[at - 1].second;
      }
    }
  }

  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] bool empty() const { return entries_.empty(); }
  [[nodiscard]] auto begin() const { return entries_.begin(); }
  [[nodiscard]] auto end() const { return entries_.end(); }

 private:
  [[nodiscard]] std::size_t Slot(const Key& key) const {
    return static_cast<std::size_t>(static_cast<std::uint64_t>(Hash{}(key)) >> shift_);
  }
  void Grow() {
    slots_.assign(slots_.size() * 2, 0);
    --shift_;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t e = 0; e < entries_.size(); ++e) {
      std::size_t i = Slot(entries_[e].first);
      while (slots_[i] != 0) {
        i = (i + 1) & mask;
      }
      slots_[i] = static_cast<std::uint32_t>(e + 1);
    }
  }

  std::vector<Entry> entries_;
  std::vector<std::uint32_t> slots_;  // entry index + 1; 0 = free
  unsigned shift_ = 64;
};

}  // namespace frota::job
