#include "frota/engine/epoch.h"

#include <gtest/gtest.h>

namespace frota::engine {
namespace {

TEST(EpochPolicy, CutsAfterEnoughRecordsOrEnoughTimeWhateverComesFirst) {
  auto now = std::chrono::steady_clock::time_point();
  EpochPolicy policy(1000, std::chrono::milliseconds(2000), [&] { return now; });
  policy.Count(999);
  EXPECT_FALSE(policy.Due());
  policy.Count(1);
  EXPECT_TRUE(policy.Due());
  policy.Reset();
  policy.Count(1);
  now += std::chrono::milliseconds(1999);
  EXPECT_FALSE(policy.Due());
  now += std::chrono::milliseconds(1);
  EXPECT_TRUE(policy.Due());
}

TEST(EpochPolicy, AnEmptyEpochIsNeverDue) {
  auto now = std::chrono::steady_clock::time_point();
  EpochPolicy policy(10, std::chrono::milliseconds(1), [&] { return now; });
  now += std::chrono::hours(1);
  EXPECT_FALSE(policy.Due());
}

}  // namespace
}  // namespace frota::engine
