#include "frota/engine/checkpoint.h"

#include <gtest/gtest.h>

namespace frota::engine {
namespace {

TEST(Checkpoint, OpensWhatWasSealed) {
  const std::string sealed = SealCheckpoint("shard", 3, "payload bytes");
  const auto opened = OpenCheckpoint(sealed, "shard", 3);
  ASSERT_TRUE(opened.ok()) << opened.error().message();
  EXPECT_EQ(*opened, "payload bytes");
}

TEST(Checkpoint, ACheckpointFromAnotherVersionIsRefusedWithAClearMessage) {
  const std::string sealed = SealCheckpoint("shard", 2, "x");
  const auto opened = OpenCheckpoint(sealed, "shard", 3);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.error().message().find("format version 2"), std::string::npos);
  EXPECT_NE(opened.error().message().find("reads version 3"), std::string::npos);
}

TEST(Checkpoint, CorruptionAndTruncationAreDetected) {
  std::string sealed = SealCheckpoint("shard", 1, "0123456789");
  std::string flipped = sealed;
  flipped[flipped.size() - 3] ^= 0x01;
  EXPECT_NE(OpenCheckpoint(flipped, "shard", 1).error().message().find("checksum"),
            std::string::npos);
  EXPECT_NE(OpenCheckpoint(sealed.substr(0, sealed.size() - 1), "shard", 1)
                .error()
                .message()
                .find("truncated"),
            std::string::npos);
  EXPECT_FALSE(OpenCheckpoint("not a checkpoint", "shard", 1).ok());
  EXPECT_FALSE(OpenCheckpoint(sealed, "runner", 1).ok());
}

}  // namespace
}  // namespace frota::engine
