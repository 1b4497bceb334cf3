#include "frota/base/time.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace frota::base {
namespace {

TEST(Iso8601, RoundTripsWholeAndFractionalSeconds) {
  const auto t = ParseIso8601("2022-06-30T06:34:51Z");
  ASSERT_TRUE(t);
  EXPECT_EQ(ToUnixMicros(*t), 1656570891'000000);
  EXPECT_EQ(FormatIso8601(*t), "2022-06-30T06:34:51Z");
  EXPECT_EQ(FormatIso8601(*t + Micros(250)), "2022-06-30T06:34:51.000250Z");
}

TEST(Iso8601, FormatsAsFmtWouldOnEveryYear) {
  // The fast path writes digits in place; fmt's widths are the reference, and years
  // outside 0000-9999 take fmt's own path.
  const auto reference = [](Timestamp t) {
    const auto day = std::chrono::floor<std::chrono::days>(t);
    const std::chrono::year_month_day ymd(day);
    const std::int64_t micros = (t - day).count();
    const std::int64_t s = micros / 1'000'000;
    std::string out =
        fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}", static_cast<int>(ymd.year()),
                    static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), s / 3600,
                    (s / 60) % 60, s % 60);
    if (micros % 1'000'000 != 0) {
      out += fmt::format(".{:06d}", micros % 1'000'000);
    }
    return out + "Z";
  };
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<std::int64_t> micros(-5'000'000'000'000'000, 5'000'000'000'000'000);
  std::vector<std::int64_t> cases = {0,
                                     1,
                                     -1,
                                     999'999,
                                     1'000'000,
                                     1'717'600'000'000'000,
                                     1'717'600'000'123'456,
                                     -62'167'219'200'000'000,
                                     -62'167'219'200'000'001,
                                     253'402'300'799'999'999,
                                     253'402'300'800'000'000};
  for (int i = 0; i < 100'000; ++i) {
    const auto t = micros(rng);
    cases.push_back(t);
    cases.push_back(t / 1'000'000 * 1'000'000);
  }
  for (const auto us : cases) {
    const auto t = FromUnixMicros(us);
    ASSERT_EQ(FormatIso8601(t), reference(t)) << us;
  }
}

TEST(Iso8601, AppliesAnExplicitOffset) {
  EXPECT_EQ(ParseIso8601("2022-06-30 03:34:51-03:00"), ParseIso8601("2022-06-30T06:34:51Z"));
}

TEST(Iso8601, RejectsImpossibleDatesAndTrailingBytes) {
  EXPECT_FALSE(ParseIso8601("2022-02-30T00:00:00Z"));
  EXPECT_FALSE(ParseIso8601("2022-06-30T06:34:51Zjunk"));
  EXPECT_FALSE(ParseIso8601("2022-06-30"));
}

TEST(Dates, AcceptsBothGtfsForms) {
  EXPECT_EQ(ParseDate("20220716"), ParseDate("2022-07-16"));
  ASSERT_TRUE(ParseDate("20220716"));
  EXPECT_EQ(FormatDate(*ParseDate("20220716")), "2022-07-16");
  EXPECT_EQ(FormatGtfsDate(*ParseDate("2022-07-16")), "20220716");
  EXPECT_FALSE(ParseDate("2022-13-01"));
  EXPECT_FALSE(ParseDate("2022716"));
}

TEST(GtfsTime, AllowsHoursPastMidnight) {
  EXPECT_EQ(ParseGtfsTime("25:10:00"), 25 * 3600 + 600);
  EXPECT_EQ(ParseGtfsTime("7:00:00"), 7 * 3600);
  EXPECT_FALSE(ParseGtfsTime("07:60:00"));
  EXPECT_EQ(FormatGtfsTime(25 * 3600 + 600), "25:10:00");
}

}  // namespace
}  // namespace frota::base
