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
/// Ids are handed out in blocks of 65,536, each block holding one kind of text (Kind):
/// texts first interned as keys (vehicle ids) fill key blocks, so a caller can keep a
/// dense per-key table indexed by KeyOrdinal() rather than one slot per id of any kind.
///
/// Thread safety: one thread interns (the pipeline's offering thread); any thread may
/// View() an id it obtained through a record handed over with proper synchronisation
/// (a queue, a join): entries and texts never move once written, so readers need no lock.
/// Memory grows with the number of distinct strings (vehicles, routes, trips); restarts
/// rebuild it from checkpoints, which store strings, not ids.
class StringDictionary {
 public:
  using Id = std::uint32_t;
  static constexpr Id kEmpty = 0;
  /// What a text is to its caller: a key that indexes per-key tables, or any other text.
  enum class Kind : std::uint8_t { kText = 0, kKey = 1 };
  static constexpr std::uint32_t kNoOrdinal = 0xffffffffU;

  StringDictionary();
  ~StringDictionary();
  StringDictionary(const StringDictionary&) = delete;
  StringDictionary& operator=(const StringDictionary&) = delete;

  /// The id of `text`, adding it if new. Single writer.
  Id Intern(std::string_view text) { return Intern(text, TextHash(text)); }
  /// Intern() for a caller that has the text's TextHash already (e.g. to route by it).
  /// A new text gets an id of `kind`; a known one keeps the id it has.
  Id Intern(std::string_view text, std::uint64_t hash, Kind kind = Kind::kText);
  /// Intern() of a key (Kind::kKey): a vehicle id.
  Id InternKey(std::string_view text) { return Intern(text, TextHash(text), Kind::kKey); }
  /// The text of `id`.
  [[nodiscard]] std::string_view View(Id id) const {
    if (id == kEmpty) {
      return {};
    }
    return TextAt(EntryOf(id).at);
  }
  /// A stable hash of the text of `id` (TextHash), recomputed from the text: a million
  /// vehicles would pay 8 bytes each for keeping it.
  [[nodiscard]] std::uint64_t Hash(Id id) const { return TextHash(View(id)); }
  /// The hash the dictionary uses: base::FastStableHash.
  static std::uint64_t TextHash(std::string_view text);
  /// The position of `id` among the ids of Kind::kKey (dense: 0, 1, 2... give or take the
  /// unused tail of each block), or kNoOrdinal for an id of Kind::kText.
  [[nodiscard]] std::uint32_t KeyOrdinal(Id id) const {
    const std::uint32_t rank = key_rank_[id >> kBlockBits];
    return rank == 0 ? kNoOrdinal : ((rank - 1) << kBlockBits) | (id & kBlockMask);
  }
  /// The number of distinct texts, "" included.
  [[nodiscard]] std::size_t size() const { return size_.load(std::memory_order_acquire); }

 private:
  // Where the text is: the arena position of its length (a varint), then its bytes.
  // Trivial on purpose: blocks are allocated uninitialised, pages touched only when used.
  struct Entry {
    std::uint32_t at;
  };
  // A slot of the index, 5 bytes: an id and a tag, the top byte of its text's hash. The
  // tag skips all but 1 in 256 of the texts that differ while probing without reading
  // their entries (a lookup in a replay of a city's day missed the cache once per entry
  // it read); packed, so that the index of a million vehicles' texts is no larger than
  // the 4-byte slots and 8-byte entries (text and half its hash) it replaces.
#pragma pack(push, 1)
  struct Slot {
    Id id;  // kEmpty: free
    std::uint8_t tag;
  };
#pragma pack(pop)
  static std::uint8_t TagOf(std::uint64_t hash) { return static_cast<std::uint8_t>(hash >> 56); }
  static constexpr unsigned kBlockBits = 16;
  static constexpr std::uint32_t kBlockMask = (1U << kBlockBits) - 1;
  static constexpr std::size_t kMaxBlocks = std::size_t{1} << (32 - kBlockBits);
  // The arena: 2^32 bytes of positions in chunks of 1 MiB that never move.
  static constexpr unsigned kChunkBits = 20;
  static constexpr std::size_t kChunkSize = std::size_t{1} << kChunkBits;
  static constexpr std::size_t kMaxChunks = std::size_t{1} << (32 - kChunkBits);

  [[nodiscard]] const Entry& EntryOf(Id id) const {
    return blocks_[id >> kBlockBits][id & kBlockMask];
  }
  // The length is LEB128, as Store() writes it with base::ByteWriter::Varint; decoded
  // here unchecked, since the dictionary wrote it.
  [[nodiscard]] std::string_view TextAt(std::uint32_t at) const {
    const auto* p =
        reinterpret_cast<const unsigned char*>(chunks_[at >> kChunkBits]) + (at & (kChunkSize - 1));
    std::size_t size = *p & 0x7f;
    for (unsigned shift = 7; (*p & 0x80) != 0; shift += 7) {
      ++p;
      size |= static_cast<std::size_t>(*p & 0x7f) << shift;
    }
    return {reinterpret_cast<const char*>(p + 1), size};
  }
  // A new id of `kind`, its block allocated if needed.
  Id NextId(Kind kind);
  void Grow();
  // Stores `text` after its length; returns its position.
  std::uint32_t Store(std::string_view text);

  // Fixed arrays of block and chunk pointers (calloc: zero pages, untouched until used):
  // blocks and chunks never move, so View() needs no lock.
  Entry** blocks_;
  char** chunks_;
  // Per block: its rank among key blocks plus one, 0 for a block of kText.
  std::uint32_t* key_rank_;
  std::atomic<std::size_t> size_{1};
  // Per kind, the id the next text of that kind gets (0: needs a new block).
  Id next_id_[2] = {1, 0};
  std::uint32_t blocks_used_ = 1;
  std::uint32_t key_blocks_ = 0;
  // Open-addressing index, at most 3/4 full.
  std::vector<Slot> slots_;
  std::uint64_t arena_used_ = 0;                // positions handed out
  std::vector<std::unique_ptr<char[]>> arena_;  // owns the chunks (a big text spans several)
};

}  // namespace frota::model
