// Stable hashes: the same bytes give the same value on every run, machine and build.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace frota::base {

/// 64-bit FNV-1a followed by a murmur-style finaliser. Stable by contract: partition
/// assignment and checkpoints depend on it, so it must never change.
constexpr std::uint64_t StableHashParts(std::initializer_list<std::string_view> parts);
constexpr std::uint64_t StableHash(std::string_view bytes) { return StableHashParts({bytes}); }

/// StableHash of the concatenation of `parts`, without building it.
constexpr std::uint64_t StableHashParts(std::initializer_list<std::string_view> parts) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const auto part : parts) {
    for (const char c : part) {
      h ^= static_cast<std::uint8_t>(c);
      h *= 0x100000001b3ULL;
    }
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

/// A faster stable hash for short strings (keys, ids): 8 bytes at a time with
/// multiply-xorshift mixing. Stable by contract like StableHash; the two differ.
std::uint64_t FastStableHash(std::string_view bytes);

/// CRC-32C (Castagnoli) of `bytes`, continuing from `crc` (checkpoint and payload checks).
std::uint32_t Crc32c(std::string_view bytes, std::uint32_t crc = 0);

namespace internal {
// Crc32c's two implementations, for tests: the table loop and SSE 4.2's instruction
// (the table loop where the processor or compiler has none).
std::uint32_t Crc32cPortable(std::string_view bytes, std::uint32_t crc);
std::uint32_t Crc32cHardware(std::string_view bytes, std::uint32_t crc);
bool HasCrc32cHardware();
}  // namespace internal

}  // namespace frota::base
