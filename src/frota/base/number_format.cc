#include "frota/base/number_format.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace frota::base {

namespace {

constexpr std::array<std::uint64_t, 10> kPowersOf10 = {
    1, 10, 100, 1'000, 10'000, 100'000, 1'000'000, 10'000'000, 100'000'000, 1'000'000'000};

void AppendWithFmt(std::string& out, double value, int precision) {
  fmt::format_to(std::back_inserter(out), "{:.{}f}", value, precision);
}

}  // namespace

void AppendFixed(std::string& out, double value, int precision) {
  if (precision < 0 || precision >= static_cast<int>(kPowersOf10.size()) || !std::isfinite(value)) {
    AppendWithFmt(out, value, precision);
    return;
  }
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  const bool negative = (bits >> 63) != 0;
  const auto biased_exponent = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  // value = significand * 2^exponent, exactly.
  const std::uint64_t significand =
      biased_exponent == 0 ? fraction : fraction | (std::uint64_t{1} << 52);
  const int exponent = (biased_exponent == 0 ? 1 : biased_exponent) - 1075;
  if (exponent > 40) {  // |value| >= 2^93: beyond the 128-bit path
    AppendWithFmt(out, value, precision);
    return;
  }
  // scaled = value * 10^precision * 2^-exponent, below 2^53 * 10^9 < 2^83.
  __extension__ using U128 = unsigned __int128;  // GCC and Clang; __extension__: not ISO
  const U128 scaled =
      static_cast<U128>(significand) * kPowersOf10[static_cast<std::size_t>(precision)];
  U128 units = 0;  // round(value * 10^precision), half to even
  if (exponent >= 0) {
    units = scaled << exponent;
  } else if (-exponent < 100) {
    const int shift = -exponent;
    units = scaled >> shift;
    const U128 remainder = scaled & ((U128{1} << shift) - 1);
    const U128 half = U128{1} << (shift - 1);
    if (remainder > half || (remainder == half && (units & 1) != 0)) {
      ++units;
    }
  }  // else: |value| * 10^precision < 2^-16, which rounds to zero
  // Digits, least significant first, at least precision + 1 of them.
  std::array<char, 48> digits{};
  std::size_t count = 0;
  const auto min_digits = static_cast<std::size_t>(precision) + 1;
  while (units > UINT64_MAX) {  // 128-bit division only for huge values
    digits[count++] = static_cast<char>('0' + static_cast<int>(units % 10));
    units /= 10;
  }
  for (auto small = static_cast<std::uint64_t>(units); small != 0 || count < min_digits;
       small /= 10) {
    digits[count++] = static_cast<char>('0' + static_cast<int>(small % 10));
  }
  // The text, built in place and appended once.
  std::array<char, 50> text{};
  std::size_t size = 0;
  if (negative) {
    text[size++] = '-';
  }
  for (std::size_t i = count; i-- > 0;) {
    text[size++] = digits[i];
    if (i == static_cast<std::size_t>(precision) && precision > 0) {
      text[size++] = '.';
    }
  }
  out.append(text.data(), size);
}

}  // namespace frota::base
