#include "frota/engine/watermark.h"

#include <gtest/gtest.h>

namespace frota::engine {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

Timestamp T(int s) { return base::FromUnixSeconds(1'656'570'000 + s); }
const PartitionId kA{0};
const PartitionId kB{1};

TEST(WatermarkTracker, TrailsTheSlowestActivePartitionBySixMinutes) {
  WatermarkTracker w(minutes(6), minutes(2));
  EXPECT_EQ(w.Current(), kWatermarkMin);
  w.Observe(kA, T(1000), T(1000));
  EXPECT_EQ(w.Current(), T(1000 - 360));
  w.Observe(kB, T(900), T(1000));
  // B is behind A but the watermark never moves back.
  EXPECT_EQ(w.Current(), T(1000 - 360));
  w.Observe(kA, T(1200), T(1100));
  EXPECT_EQ(w.Current(), T(1000 - 360));  // B (900) is the minimum: no change
  w.Observe(kB, T(1150), T(1100));
  EXPECT_EQ(w.Current(), T(1150 - 360));
}

TEST(WatermarkTracker, AnIdlePartitionStopsHoldingTheWatermarkBack) {
  WatermarkTracker w(minutes(6), minutes(2));
  w.Observe(kA, T(1000), T(1000));
  w.Observe(kB, T(100), T(1000));  // B lags in event time
  EXPECT_EQ(w.Current(), T(1000 - 360));
  w.Observe(kA, T(2000), T(1100));
  EXPECT_EQ(w.Current(), T(1000 - 360));  // B silent for 100 s: still active, still the min
  w.Observe(kA, T(2100), T(1121));        // B silent for 121 s of ingest time: idle
  EXPECT_EQ(w.Current(), T(2100 - 360));
}

TEST(WatermarkTracker, ARecordAtOrBeforeTheWatermarkIsLate) {
  WatermarkTracker w(minutes(6), minutes(2));
  w.Observe(kA, T(1000), T(1000));
  EXPECT_TRUE(w.IsLate(T(1000 - 360)));
  EXPECT_FALSE(w.IsLate(T(1000 - 359)));
}

TEST(WatermarkTracker, FinishReleasesEverything) {
  WatermarkTracker w(minutes(6), minutes(2));
  w.Observe(kA, T(1000), T(1000));
  w.Finish();
  EXPECT_EQ(w.Current(), kWatermarkMax);
  EXPECT_TRUE(w.IsLate(T(999999)));
}

TEST(WatermarkTracker, SnapshotRestoresTheSameProgress) {
  WatermarkTracker w(minutes(6), minutes(2));
  w.Observe(kA, T(1000), T(1000));
  w.Observe(kB, T(1300), T(1010));
  WatermarkTracker restored(minutes(6), minutes(2));
  ASSERT_TRUE(restored.Restore(w.Snapshot()).ok());
  EXPECT_EQ(restored.Current(), w.Current());
  w.Observe(kA, T(1500), T(1020));
  restored.Observe(kA, T(1500), T(1020));
  EXPECT_EQ(restored.Current(), w.Current());
  EXPECT_EQ(restored.Snapshot(), w.Snapshot());
}

TEST(WatermarkTracker, CorruptSnapshotIsAnError) {
  WatermarkTracker w(minutes(6), minutes(2));
  EXPECT_FALSE(w.Restore("garbage").ok());
  EXPECT_FALSE(w.Restore("").ok());
}

}  // namespace
}  // namespace frota::engine
