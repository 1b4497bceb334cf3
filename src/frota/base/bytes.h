// Little-endian byte writer and bounds-checked reader for checkpoints and payloads.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "frota/base/status.h"

namespace frota::base {

/// Appends fixed-width little-endian integers, varints, doubles and strings to a buffer.
class ByteWriter {
 public:
  ByteWriter() = default;
  /// Writes into `buffer`, emptied first: its capacity is reused (Take() gives it back),
  /// so a caller encoding one message after another allocates nothing per message.
  explicit ByteWriter(std::string&& buffer) : out_(std::move(buffer)) { out_.clear(); }

  void U8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void Bool(bool v) { U8(v ? 1 : 0); }
  void U32(std::uint32_t v) { Fixed(v); }
  void U64(std::uint64_t v) { Fixed(v); }
  void I64(std::int64_t v) { Fixed(static_cast<std::uint64_t>(v)); }
  void F64(double v) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    Fixed(bits);
  }
  void F32(float v) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    Fixed(bits);
  }
  /// Unsigned LEB128.
  void Varint(std::uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  /// Zig-zag signed varint.
  void SignedVarint(std::int64_t v) {
    Varint((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
  }
  void String(std::string_view s) {
    Varint(s.size());
    out_.append(s);
  }
  void Raw(std::string_view s) { out_.append(s); }
  void Reserve(std::size_t bytes) { out_.reserve(bytes); }

  [[nodiscard]] const std::string& bytes() const { return out_; }
  std::string Take() { return std::move(out_); }
  [[nodiscard]] std::size_t size() const { return out_.size(); }

 private:
  // Little-endian bytes: on a little-endian machine, the value's own (one append, not
  // one per byte: snapshots write millions of these).
  template <typename T>
  void Fixed(T v) {
    static_assert(std::is_unsigned_v<T>);
    if constexpr (std::endian::native == std::endian::little) {
      char bytes[sizeof(T)];
      std::memcpy(bytes, &v, sizeof(T));
      out_.append(bytes, sizeof(T));
    } else {
      for (std::size_t i = 0; i < sizeof(T); ++i) {
        out_.push_back(static_cast<char>((v >> (8 * i)) & 0xffU));
      }
    }
  }
  std::string out_;
};

/// Reads what ByteWriter wrote. Every read checks bounds: truncated or corrupt bytes
/// give an error, never a crash (checkpoints and Kafka payloads are outside bytes).
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}

  Result<std::uint8_t> U8() {
    if (pos_ >= bytes_.size()) {
      return Truncated();
    }
    return static_cast<std::uint8_t>(bytes_[pos_++]);
  }
  Result<bool> Bool() {
    FROTA_ASSIGN_OR_RETURN(const auto v, U8());
    if (v > 1) {
      return InvalidInput("bad boolean byte {} at offset {}", v, pos_ - 1);
    }
    return v == 1;
  }
  Result<std::uint32_t> U32() { return Fixed<std::uint32_t>(); }
  Result<std::uint64_t> U64() { return Fixed<std::uint64_t>(); }
  Result<std::int64_t> I64() {
    FROTA_ASSIGN_OR_RETURN(const auto v, Fixed<std::uint64_t>());
    return static_cast<std::int64_t>(v);
  }
  Result<double> F64() {
    FROTA_ASSIGN_OR_RETURN(const auto bits, Fixed<std::uint64_t>());
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  Result<float> F32() {
    FROTA_ASSIGN_OR_RETURN(const auto bits, Fixed<std::uint32_t>());
    float v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  Result<std::uint64_t> Varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= bytes_.size()) {
        return Truncated();
      }
      const auto byte = static_cast<std::uint8_t>(bytes_[pos_++]);
      v |= static_cast<std::uint64_t>(byte & 0x7fU) << shift;
      if ((byte & 0x80U) == 0) {
        return v;
      }
    }
    return InvalidInput("varint longer than 10 bytes at offset {}", pos_);
  }
  Result<std::int64_t> SignedVarint() {
    FROTA_ASSIGN_OR_RETURN(const auto v, Varint());
    return static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  Result<std::string_view> String() {
    FROTA_ASSIGN_OR_RETURN(const auto size, Varint());
    if (size > bytes_.size() - pos_) {
      return Truncated();
    }
    const auto out = bytes_.substr(pos_, size);
    pos_ += size;
    return out;
  }
  Result<std::string_view> Raw(std::size_t size) {
    if (size > bytes_.size() - pos_) {
      return Truncated();
    }
    const auto out = bytes_.substr(pos_, size);
    pos_ += size;
    return out;
  }

  [[nodiscard]] bool AtEnd() const { return pos_ == bytes_.size(); }
  [[nodiscard]] std::size_t position() const { return pos_; }
  [[nodiscard]] std::size_t remaining() const { return bytes_.size() - pos_; }

 private:
  template <typename T>
  Result<T> Fixed() {
    if (bytes_.size() - pos_ < sizeof(T)) {
      return Truncated();
    }
    T v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      v |= static_cast<T>(static_cast<std::uint8_t>(bytes_[pos_ + i])) << (8 * i);
    }
    pos_ += sizeof(T);
    return v;
  }
  [[nodiscard]] Error Truncated() const {
    return InvalidInput("truncated at byte {} of {}", pos_, bytes_.size());
  }

  std::string_view bytes_;
  std::size_t pos_ = 0;
};

/// a == b for texts, inline up to 32 bytes (vehicle, route and trip ids, dates, ISO
/// timestamps): a few overlapping loads from each side instead of a call to memcmp,
/// which in a replay's decoding thread cost more than the comparisons it made. Reads
/// only the bytes of the two texts.
[[nodiscard]] inline bool SameText(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  if (n != b.size()) {
    return false;
  }
  const char* p = a.data();
  const char* q = b.data();
  const auto load = [](const char* at, auto word) {
    std::memcpy(&word, at, sizeof word);
    return word;
  };
  const auto same8 = [&](std::size_t at) {
    return load(p + at, std::uint64_t{}) == load(q + at, std::uint64_t{});
  };
  if (n > 16) {
    if (n > 32) {
      return std::memcmp(p, q, n) == 0;
    }
    return same8(0) && same8(8) && same8(n - 16) && same8(n - 8);
  }
  if (n >= 8) {
    return same8(0) && same8(n - 8);
  }
  if (n >= 4) {
    return load(p, std::uint32_t{}) == load(q, std::uint32_t{}) &&
           load(p + n - 4, std::uint32_t{}) == load(q + n - 4, std::uint32_t{});
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] != q[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace frota::base
