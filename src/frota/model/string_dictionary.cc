#include "frota/model/string_dictionary.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "frota/base/bytes.h"
#include "frota/base/hash.h"

namespace frota::model {

std::uint64_t StringDictionary::TextHash(std::string_view text) {
  return base::FastStableHash(text);
}

StringDictionary::StringDictionary()
    // An array of pointers to blocks, so the size of a pointer is meant.
    // NOLINTNEXTLINE(bugprone-sizeof-expression)
    : blocks_(static_cast<Entry**>(std::calloc(kMaxBlocks, sizeof(Entry*)))),
      chunks_(static_cast<char**>(std::calloc(kMaxChunks, sizeof(char*)))),
      key_rank_(static_cast<std::uint32_t*>(std::calloc(kMaxBlocks, sizeof(std::uint32_t)))),
      slots_(1024, Slot{kEmpty, 0}) {
  if (blocks_ == nullptr || chunks_ == nullptr || key_rank_ == nullptr) {
    std::free(static_cast<void*>(blocks_));
    std::free(static_cast<void*>(chunks_));
    std::free(key_rank_);
    throw std::bad_alloc();
  }
  blocks_[0] = new Entry[std::size_t{1} << kBlockBits];
  blocks_[0][0] = Entry{0};
}

StringDictionary::~StringDictionary() {
  for (std::size_t b = 0; b < blocks_used_; ++b) {
    delete[] blocks_[b];
  }
  std::free(static_cast<void*>(blocks_));
  std::free(static_cast<void*>(chunks_));
  std::free(key_rank_);
}

std::uint32_t StringDictionary::Store(std::string_view text) {
  base::ByteWriter length;  // a varint of a few bytes: no allocation (small-string buffer)
  length.Varint(text.size());
  const std::uint64_t need = length.size() + text.size();
  std::uint64_t at = arena_used_;
  // The end of the chunks allocated so far.
  const std::uint64_t end = ((at + kChunkSize - 1) >> kChunkBits) << kChunkBits;
  if (arena_.empty() || at + need > end) {
    // A fresh run of chunks: the rest of the last one stays unused. A text longer than a
    // chunk gets several consecutive chunk numbers in one allocation, so it is contiguous.
    at = end;
    const std::uint64_t chunks = (need + kChunkSize - 1) >> kChunkBits;
    if (at + (chunks << kChunkBits) > (std::uint64_t{1} << 32)) {
      throw std::length_error("string dictionary is full: 4 GiB of distinct text");
    }
    arena_.push_back(std::unique_ptr<char[]>(new char[chunks << kChunkBits]));
    for (std::uint64_t c = 0; c < chunks; ++c) {
      chunks_[(at >> kChunkBits) + c] = arena_.back().get() + (c << kChunkBits);
    }
  }
  char* out = chunks_[at >> kChunkBits] + (at & (kChunkSize - 1));
  std::memcpy(out, length.bytes().data(), length.size());
  std::memcpy(out + length.size(), text.data(), text.size());
  arena_used_ = at + need;
  return static_cast<std::uint32_t>(at);
}

StringDictionary::Id StringDictionary::NextId(Kind kind) {
  Id& next = next_id_[static_cast<int>(kind)];
  if (next == 0 || (next & kBlockMask) == 0) {  // none yet, or its block is full
    if (blocks_used_ == kMaxBlocks) {
      throw std::length_error("string dictionary is full: 2^32 ids");
    }
    const std::uint32_t block = blocks_used_++;
    blocks_[block] = new Entry[std::size_t{1} << kBlockBits];
    if (kind == Kind::kKey) {
      key_rank_[block] = ++key_blocks_;
    }
    next = block << kBlockBits;
  }
  return next++;
}

StringDictionary::Id StringDictionary::Intern(std::string_view text, std::uint64_t hash,
                                              Kind kind) {
  if (text.empty()) {
    return kEmpty;
  }
  const std::uint8_t tag = TagOf(hash);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot slot = slots_[i];
    if (slot.id == kEmpty) {
      const std::uint32_t at = Store(text);
      const Id new_id = NextId(kind);
      blocks_[new_id >> kBlockBits][new_id & kBlockMask] = Entry{at};
      const std::size_t count = size_.load(std::memory_order_relaxed) + 1;
      size_.store(count, std::memory_order_release);
      slots_[i] = Slot{new_id, tag};
      if (count * 4 > slots_.size() * 3) {
        Grow();
      }
      return new_id;
    }
    if (slot.tag == tag && base::SameText(TextAt(EntryOf(slot.id).at), text)) {
      return slot.id;
    }
  }
}

void StringDictionary::Grow() {
  std::vector<Slot> slots(slots_.size() * 2, Slot{kEmpty, 0});
  const std::size_t mask = slots.size() - 1;
  for (const Slot slot : slots_) {
    if (slot.id == kEmpty) {
      continue;
    }
    // The slot has only the tag: the place comes from the text's hash, computed again
    // (each text is placed again at most about twice over all growths).
    std::size_t i = Hash(slot.id) & mask;
    while (slots[i].id != kEmpty) {
      i = (i + 1) & mask;
    }
    slots[i] = slot;
  }
  slots_ = std::move(slots);
}

}  // namespace frota::model
