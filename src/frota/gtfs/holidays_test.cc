#include "frota/gtfs/holidays.h"

#include <gtest/gtest.h>

#include <fstream>

#include "frota/testing/subprocess.h"

namespace frota::gtfs {
namespace {

base::LocalDate Day(std::string_view text) { return *base::ParseDate(text); }

std::string NameOn(const HolidayCalendar& calendar, std::string_view date) {
  const auto holiday = calendar.Find(Day(date));
  return holiday ? holiday->name : std::string("(none)");
}

// Published dates (the Brazilian federal calendars for 2022-2030), not computed here.
struct EasterYear {
  int year;
  const char* easter;
  const char* carnival_monday;
  const char* carnival_tuesday;
  const char* good_friday;
  const char* corpus_christi;
};
constexpr EasterYear kYears[] = {
    {2022, "2022-04-17", "2022-02-28", "2022-03-01", "2022-04-15", "2022-06-16"},
    {2023, "2023-04-09", "2023-02-20", "2023-02-21", "2023-04-07", "2023-06-08"},
    {2024, "2024-03-31", "2024-02-12", "2024-02-13", "2024-03-29", "2024-05-30"},
    {2025, "2025-04-20", "2025-03-03", "2025-03-04", "2025-04-18", "2025-06-19"},
    {2026, "2026-04-05", "2026-02-16", "2026-02-17", "2026-04-03", "2026-06-04"},
    {2027, "2027-03-28", "2027-02-08", "2027-02-09", "2027-03-26", "2027-05-27"},
    {2028, "2028-04-16", "2028-02-28", "2028-02-29", "2028-04-14", "2028-06-15"},
    {2029, "2029-04-01", "2029-02-12", "2029-02-13", "2029-03-30", "2029-05-31"},
    {2030, "2030-04-21", "2030-03-04", "2030-03-05", "2030-04-19", "2030-06-20"},
};

TEST(EasterSunday, MatchesThePublishedDatesOf2022To2030) {
  for (const auto& y : kYears) {
    EXPECT_EQ(EasterSunday(y.year), Day(y.easter)) << y.year;
  }
}

TEST(EasterSunday, HandlesTheEarliestAndLatestPossibleDates) {
  EXPECT_EQ(EasterSunday(2285), Day("2285-03-22"));  // the earliest possible date
  EXPECT_EQ(EasterSunday(2038), Day("2038-04-25"));  // the latest possible date
  EXPECT_EQ(EasterSunday(2000), Day("2000-04-23"));
}

TEST(BrazilHolidays, CarnivalGoodFridayAndCorpusChristiFallOnTheirDates) {
  const auto brazil = HolidayCalendar::Brazil();
  for (const auto& y : kYears) {
    EXPECT_EQ(NameOn(brazil, y.carnival_monday), "Carnaval (segunda-feira)") << y.year;
    EXPECT_EQ(NameOn(brazil, y.carnival_tuesday), "Carnaval (terça-feira)") << y.year;
    EXPECT_EQ(NameOn(brazil, y.good_friday), "Sexta-feira da Paixão") << y.year;
    EXPECT_EQ(NameOn(brazil, y.corpus_christi), "Corpus Christi") << y.year;
    // Easter Sunday itself is not a holiday; in 2030 it falls on Tiradentes (21 April).
    const std::string easter_name = y.year == 2030 ? "Tiradentes" : "(none)";
    EXPECT_EQ(NameOn(brazil, y.easter), easter_name) << y.year;
  }
}

TEST(BrazilHolidays, CarnivalTuesdayCanBeTheLeapDay) {
  EXPECT_TRUE(HolidayCalendar::Brazil().IsHoliday(Day("2028-02-29")));
}

TEST(BrazilHolidays, FixedHolidaysRecurEveryYear) {
  const auto brazil = HolidayCalendar::Brazil();
  for (int year = 1990; year <= 2060; ++year) {
    for (const char* month_day :
         {"-01-01", "-04-21", "-05-01", "-09-07", "-10-12", "-11-02", "-11-15", "-12-25"}) {
      EXPECT_TRUE(brazil.IsHoliday(Day(std::to_string(year) + month_day))) << year << month_day;
    }
  }
}

TEST(BrazilHolidays, ConscienciaNegraIsNationalFrom2024On) {
  const auto brazil = HolidayCalendar::Brazil();
  EXPECT_FALSE(brazil.IsHoliday(Day("2022-11-20")));
  EXPECT_FALSE(brazil.IsHoliday(Day("2023-11-20")));
  EXPECT_EQ(NameOn(brazil, "2024-11-20"), "Dia Nacional de Zumbi e da Consciência Negra");
  EXPECT_TRUE(brazil.IsHoliday(Day("2030-11-20")));
}

TEST(BrazilHolidays, AshWednesdayAndOrdinaryDaysAreNotHolidays) {
  const auto brazil = HolidayCalendar::Brazil();
  EXPECT_FALSE(brazil.IsHoliday(Day("2022-03-02")));  // Ash Wednesday
  EXPECT_FALSE(brazil.IsHoliday(Day("2022-07-20")));
  EXPECT_EQ(BrazilNationalHolidays(2023).size(), 12U);
  EXPECT_EQ(BrazilNationalHolidays(2024).size(), 13U);
}

TEST(HolidayCalendar, KnowsBrazilByItsTimeZones) {
  EXPECT_TRUE(HolidayCalendar::ForTimeZone("America/Sao_Paulo").IsHoliday(Day("2022-09-07")));
  EXPECT_TRUE(HolidayCalendar::ForTimeZone("America/Manaus").IsHoliday(Day("2022-09-07")));
  EXPECT_FALSE(HolidayCalendar::ForTimeZone("America/Los_Angeles").IsHoliday(Day("2022-09-07")));
}

TEST(HolidayCalendar, AddsTheHolidaysOfAFileAndPrefersTheirNames) {
  testing::TempDir dir("holidays_test");
  const auto path = dir.path() / "rio.csv";
  std::ofstream(path) << "date,name\n2022-01-20,São Sebastião\n20220423,São Jorge\n"
                         "2022-09-07,Independência (municipal name)\n";
  auto calendar = HolidayCalendar::Brazil();
  ASSERT_TRUE(calendar.AddFile(path).ok());
  EXPECT_EQ(NameOn(calendar, "2022-01-20"), "São Sebastião");
  EXPECT_EQ(NameOn(calendar, "2022-04-23"), "São Jorge");
  EXPECT_EQ(NameOn(calendar, "2022-09-07"), "Independência (municipal name)");
  EXPECT_TRUE(calendar.IsHoliday(Day("2022-12-25")));
}

TEST(HolidayCalendar, ABadFileIsAnErrorNamingTheLine) {
  testing::TempDir dir("holidays_test_bad");
  const auto path = dir.path() / "bad.csv";
  std::ofstream(path) << "date,name\n2022-01-20,ok\n2022-02-30,impossible\n";
  HolidayCalendar calendar;
  const auto status = calendar.AddFile(path);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message().find("line 3"), std::string::npos) << status.error().message();

  std::ofstream(dir.path() / "no_name.csv") << "day\n2022-01-20\n";
  EXPECT_FALSE(calendar.AddFile(dir.path() / "no_name.csv").ok());
  EXPECT_FALSE(calendar.AddFile(dir.path() / "missing.csv").ok());
}

}  // namespace
}  // namespace frota::gtfs
