// A vector of elements in fixed-size blocks, for big long-lived per-key tables.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace frota::base {

/// An append-only sequence indexed like a vector, stored in blocks of 2^kBlockBits
/// elements that never move. Compared with a std::vector grown by an eighth
/// (ReserveGrowing), it leaves at most one block unused instead of up to an eighth of the
/// table, and growing never copies the table (a million 160-byte vehicle states were
/// 160 MB copied, and held twice while copying). Indexing costs one more load, of a block
/// pointer that is nearly always cached.
template <typename T, unsigned kBlockBits = 12>
class BlockVector {
 public:
  static constexpr std::size_t kBlockSize = std::size_t{1} << kBlockBits;

  BlockVector() = default;
  BlockVector(BlockVector&& other) noexcept
      : blocks_(std::move(other.blocks_)), size_(std::exchange(other.size_, 0)) {}
  BlockVector& operator=(BlockVector&& other) noexcept {
    if (this != &other) {
      clear();
      blocks_ = std::move(other.blocks_);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  BlockVector(const BlockVector&) = delete;
  BlockVector& operator=(const BlockVector&) = delete;
  ~BlockVector() { clear(); }

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }

  T& operator[](std::size_t i) { return *At(i); }
  const T& operator[](std::size_t i) const { return *At(i); }

  /// Appends a value-initialised element and returns it.
  T& emplace_back() {
    if ((size_ >> kBlockBits) == blocks_.size()) {
      blocks_.push_back(std::unique_ptr<Slot[]>(new Slot[kBlockSize]));
    }
    T* at = new (At(size_)) T();
    ++size_;
    return *at;
  }

  void clear() {
    for (std::size_t i = size_; i > 0; --i) {
      (*this)[i - 1].~T();
    }
    size_ = 0;
    blocks_.clear();
  }

 private:
  // Raw storage: elements are constructed one at a time as they are appended, so a
  // block's untouched tail costs address space, not memory.
  struct alignas(T) Slot {
    unsigned char bytes[sizeof(T)];
  };
  static_assert(sizeof(Slot) == sizeof(T));

  [[nodiscard]] T* At(std::size_t i) const {
    return std::launder(
        reinterpret_cast<T*>(blocks_[i >> kBlockBits].get() + (i & (kBlockSize - 1))));
  }

  std::vector<std::unique_ptr<Slot[]>> blocks_;
  std::size_t size_ = 0;
};

}  // namespace frota::base
