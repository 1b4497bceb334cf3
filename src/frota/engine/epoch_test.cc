#include "frota/engine/epoch.h"

#include <gtest/gtest.h>

namespace frota::engine {
namespace {

TEST(EpochPolicy, CutsAfterEnoughRecordsOrEnoughTimeWhateverComesFirst) {
  base::ManualClock clock(base::FromUnixSeconds(0));
  EpochPolicy policy(1000, std::chrono::milliseconds(2000), clock);
  policy.Count(999);
  EXPECT_FALSE(policy.Due());
  policy.Count(1);
  EXPECT_TRUE(policy.Due());
  policy.Reset();
  policy.Count(1);
  clock.Advance(std::chrono::milliseconds(1999));
  EXPECT_FALSE(policy.Due());
  clock.Advance(std::chrono::milliseconds(1));
  EXPECT_TRUE(policy.Due());
}

TEST(EpochPolicy, AnEmptyEpochIsNeverDue) {
  base::ManualClock clock(base::FromUnixSeconds(0));
  EpochPolicy policy(10, std::chrono::milliseconds(1), clock);
  clock.Advance(std::chrono::hours(1));
  EXPECT_FALSE(policy.Due());
}

TEST(EpochPolicy, ALargeStateMakesEpochsLongerInProportion) {
  base::ManualClock clock(base::FromUnixSeconds(0));
  EpochPolicy policy(1000, std::chrono::milliseconds(2000), clock, 4);
  policy.SetStateUnits(100);  // floor 400: below the 1,000 records, no change
  EXPECT_EQ(policy.min_records(), 400);
  policy.Count(999);
  EXPECT_FALSE(policy.RecordsDue());
  policy.Count(1);
  EXPECT_TRUE(policy.RecordsDue());

  policy.Reset();
  policy.SetStateUnits(1000);  // floor 4,000
  policy.Count(1000);
  EXPECT_FALSE(policy.RecordsDue());
  clock.Advance(std::chrono::hours(1));
  EXPECT_FALSE(policy.Due()) << "the clock does not cut below the floor either";
  policy.Count(2999);
  EXPECT_FALSE(policy.Due());
  policy.Count(1);
  EXPECT_TRUE(policy.RecordsDue());
  EXPECT_TRUE(policy.Due());

  // Without a per-unit factor the state size changes nothing.
  EpochPolicy exact(1000, std::chrono::milliseconds(2000), clock);
  exact.SetStateUnits(1'000'000);
  exact.Count(1000);
  EXPECT_TRUE(exact.RecordsDue());
}

}  // namespace
}  // namespace frota::engine
