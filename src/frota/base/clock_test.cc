#include "frota/base/clock.h"

#include <gtest/gtest.h>

#include <thread>

namespace frota::base {
namespace {

TEST(ManualClock, WaitsJumpAheadAndNowAndSteadyMoveTogether) {
  const Timestamp start = FromUnixSeconds(1'700'000'000);
  ManualClock clock(start);
  const auto steady0 = clock.Steady();
  EXPECT_EQ(clock.Now(), start);
  clock.SleepFor(std::chrono::seconds(3));
  EXPECT_EQ(clock.Now(), start + std::chrono::seconds(3));
  EXPECT_EQ(clock.Steady() - steady0, std::chrono::seconds(3));
  StopSignal stop;
  EXPECT_TRUE(clock.WaitUntil(start + std::chrono::minutes(1), stop));
  EXPECT_EQ(clock.Now(), start + std::chrono::minutes(1));
  EXPECT_EQ(clock.Steady() - steady0, std::chrono::minutes(1));
}

TEST(ManualClock, NeverGoesBack) {
  const Timestamp start = FromUnixSeconds(100);
  ManualClock clock(start);
  clock.AdvanceTo(start + std::chrono::seconds(10));
  clock.AdvanceTo(start + std::chrono::seconds(5));
  EXPECT_EQ(clock.Now(), start + std::chrono::seconds(10));
  StopSignal stop;
  EXPECT_TRUE(clock.WaitUntil(start, stop));
  EXPECT_EQ(clock.Now(), start + std::chrono::seconds(10));
}

TEST(ManualClock, ARaisedStopEndsAWaitWithoutMovingTime) {
  ManualClock clock(FromUnixSeconds(100));
  StopSignal stop;
  stop.Raise();
  EXPECT_TRUE(stop.raised());
  EXPECT_FALSE(clock.WaitUntil(FromUnixSeconds(200), stop));
  EXPECT_EQ(clock.Now(), FromUnixSeconds(100));
}

TEST(SystemClock, NowIsTheSystemClockInMicroseconds) {
  const auto before = std::chrono::time_point_cast<Micros>(std::chrono::system_clock::now());
  const Timestamp now = SystemClock::Get().Now();
  const auto after = std::chrono::time_point_cast<Micros>(std::chrono::system_clock::now());
  EXPECT_LE(before, now);
  EXPECT_LE(now, after);
  const auto steady = SystemClock::Get().Steady();
  EXPECT_LE(steady, std::chrono::steady_clock::now());
}

TEST(SystemClock, APastDeadlineDoesNotWaitAndAStopEndsAnEndlessWait) {
  SystemClock& clock = SystemClock::Get();
  StopSignal stop;
  EXPECT_TRUE(clock.WaitUntil(clock.Now() - std::chrono::seconds(1), stop));
  // Raised from another thread while the wait is under way (or before it starts): the
  // wait returns false either way, long before its deadline.
  std::thread raiser([&] { stop.Raise(); });
  EXPECT_FALSE(clock.WaitUntil(clock.Now() + std::chrono::hours(1), stop));
  raiser.join();
  // A deadline of Timestamp::max() (until stopped) waits too: it does not overflow.
  StopSignal later;
  std::thread second([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the wait is under way
    later.Raise();
  });
  EXPECT_FALSE(clock.WaitUntil(Timestamp::max(), later));
  second.join();
  EXPECT_FALSE(clock.WaitUntil(clock.Now() - std::chrono::seconds(1), stop));
}

}  // namespace
}  // namespace frota::base
