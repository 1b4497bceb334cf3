// SHA-256 (FIPS 180-4) of bytes in memory, as lower-case hex: the bronze envelope's
// `sha256`, comparable with `sha256sum` of the archived body.
#pragma once

#include <string>
#include <string_view>

namespace frota::base {

/// SHA-256 of `bytes` as 64 lower-case hex digits.
std::string Sha256Hex(std::string_view bytes);

}  // namespace frota::base
