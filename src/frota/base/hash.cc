#include "frota/base/hash.h"

#include <array>
#include <cstring>

namespace frota::base {

namespace {

constexpr std::array<std::uint32_t, 256> MakeCrc32cTable() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) {
      c = (c & 1U) != 0 ? 0x82f63b78U ^ (c >> 1U) : c >> 1U;
    }
    table[i] = c;
  }
  return table;
}

constexpr auto kCrc32cTable = MakeCrc32cTable();

}  // namespace

std::uint64_t FastStableHash(std::string_view text) {
  constexpr std::uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  std::uint64_t h = 0x243f6a8885a308d3ULL ^ (text.size() * kMul);
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, text.data() + i, 8);  // little-endian machines only (x86-64)
    h = (h ^ word) * kMul;
    h ^= h >> 29;
  }
  if (i < text.size()) {
    std::uint64_t word = 0;
    for (std::size_t j = 0; i + j < text.size(); ++j) {
      word |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(text[i + j])) << (8 * j);
    }
    h = (h ^ word) * kMul;
    h ^= h >> 29;
  }
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 31;
  return h;
}

namespace internal {

std::uint32_t Crc32cPortable(std::string_view bytes, std::uint32_t crc) {
  crc = ~crc;
  for (const char c : bytes) {
    crc = kCrc32cTable[(crc ^ static_cast<std::uint8_t>(c)) & 0xffU] ^ (crc >> 8U);
  }
  return ~crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// SSE 4.2's crc32 instruction computes CRC-32C (the Castagnoli polynomial) 8 bytes a step:
// checkpoints of a large fleet are tens of megabytes each epoch, and the table loop cost
// 9 % of a replay cutting many epochs (perf). Built for SSE 4.2 here only; Crc32c() calls it
// when the processor has it.
__attribute__((target("sse4.2"))) std::uint32_t Crc32cHardware(std::string_view bytes,
                                                               std::uint32_t crc) {
  std::uint64_t c = ~crc;
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, p, 8);
    c = __builtin_ia32_crc32di(c, word);
  }
  auto c32 = static_cast<std::uint32_t>(c);
  for (; n > 0; ++p, --n) {
    c32 = __builtin_ia32_crc32qi(c32, static_cast<unsigned char>(*p));
  }
  return ~c32;
}
bool HasCrc32cHardware() { return __builtin_cpu_supports("sse4.2") != 0; }
#else
std::uint32_t Crc32cHardware(std::string_view bytes, std::uint32_t crc) {
  return Crc32cPortable(bytes, crc);
}
bool HasCrc32cHardware() { return false; }
#endif

}  // namespace internal

std::uint32_t Crc32c(std::string_view bytes, std::uint32_t crc) {
  static const bool kHardware = internal::HasCrc32cHardware();
  return kHardware ? internal::Crc32cHardware(bytes, crc) : internal::Crc32cPortable(bytes, crc);
}

}  // namespace frota::base
