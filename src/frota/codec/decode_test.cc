// The shared number readers of decode_internal.h.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "frota/codec/decode_internal.h"

namespace frota::codec::internal {
namespace {

// What ParseDecimal promises, written the slow, obvious way: std::from_chars over the
// trimmed text, one ',' read as '.', only finite numbers, nothing that begins like
// "inf", "nan" or '+'.
std::optional<double> ReferenceDecimal(std::string_view text) {
  constexpr std::string_view kFirstChars = "-.,0123456789";
  text = Trim(text);
  if (text.empty() || text.size() > 64 || kFirstChars.find(text.front()) == text.npos) {
    return std::nullopt;
  }
  std::string copy(text);
  const auto comma = copy.find(',');
  if (comma != std::string::npos) {
    if (copy.find('.') != std::string::npos || copy.find(',', comma + 1) != std::string::npos) {
      return std::nullopt;
    }
    copy[comma] = '.';
  }
  double value = 0;
  const auto [ptr, ec] = std::from_chars(copy.data(), copy.data() + copy.size(), value);
  if (ec != std::errc() || ptr != copy.data() + copy.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

void ExpectSameAsReference(const std::string& text) {
  const auto got = ParseDecimal(text);
  const auto want = ReferenceDecimal(text);
  ASSERT_EQ(got.has_value(), want.has_value()) << "'" << text << "'";
  if (got) {
    // Bit for bit: a coordinate rounded differently would move a position.
    std::uint64_t got_bits = 0;
    std::uint64_t want_bits = 0;
    std::memcpy(&got_bits, &*got, sizeof got_bits);
    std::memcpy(&want_bits, &*want, sizeof want_bits);
    EXPECT_EQ(got_bits, want_bits) << "'" << text << "': " << *got << " vs " << *want;
  }
}

TEST(ParseDecimal, ReadsWhatFeedsWrite) {
  EXPECT_EQ(ParseDecimal("-22.936254501342773"), -22.936254501342773);
  EXPECT_EQ(ParseDecimal(" -43,365989 "), -43.365989);
  EXPECT_EQ(ParseDecimal("51"), 51.0);
  EXPECT_EQ(ParseDecimal("0"), 0.0);
  EXPECT_EQ(ParseDecimal(".5"), 0.5);
  EXPECT_EQ(ParseDecimal("1e3"), 1000.0);
  EXPECT_EQ(ParseDecimal(""), std::nullopt);
  EXPECT_EQ(ParseDecimal("-"), std::nullopt);
  EXPECT_EQ(ParseDecimal("+1"), std::nullopt);
  EXPECT_EQ(ParseDecimal("inf"), std::nullopt);
  EXPECT_EQ(ParseDecimal("-nan"), std::nullopt);
  EXPECT_EQ(ParseDecimal("0x10"), std::nullopt);
  EXPECT_EQ(ParseDecimal("1.234,5"), std::nullopt);
  EXPECT_EQ(ParseDecimal("1,2,3"), std::nullopt);
  EXPECT_EQ(ParseDecimal("1e400"), std::nullopt);   // out of range
  EXPECT_EQ(ParseDecimal("1e-400"), std::nullopt);  // below the smallest subnormal
  EXPECT_EQ(ParseDecimal("12a"), std::nullopt);
}

TEST(ParseDecimal, EdgeCasesMatchFromChars) {
  const std::vector<std::string> texts = {
      "0.0",
      "-0",
      "-0.0",
      "00012.50",
      "1.",
      "-.5",
      ".",
      ",",
      "-,",
      "1,",
      ",5",
      "9007199254740993",
      "9007199254740992.5",
      "123456789012345678901234567890",
      "0.000000000000000000000000000001",
      "4.9406564584124654e-324",
      "2.2250738585072011e-308",
      "2.2250738585072014e-308",
      "1.7976931348623157e308",
      "1.7976931348623159e308",
      "1e-320",
      "1e",
      "1e+",
      "1e-5",
      "1E5",
      "1.5e+3",
      "--1",
      "1-",
      " ",
      "\t7\t",
      "1 2",
      "1..2",
      std::string(64, '9'),
      std::string(65, '9'),
      "-22.9362545013427734375",
      "0.1000000000000000055511151231257827021181583404541015625"};
  for (const auto& text : texts) {
    ExpectSameAsReference(text);
  }
}

// Random texts shaped like coordinates, speeds and junk: every one gives the reference's
// answer, bit for bit.
TEST(ParseDecimal, RandomTextsMatchFromChars) {
  std::mt19937_64 random(20261201);
  const auto pick = [&](int n) { return static_cast<int>(random() % static_cast<unsigned>(n)); };
  const char junk[] = "+-.,eE xa";
  for (int i = 0; i < 200000; ++i) {
    std::string text;
    if (pick(4) == 0) {
      text += '-';
    }
    const int before = pick(6);
    for (int d = 0; d < before; ++d) {
      text += static_cast<char>('0' + pick(10));
    }
    if (pick(5) != 0) {
      text += pick(8) == 0 ? ',' : '.';
      const int after = pick(22);
      for (int d = 0; d < after; ++d) {
        text += static_cast<char>('0' + pick(10));
      }
    }
    if (pick(10) == 0) {
      text += pick(2) == 0 ? 'e' : 'E';
      if (pick(2) == 0) {
        text += '-';
      }
      text += std::to_string(pick(400));
    }
    if (pick(20) == 0) {
      text.insert(static_cast<std::size_t>(pick(static_cast<int>(text.size()) + 1)), 1,
                  junk[pick(static_cast<int>(sizeof junk) - 1)]);
    }
    ExpectSameAsReference(text);
    if (HasFatalFailure()) {
      return;
    }
  }
}

}  // namespace
}  // namespace frota::codec::internal
