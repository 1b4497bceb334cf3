#include "frota/base/bytes.h"

#include <gtest/gtest.h>

#include <string>

#include "frota/base/hash.h"

namespace frota::base {
namespace {

TEST(ByteWriter, WritesIntoAGivenBufferAndKeepsItsCapacity) {
  std::string buffer(1000, 'x');
  const char* storage = buffer.data();
  ByteWriter w(std::move(buffer));
  EXPECT_EQ(w.size(), 0U);  // emptied first
  w.U8(7);
  w.String("abc");
  const std::string out = w.Take();
  EXPECT_EQ(out, std::string("\x07\x03"
                             "abc",
                             5));
  EXPECT_EQ(out.data(), storage);  // the same allocation: nothing allocated per message
}

TEST(Bytes, RoundTripsEveryEncoding) {
  ByteWriter w;
  w.U8(7);
  w.Bool(true);
  w.U32(0xdeadbeef);
  w.I64(-5);
  w.F64(-22.993042);
  w.Varint(300);
  w.SignedVarint(-123456789);
  w.String("B0013AAF0AIDU01");
  ByteReader r(w.bytes());
  EXPECT_EQ(*r.U8(), 7);
  EXPECT_TRUE(*r.Bool());
  EXPECT_EQ(*r.U32(), 0xdeadbeef);
  EXPECT_EQ(*r.I64(), -5);
  EXPECT_EQ(*r.F64(), -22.993042);
  EXPECT_EQ(*r.Varint(), 300U);
  EXPECT_EQ(*r.SignedVarint(), -123456789);
  EXPECT_EQ(*r.String(), "B0013AAF0AIDU01");
  EXPECT_TRUE(r.AtEnd());
}

TEST(Bytes, TruncatedInputIsAnErrorNotACrash) {
  ByteWriter w;
  w.String("hello");
  const std::string bytes = w.bytes().substr(0, 3);
  ByteReader r(bytes);
  EXPECT_FALSE(r.String().ok());
  ByteReader empty("");
  EXPECT_FALSE(empty.U64().ok());
}

TEST(Hash, StableHashIsFixedForever) {
  // Partition assignment depends on these values: they must never change.
  EXPECT_EQ(StableHash(""), 0xefd01f60ba992926ULL);
  EXPECT_EQ(StableHash("rio-brt/86811"), 0x84d9d94d90cfe19fULL);
  EXPECT_NE(StableHash("rio-brt/86811"), StableHash("rio-brt/86812"));
  EXPECT_EQ(Crc32c("123456789"), 0xe3069283U);  // the standard CRC-32C check value
  EXPECT_NE(FastStableHash("86811"), FastStableHash("86812"));
}

TEST(Hash, FastStableHashIsFixedForever) {
  // Each key's shard is its FastStableHash-derived hash modulo the shards, and shard
  // states are restored in place on resume: a changed value would route a resumed key to
  // another shard's state. The values were computed by a separate implementation of the
  // algorithm (Python integers, masked to 64 bits), not by this code.
  EXPECT_EQ(FastStableHash(""), 0x4fba3d35c6d66511ULL);
  EXPECT_EQ(FastStableHash("rio-brt"), 0xa44d74f97946e9aaULL);  // under 8 bytes
  EXPECT_EQ(FastStableHash("86811"), 0xa4229e413dbe5077ULL);
  EXPECT_EQ(FastStableHash("B0013AAF0AIDU01"), 0x685cf29279bb96ebULL);  // 8 + 7 bytes
}

TEST(Hash, Crc32cHardwareAndTableAgreeOnEveryLengthAndAlignment) {
  EXPECT_EQ(internal::Crc32cPortable("123456789", 0), 0xe3069283U);
  EXPECT_EQ(internal::Crc32cHardware("123456789", 0), 0xe3069283U);
  std::string bytes(4096 + 16, '\0');
  std::uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (char& c : bytes) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>(x);
  }
  const std::string_view all(bytes);
  for (std::size_t offset = 0; offset < 8; ++offset) {
    for (std::size_t size : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4096}) {
      const auto part = all.substr(offset, size);
      ASSERT_EQ(internal::Crc32cHardware(part, 0), internal::Crc32cPortable(part, 0))
          << offset << " " << size;
      // Continuing from an earlier CRC, as a reader of pieces does.
      ASSERT_EQ(internal::Crc32cHardware(part, 0x12345678U),
                internal::Crc32cPortable(part, 0x12345678U));
    }
  }
  // In two pieces or at once: the same.
  EXPECT_EQ(Crc32c(all.substr(100), Crc32c(all.substr(0, 100))), Crc32c(all));
}

TEST(ByteWriter, WritesFixedWidthNumbersLittleEndian) {
  ByteWriter w;
  w.U32(0x04030201U);
  w.U64(0x0c0b0a0908070605ULL);
  EXPECT_EQ(w.bytes(), std::string("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c", 12));
  ByteReader r(w.bytes());
  EXPECT_EQ(*r.U32(), 0x04030201U);
  EXPECT_EQ(*r.U64(), 0x0c0b0a0908070605ULL);
}

TEST(SameText, AgreesWithEqualityOnEveryLengthAndEveryDifferingByte) {
  // Every length across the inline cases (0-3 bytes, 4-7, 8-16) and the memcmp one,
  // each text compared with itself, with a copy elsewhere, with a shorter prefix and
  // with a copy that differs in exactly one byte, wherever that byte is.
  for (std::size_t n = 0; n <= 40; ++n) {
    std::string a;
    for (std::size_t i = 0; i < n; ++i) {
      a.push_back(static_cast<char>('a' + (i * 7) % 26));
    }
    const std::string copy = a;
    EXPECT_TRUE(SameText(a, a)) << n;
    EXPECT_TRUE(SameText(a, copy)) << n;
    if (n > 0) {
      EXPECT_FALSE(SameText(a, std::string_view(a).substr(0, n - 1))) << n;
    }
    for (std::size_t at = 0; at < n; ++at) {
      std::string other = a;
      other[at] = static_cast<char>(other[at] ^ 0x20);
      EXPECT_FALSE(SameText(a, other)) << n << " differing at " << at;
      EXPECT_FALSE(SameText(other, a)) << n << " differing at " << at;
    }
  }
}

}  // namespace
}  // namespace frota::base
