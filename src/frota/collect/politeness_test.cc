#include "frota/collect/politeness.h"

#include <gtest/gtest.h>

namespace frota::collect {
namespace {

const base::Timestamp kNow = *base::ParseIso8601("2015-10-21T07:28:00Z");

TEST(RetryAfter, SecondsAndAllThreeHttpDateForms) {
  EXPECT_EQ(ParseRetryAfter("120", kNow), std::chrono::seconds(120));
  EXPECT_EQ(ParseRetryAfter(" 0 ", kNow), std::chrono::seconds(0));
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:30:00 GMT", kNow), std::chrono::seconds(120));
  EXPECT_EQ(ParseRetryAfter("Wednesday, 21-Oct-15 07:29:00 GMT", kNow), std::chrono::seconds(60));
  EXPECT_EQ(ParseRetryAfter("Wed Oct 21 07:28:30 2015", kNow), std::chrono::seconds(30));
  // A date in the past means: now (the caller still waits its minimum).
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:00:00 GMT", kNow), std::chrono::seconds(0));
  EXPECT_FALSE(ParseRetryAfter("", kNow));
  EXPECT_FALSE(ParseRetryAfter("-5", kNow));
  EXPECT_FALSE(ParseRetryAfter("soon", kNow));
  EXPECT_FALSE(ParseRetryAfter("Wed, 21 Oct 2015 07:30:00 CEST", kNow));
}

TEST(Backoff, GrowsExponentiallyWithJitterUpToTheCap) {
  Backoff backoff(std::chrono::seconds(1), std::chrono::seconds(10), 42);
  for (int round = 0; round < 100; ++round) {
    for (int attempt = 0; attempt < 6; ++attempt) {
      const auto full = std::min<std::chrono::milliseconds>(std::chrono::seconds(10),
                                                            std::chrono::seconds(1 << attempt));
      const auto d = backoff.Delay(attempt);
      EXPECT_GE(d, full / 2);
      EXPECT_LE(d, full);
    }
  }
}

TEST(DailyBudget, RefillsAtUtcMidnight) {
  DailyBudget budget(2);
  const auto t = *base::ParseIso8601("2024-06-06T23:59:00Z");
  EXPECT_TRUE(budget.TryTake(t));
  EXPECT_TRUE(budget.TryTake(t));
  EXPECT_FALSE(budget.TryTake(t));
  EXPECT_EQ(DailyBudget::NextRefill(t), *base::ParseIso8601("2024-06-07T00:00:00Z"));
  EXPECT_TRUE(budget.TryTake(*base::ParseIso8601("2024-06-07T00:00:00Z")));
}

}  // namespace
}  // namespace frota::collect
