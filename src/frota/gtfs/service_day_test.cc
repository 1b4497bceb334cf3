#include "frota/gtfs/service_day.h"

#include <gtest/gtest.h>

#include <fstream>

#include "frota/testing/shared_data.h"
#include "frota/testing/subprocess.h"

namespace frota::gtfs {
namespace {

base::LocalDate Day(std::string_view text) { return *base::ParseDate(text); }

// A small feed: route R runs weekdays on service WK (from frequencies) and weekends on
// WE (from stop_times); calendar_dates remove WK on 2022-07-20 (a Wednesday), add WE on
// that day instead, and add the extra service X on 2022-07-21.
class ServiceDayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& d = dir_.path();
    std::ofstream(d / "agency.txt") << "agency_id,agency_name,agency_url,agency_timezone\n"
                                       "A,Agency,http://a,America/Sao_Paulo\n";
    std::ofstream(d / "routes.txt") << "route_id,route_short_name,route_type\nR,10,3\n";
    std::ofstream(d / "stops.txt") << "stop_id,stop_name,stop_lat,stop_lon\n"
                                      "S1,One,-22.9,-43.3\nS2,Two,-22.91,-43.31\n";
    std::ofstream(d / "trips.txt") << "route_id,service_id,trip_id,direction_id\n"
                                      "R,WK,wk0,0\nR,WK,wk1,1\nR,WE,we0a,0\nR,WE,we0b,0\n"
                                      "R,WE,we0c,0\nR,X,x0,0\n";
    std::ofstream(d / "stop_times.txt")
        << "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
           "wk0,06:00:00,06:00:00,S1,1\nwk0,06:20:00,06:20:00,S2,2\n"
           "wk1,06:00:00,06:00:00,S2,1\nwk1,06:20:00,06:20:00,S1,2\n"
           "we0a,08:00:00,08:00:00,S1,1\nwe0a,08:30:00,08:30:00,S2,2\n"
           "we0b,08:40:00,08:40:00,S1,1\nwe0b,09:10:00,09:10:00,S2,2\n"
           "we0c,25:10:00,25:10:00,S1,1\nwe0c,25:40:00,25:40:00,S2,2\n"
           "x0,12:00:00,12:00:00,S1,1\nx0,12:30:00,12:30:00,S2,2\n";
    std::ofstream(d / "frequencies.txt") << "trip_id,start_time,end_time,headway_secs\n"
                                            "wk0,06:00:00,07:00:00,600\n"
                                            "wk0,07:00:00,09:00:00,300\n"
                                            "wk1,06:00:00,08:00:00,900\n";
    std::ofstream(d / "calendar.txt")
        << "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,"
           "end_date\nWK,1,1,1,1,1,0,0,20220701,20221231\nWE,0,0,0,0,0,1,1,20220701,20221231\n";
    std::ofstream(d / "calendar_dates.txt") << "service_id,date,exception_type\n"
                                               "WK,20220720,2\nWE,20220720,1\nX,20220721,1\n";
    auto feed = StaticFeed::Load(d);
    ASSERT_TRUE(feed.ok()) << feed.error().message();
    feed_.emplace(std::move(feed).value());
  }

  testing::TempDir dir_{"service_day_test"};
  std::optional<StaticFeed> feed_;
  HolidayCalendar brazil_ = HolidayCalendar::Brazil();
};

TEST_F(ServiceDayTest, DayTypesPutHolidaysBeforeTheDayOfTheWeek) {
  EXPECT_EQ(DayTypeOf(Day("2022-07-20"), brazil_), DayType::kWeekday);
  EXPECT_EQ(DayTypeOf(Day("2022-07-23"), brazil_), DayType::kSaturday);
  EXPECT_EQ(DayTypeOf(Day("2022-07-24"), brazil_), DayType::kSunday);
  EXPECT_EQ(DayTypeOf(Day("2022-09-07"), brazil_), DayType::kHoliday);  // a Wednesday
  EXPECT_EQ(DayTypeOf(Day("2022-09-07"), HolidayCalendar()), DayType::kWeekday);
  EXPECT_EQ(DayTypeName(DayType::kHoliday), "holiday");
}

TEST_F(ServiceDayTest, AnOrdinaryWeekdayRunsTheWeekdayFrequencies) {
  const auto plan = ServicePlan::For(*feed_, Day("2022-07-19"), DayType::kWeekday);
  EXPECT_EQ(plan.services(), (std::vector<std::string>{"WK"}));
  const RoutePlan* out = plan.Find("R", 0);
  ASSERT_NE(out, nullptr);
  // 06:00-07:00 every 10 min (6), 07:00-09:00 every 5 min (24).
  EXPECT_EQ(out->departures().size(), 30U);
  EXPECT_EQ(out->departures().front(), 6 * 3600);
  EXPECT_EQ(out->HeadwayAt(6 * 3600 + 120), 600.0);
  EXPECT_EQ(out->HeadwayAt(8 * 3600), 300.0);
  const RoutePlan* back = plan.Find("R", 1);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->departures().size(), 8U);
}

TEST_F(ServiceDayTest, CalendarDatesRemoveAndAddService) {
  // 2022-07-20: WK removed, WE added.
  const auto removed = ServicePlan::For(*feed_, Day("2022-07-20"), DayType::kWeekday);
  EXPECT_EQ(removed.services(), (std::vector<std::string>{"WE"}));
  EXPECT_EQ(removed.Find("R", 1), nullptr);
  const RoutePlan* weekend = removed.Find("R", 0);
  ASSERT_NE(weekend, nullptr);
  // From stop_times: first-stop departures 08:00, 08:40 and 25:10 (01:10 next morning).
  EXPECT_EQ(weekend->departures(),
            (std::vector<std::int32_t>{8 * 3600, 8 * 3600 + 2400, 25 * 3600 + 600}));
  EXPECT_EQ(weekend->HeadwayAt(8 * 3600 + 60), 2400.0);  // between 08:00 and 08:40
  EXPECT_EQ(weekend->HeadwayAt(7 * 3600), 2400.0);       // before the first: the first gap
  // 2022-07-21: the extra service X runs besides WK.
  const auto added = ServicePlan::For(*feed_, Day("2022-07-21"), DayType::kWeekday);
  EXPECT_EQ(added.services(), (std::vector<std::string>{"WK", "X"}));
  ASSERT_NE(added.Find("R", 0), nullptr);
  EXPECT_EQ(added.Find("R", 0)->departures().size(), 31U);
  // X's trip has no frequencies, WK's window does not hold 12:00: no window, so the gap
  // between the scheduled departures around it (the last at 08:55, then 12:00).
  EXPECT_EQ(added.Find("R", 0)->HeadwayAt(10 * 3600), 12 * 3600 - (8 * 3600 + 55 * 60));
}

TEST_F(ServiceDayTest, AHolidayTheFeedDoesNotMentionRunsTheSundayTimetable) {
  const auto holiday = ServicePlan::For(*feed_, Day("2022-09-07"), DayType::kHoliday);
  EXPECT_EQ(holiday.services(), (std::vector<std::string>{"WE"}));
  // Taken as a plain Wednesday it would run the weekday service.
  EXPECT_EQ(ServicesOn(*feed_, Day("2022-09-07"), DayType::kWeekday),
            (std::vector<std::string>{"WK"}));
  // A holiday the feed does mention is taken as the feed says.
  EXPECT_EQ(ServicesOn(*feed_, Day("2022-07-20"), DayType::kHoliday),
            (std::vector<std::string>{"WE"}));
}

TEST_F(ServiceDayTest, ParallelWindowsCombineTheirRates) {
  std::ofstream(dir_.path() / "frequencies.txt") << "trip_id,start_time,end_time,headway_secs\n"
                                                    "wk0,06:00:00,07:00:00,600\n"
                                                    "wk1,06:00:00,07:00:00,900\n";
  std::ofstream(dir_.path() / "trips.txt") << "route_id,service_id,trip_id,direction_id\n"
                                              "R,WK,wk0,0\nR,WK,wk1,0\n";
  auto feed = StaticFeed::Load(dir_.path());
  ASSERT_TRUE(feed.ok()) << feed.error().message();
  const auto plan = ServicePlan::For(*feed, Day("2022-07-19"), DayType::kWeekday);
  const RoutePlan* route = plan.Find("R", 0);
  ASSERT_NE(route, nullptr);
  EXPECT_DOUBLE_EQ(*route->HeadwayAt(6 * 3600 + 1), 360.0);  // 6/h + 4/h = 10/h
}

TEST_F(ServiceDayTest, ServiceDaysCountFromNoonMinusTwelveHours) {
  auto zone = base::TimeZone::Load("America/Sao_Paulo");
  ASSERT_TRUE(zone.ok());
  // Rio has kept UTC-3 since 2019: the service day starts at 03:00 UTC.
  EXPECT_EQ(base::FormatIso8601(ServiceDayStart(*zone, Day("2022-07-20"))), "2022-07-20T03:00:00Z");
  // On 2018-11-04 clocks jumped from 00:00 to 01:00 (UTC-2): noon minus 12 h is 23:00
  // of the day before in local time, i.e. 02:00 UTC.
  EXPECT_EQ(base::FormatIso8601(ServiceDayStart(*zone, Day("2018-11-04"))), "2018-11-04T02:00:00Z");
}

TEST(ServiceDayRealFeed, TheBrt2022CalendarPlansNothingBeforeJuly16NorOnHolidays) {
  FROTA_REQUIRE_SHARED(gtfs, "rio-brt-2022/gtfs");
  auto feed = StaticFeed::Load(gtfs);
  ASSERT_TRUE(feed.ok()) << feed.error().message();
  const auto brazil = HolidayCalendar::Brazil();
  const auto plan_on = [&](std::string_view date) {
    return ServicePlan::For(*feed, Day(date), DayTypeOf(Day(date), brazil));
  };
  // The GPS archive starts 2022-06-30, the calendar (weekdays only) on 2022-07-16.
  EXPECT_TRUE(plan_on("2022-07-01").services().empty());
  EXPECT_TRUE(plan_on("2022-07-23").services().empty());  // a Saturday
  const auto weekday = plan_on("2022-07-18");
  EXPECT_EQ(weekday.services(), (std::vector<std::string>{"U"}));
  const RoutePlan* route13 = weekday.Find("B0013AAF0A", 0);
  ASSERT_NE(route13, nullptr);
  EXPECT_EQ(route13->HeadwayAt(6 * 3600 + 600), 360.0);   // 06:00-08:00 every 6 min
  EXPECT_TRUE(plan_on("2022-09-07").services().empty());  // removed by calendar_dates
}

}  // namespace
}  // namespace frota::gtfs
