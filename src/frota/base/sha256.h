// SHA-256 (FIPS 180-4) of bytes in memory, as lower-case hex: the bronze envelope's
// `sha256`, comparable with `sha256sum` of the archived body.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace frota::base {

/// SHA-256 of `bytes`: the 32 bytes of the digest.
std::array<std::uint8_t, 32> Sha256(std::string_view bytes);
/// SHA-256 of `bytes` as 64 lower-case hex digits.
std::string Sha256Hex(std::string_view bytes);

}  // namespace frota::base
