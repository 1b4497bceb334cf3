#include "frota/model/row_buffers.h"

#include <gtest/gtest.h>

#include <thread>

namespace frota::model {
namespace {

EpochRows RowsWithCapacity(std::size_t positions, std::size_t rejected) {
  EpochRows rows;
  rows.positions.resize(positions);
  rows.rejected.resize(rejected);
  rows.rejected.back().detail = "a detail long enough to live outside the string itself";
  return rows;
}

TEST(RowBuffers, GivesBackTheCapacityEmpty) {
  RowBuffers buffers;
  EpochRows rows = RowsWithCapacity(1000, 300);
  const PositionRecord* positions = rows.positions.data();
  buffers.Give(rows);
  EXPECT_TRUE(rows.positions.empty());
  EXPECT_TRUE(rows.rejected.empty());

  const auto reused = buffers.TakePositions();
  EXPECT_TRUE(reused.empty());
  EXPECT_GE(reused.capacity(), 1000U);
  EXPECT_EQ(reused.data(), positions);  // the same memory, not a copy
  const auto rejected = buffers.TakeRejected();
  EXPECT_TRUE(rejected.empty());
  EXPECT_GE(rejected.capacity(), 300U);
  // Nothing more to give.
  EXPECT_EQ(buffers.TakePositions().capacity(), 0U);
  EXPECT_EQ(buffers.TakeRejected().capacity(), 0U);
}

TEST(RowBuffers, KeepsAFewOfModerateSizeOnly) {
  RowBuffers buffers;
  for (std::size_t i = 0; i < RowBuffers::kMaxKept + 3; ++i) {
    EpochRows rows = RowsWithCapacity(10, 10);
    buffers.Give(rows);
    EXPECT_TRUE(rows.positions.empty());  // emptied whether kept or not
  }
  EpochRows burst = RowsWithCapacity(RowBuffers::kMaxCapacity + 1, 1);
  buffers.Give(burst);
  EXPECT_EQ(burst.positions.capacity(), 0U);  // freed, not kept

  std::size_t kept = 0;
  while (buffers.TakePositions().capacity() > 0) {
    ++kept;
  }
  EXPECT_EQ(kept, RowBuffers::kMaxKept);
}

// A runner's commit thread gives while the pipeline's thread takes (the TSan build of the
// tests checks the locking).
TEST(RowBuffers, OneThreadGivesWhileAnotherTakes) {
  RowBuffers buffers;
  constexpr int kRounds = 2000;
  std::thread giver([&] {
    for (int i = 0; i < kRounds; ++i) {
      EpochRows rows = RowsWithCapacity(64, 64);
      buffers.Give(rows);
    }
  });
  for (int i = 0; i < kRounds; ++i) {
    auto positions = buffers.TakePositions();
    positions.resize(8);  // filled by this thread
    auto rejected = buffers.TakeRejected();
    rejected.resize(8);
  }
  giver.join();
  std::size_t left = 0;
  while (buffers.TakePositions().capacity() > 0) {
    ++left;
  }
  EXPECT_LE(left, RowBuffers::kMaxKept);
}

}  // namespace
}  // namespace frota::model
