#include "frota/base/time_zone.h"

#include <gtest/gtest.h>

namespace frota::base {
namespace {

using std::chrono::hours;
using std::chrono::local_time;
using std::chrono::minutes;

local_time<Micros> Local(std::string_view iso) {
  // Parse as if UTC, then reinterpret the civil fields as local time.
  return local_time<Micros>(ParseIso8601(iso)->time_since_epoch());
}

TEST(TimeZone, SaoPauloIsThreeHoursBehindUtcSince2019) {
  const auto zone = TimeZone::Load("America/Sao_Paulo");
  ASSERT_TRUE(zone.ok()) << zone.error().message();
  EXPECT_EQ(zone->OffsetAt(*ParseIso8601("2022-06-30T06:34:51Z")), -hours(3));
  EXPECT_EQ(zone->OffsetAt(*ParseIso8601("2024-01-13T12:00:00Z")), -hours(3));
  const auto hour = zone->ToLocalHour(*ParseIso8601("2022-06-30T02:59:59Z"));
  EXPECT_EQ(FormatDate(hour.date), "2022-06-29");
  EXPECT_EQ(hour.hour, 23);
}

TEST(TimeZone, SaoPauloHadSummerTimeUntilFebruary2019) {
  const auto zone = TimeZone::Load("America/Sao_Paulo");
  ASSERT_TRUE(zone.ok());
  // Summer time 2018/19: from 2018-11-04 00:00 local to 2019-02-17 00:00 local.
  EXPECT_EQ(zone->OffsetAt(*ParseIso8601("2019-01-15T12:00:00Z")), -hours(2));
  EXPECT_EQ(zone->OffsetAt(*ParseIso8601("2018-07-15T12:00:00Z")), -hours(3));
  EXPECT_EQ(zone->FromLocal(Local("2019-01-15 10:00:00")), ParseIso8601("2019-01-15T12:00:00Z"));
}

TEST(TimeZone, LocalTimeInTheSpringGapKeepsTheOldOffset) {
  const auto zone = TimeZone::Load("America/Sao_Paulo");
  ASSERT_TRUE(zone.ok());
  // 2018-11-04 00:30 never happened in Sao Paulo (clocks went 00:00 -> 01:00).
  EXPECT_EQ(zone->FromLocal(Local("2018-11-04 00:30:00")), ParseIso8601("2018-11-04T03:30:00Z"));
}

TEST(TimeZone, AmbiguousLocalTimeInTheAutumnOverlapTakesTheEarlierInstant) {
  const auto zone = TimeZone::Load("America/Sao_Paulo");
  ASSERT_TRUE(zone.ok());
  // 2019-02-16 23:30 happened twice (clocks went 00:00 -> 23:00).
  EXPECT_EQ(zone->FromLocal(Local("2019-02-16 23:30:00")), ParseIso8601("2019-02-17T01:30:00Z"));
  EXPECT_EQ(zone->FromLocal(Local("2019-02-16 22:30:00")), ParseIso8601("2019-02-17T00:30:00Z"));
}

TEST(TimeZone, AnHourRepeatedByTheOverlapEndsAtItsSecondEnding) {
  const auto zone = TimeZone::Load("America/Sao_Paulo");
  ASSERT_TRUE(zone.ok());
  const LocalHour repeated{*ParseDate("2019-02-16"), 23};
  EXPECT_EQ(zone->EndOfLocalHour(repeated), ParseIso8601("2019-02-17T03:00:00Z"));
  const LocalHour ordinary{*ParseDate("2022-06-30"), 6};
  EXPECT_EQ(zone->EndOfLocalHour(ordinary), ParseIso8601("2022-06-30T10:00:00Z"));
}

TEST(TimeZone, HourSpansAgreeWithToLocalHourAcrossTransitions) {
  const auto zone = TimeZone::Load("America/Sao_Paulo");
  ASSERT_TRUE(zone.ok());
  // Every 7 minutes across the 2018 spring-forward and 2019 fall-back.
  for (const auto* start : {"2018-11-03T20:00:00Z", "2019-02-16T20:00:00Z"}) {
    for (int i = 0; i < 120; ++i) {
      const auto t = *ParseIso8601(start) + std::chrono::minutes(7 * i);
      const auto span = zone->LocalHourSpan(t);
      EXPECT_EQ(span.hour, zone->ToLocalHour(t));
      EXPECT_LE(span.from, t);
      EXPECT_GT(span.until, t);
      EXPECT_EQ(zone->ToLocalHour(span.from), span.hour);
      EXPECT_EQ(zone->ToLocalHour(span.until - Micros(1)), span.hour);
    }
  }
}

TEST(TimeZone, UnknownZoneIsAClearError) {
  const auto zone = TimeZone::Load("Mars/Olympus_Mons");
  ASSERT_FALSE(zone.ok());
  EXPECT_NE(zone.error().message().find("Mars/Olympus_Mons"), std::string::npos);
}

}  // namespace
}  // namespace frota::base
