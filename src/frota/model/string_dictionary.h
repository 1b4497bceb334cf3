// Interned strings: records carry 4-byte ids instead of strings through the engine.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace frota::model {

/// An append-only table of distinct strings, each with a stable 4-byte id (0 = "").
///
/// Thread safety: one thread interns (the pipeline's offering thread); any thread may
/// View() an id it obtained through a record handed over with proper synchronisation
/// (a queue, a join): entries never move once written, so readers need no lock.
/// Memory grows with the number of distinct strings (vehicles, routes, trips); restarts
/// rebuild it from checkpoints, which store strings, not ids.
class StringDictionary {
 public:
  using Id = std::uint32_t;
  static constexpr Id kEmpty = 0;

  StringDictionary();
  ~StringDictionary();
  StringDictionary(const StringDictionary&) = delete;
  StringDictionary& operator=(const StringDictionary&) = delete;

  /// The id of `text`, adding it if new. Single writer.
  Id Intern(std::string_view text) { return Intern(text, TextHash(text)); }
  /// Intern() for a caller that has the text's TextHash already (e.g. to route by it).
  Id Intern(std::string_view text, std::uint64_t hash);
  /// The text of `id`.
  [[nodiscard]] std::string_view View(Id id) const {
    if (id == kEmpty) {
      return {};
    }
    const Entry& entry = blocks_[id >> kBlockBits][id & kBlockMask];
    return {entry.text, entry.size};
  }
  /// A stable hash of the text of `id` (TextHash), recomputed from the text: a million
  /// vehicles would pay 8 bytes each for keeping it.
  [[nodiscard]] std::uint64_t Hash(Id id) const { return TextHash(View(id)); }
  /// The hash the dictionary uses: base::FastStableHash.
  static std::uint64_t TextHash(std::string_view text);
  [[nodiscard]] std::size_t size() const { return size_.load(std::memory_order_acquire); }

 private:
  // Trivial on purpose: blocks are allocated uninitialised, pages touched only when used.
  // 16 bytes: the low half of the hash is enough to skip most texts that differ while
  // probing and to place ids in an index of fewer than 2^32 slots.
  struct Entry {
    const char* text;  // into arena_
    std::uint32_t size;
    std::uint32_t hash_low;
  };
  static constexpr unsigned kBlockBits = 16;
  static constexpr std::uint32_t kBlockMask = (1U << kBlockBits) - 1;
  static constexpr std::size_t kMaxBlocks = std::size_t{1} << (32 - kBlockBits);

  void Grow();
  const char* Store(std::string_view text);

  // Fixed array of block pointers (calloc: zero pages, untouched until used): blocks never
  // move, so View() needs no lock.
  Entry** blocks_;
  std::atomic<std::size_t> size_{1};
  // Open-addressing index: slot -> id (0 = free), at most 3/4 full.
  std::vector<Id> slots_;
  // Text storage in chunks that never move.
  std::vector<std::unique_ptr<char[]>> arena_;
  std::size_t arena_used_ = 0;
  std::size_t arena_capacity_ = 0;
};

}  // namespace frota::model
