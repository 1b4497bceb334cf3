#include "frota/base/bytes.h"

#include <gtest/gtest.h>

#include "frota/base/hash.h"

namespace frota::base {
namespace {

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
  EXPECT_EQ(FastStableHash("rio-brt"), FastStableHash(std::string("rio-brt")));
  EXPECT_NE(FastStableHash("86811"), FastStableHash("86812"));
}

}  // namespace
}  // namespace frota::base
