#include "frota/model/string_dictionary.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "frota/base/hash.h"
#include <stdexcept>


namespace frota::model {

namespace {
constexpr std::size_t kArenaChunk = 1 << 20;
}  // namespace

std::uint64_t StringDictionary::TextHash(std::string_view text) {
  return base::FastStableHash(text);
}

StringDictionary::StringDictionary()
    : blocks_(static_cast<Entry**>(std::calloc(kMaxBlocks, sizeof(Entry*)))), slots_(1024, 0) {
  if (blocks_ == nullptr) {
    throw std::bad_alloc();
  }
  blocks_[0] = new Entry[std::size_t{1} << kBlockBits];
  blocks_[0][0] = Entry{nullptr, 0, static_cast<std::uint32_t>(TextHash({}))};
}

StringDictionary::~StringDictionary() {
  for (std::size_t b = 0; b < kMaxBlocks && blocks_[b] != nullptr; ++b) {
    delete[] blocks_[b];
  }
  std::free(static_cast<void*>(blocks_));
}

const char* StringDictionary::Store(std::string_view text) {
  if (text.size() > arena_capacity_ - arena_used_) {
    const std::size_t chunk = std::max(kArenaChunk, text.size());
    arena_.push_back(std::make_unique<char[]>(chunk));
    arena_used_ = 0;
    arena_capacity_ = chunk;
  }
  char* at = arena_.back().get() + arena_used_;
  std::memcpy(at, text.data(), text.size());
  arena_used_ += text.size();
  return at;
}

StringDictionary::Id StringDictionary::Intern(std::string_view text, std::uint64_t hash) {
  if (text.empty()) {
    return kEmpty;
  }
  const auto hash_low = static_cast<std::uint32_t>(hash);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Id id = slots_[i];
    if (id == kEmpty) {
      const std::size_t next = size_.load(std::memory_order_relaxed);
      if (next >= (std::size_t{1} << 32) - 1) {
        throw std::length_error("string dictionary is full");
      }
      const auto new_id = static_cast<Id>(next);
      Entry*& block = blocks_[new_id >> kBlockBits];
      if (block == nullptr) {
        block = new Entry[std::size_t{1} << kBlockBits];
      }
      block[new_id & kBlockMask] =
          Entry{Store(text), static_cast<std::uint32_t>(text.size()), hash_low};
      size_.store(next + 1, std::memory_order_release);
      slots_[i] = new_id;
      if ((next + 1) * 4 > slots_.size() * 3) {
        Grow();
      }
      return new_id;
    }
    const Entry& entry = blocks_[id >> kBlockBits][id & kBlockMask];
    if (entry.hash_low == hash_low && std::string_view(entry.text, entry.size) == text) {
      return id;
    }
  }
}

void StringDictionary::Grow() {
  std::vector<Id> slots(slots_.size() * 2, kEmpty);
  const std::size_t mask = slots.size() - 1;
  const std::size_t count = size_.load(std::memory_order_relaxed);
  for (std::size_t id = 1; id < count; ++id) {
    std::size_t i = blocks_[id >> kBlockBits][id & kBlockMask].hash_low & mask;
    while (slots[i] != kEmpty) {
      i = (i + 1) & mask;
    }
    slots[i] = static_cast<Id>(id);
  }
  slots_ = std::move(slots);
}

}  // namespace frota::model
