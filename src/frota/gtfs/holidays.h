// Public holidays that change a feed's day type: Brazil's national ones computed for any year, more
// from a file.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"

namespace frota::gtfs {

/// One holiday: a local date and its name.
struct Holiday {
  base::LocalDate date;
  std::string name;
};

/// Easter Sunday of `year` in the Gregorian calendar (the anonymous algorithm published
/// by Meeus, "Astronomical Algorithms", ch. 8), for years 1583 and later.
base::LocalDate EasterSunday(int year);

/// Brazil's national holidays of `year`, in date order:
///   fixed (Lei 662/1949 as amended, Lei 6.802/1980, Lei 10.607/2002): Jan 1, Apr 21,
///   May 1, Sep 7, Oct 12, Nov 2, Nov 15, Dec 25; Nov 20 from 2024 on (Lei 14.759 of
///   21 Dec 2023, in force on publication, so first observed on 20 Nov 2024);
///   Easter-based: Carnival Monday and Tuesday (Easter - 48 and - 47 days), Good Friday
///   (Easter - 2), Corpus Christi (Easter + 60).
/// Carnival and Corpus Christi are federal "pontos facultativos", not holidays by law,
/// but transit runs its holiday timetable on them (Rio's BRT does), so they count here;
/// Ash Wednesday (a half day) does not.
std::vector<Holiday> BrazilNationalHolidays(int year);

/// Whether an IANA zone is one of Brazil's (America/Sao_Paulo, America/Manaus, ...):
/// how a feed's country is told from its GTFS agency_timezone.
bool IsBrazilianTimeZone(std::string_view zone);

/// The holidays a feed observes: built-in national ones plus those of a file.
///
/// Lifecycle: build, AddFile() as needed, then query; const members are safe to call
/// from any number of threads.
class HolidayCalendar {
 public:
  /// No built-in holidays (a feed outside Brazil, until its country is built in).
  HolidayCalendar() = default;
  /// Brazil's national holidays, computed for every year asked about.
  static HolidayCalendar Brazil();
  /// Brazil's when `zone` is Brazilian, else none.
  static HolidayCalendar ForTimeZone(std::string_view zone);

  /// Adds the holidays of a CSV file with a header and the columns `date,name` (date
  /// YYYY-MM-DD or YYYYMMDD; more columns are ignored). Errors name the file and line.
  base::Status AddFile(const std::filesystem::path& path);
  /// Adds one holiday (a file's, a test's).
  void Add(base::LocalDate date, std::string name);

  /// The holiday on `date` (a file's wins over a built-in one), or nullopt.
  [[nodiscard]] std::optional<Holiday> Find(base::LocalDate date) const;
  [[nodiscard]] bool IsHoliday(base::LocalDate date) const { return Find(date).has_value(); }

 private:
  bool national_brazil_ = false;
  std::map<base::LocalDate, Holiday> added_;
  // Built-in holidays are computed for the asked date's year on each query (a few
  // date additions), so the calendar covers every year without a table to run out.
};

}  // namespace frota::gtfs
