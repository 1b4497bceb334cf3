#include "frota/base/hash.h"

#include <array>

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

std::uint32_t Crc32c(std::string_view bytes, std::uint32_t crc) {
  crc = ~crc;
  for (const char c : bytes) {
    crc = kCrc32cTable[(crc ^ static_cast<std::uint8_t>(c)) & 0xffU] ^ (crc >> 8U);
  }
  return ~crc;
}

}  // namespace frota::base
