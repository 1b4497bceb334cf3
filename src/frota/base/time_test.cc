#include "frota/base/time.h"

#include <gtest/gtest.h>

namespace frota::base {
namespace {

TEST(Iso8601, RoundTripsWholeAndFractionalSeconds) {
  const auto t = ParseIso8601("2022-06-30T06:34:51Z");
  ASSERT_TRUE(t);
  EXPECT_EQ(ToUnixMicros(*t), 1656570891'000000);
  EXPECT_EQ(FormatIso8601(*t), "2022-06-30T06:34:51Z");
  EXPECT_EQ(FormatIso8601(*t + Micros(250)), "2022-06-30T06:34:51.000250Z");
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
