#include "frota/gtfs/holidays.h"

#include <algorithm>
#include <array>
#include <chrono>

#include "frota/gtfs/csv_reader.h"

namespace frota::gtfs {

namespace {

using std::chrono::days;
using std::chrono::month;
using std::chrono::year;

base::LocalDate Date(int y, unsigned m, unsigned d) {
  return base::LocalDate(std::chrono::year_month_day(year(y), month(m), std::chrono::day(d)));
}

int YearOf(base::LocalDate date) {
  return static_cast<int>(std::chrono::year_month_day(date).year());
}

// Year of the law that made 20 November a national holiday (Lei 14.759/2023, in force
// from 22 December 2023): its first 20 November is 2024's.
constexpr int kConscienciaNegraFirstYear = 2024;

}  // namespace

base::LocalDate EasterSunday(int y) {
  // Meeus, "Astronomical Algorithms" (2nd ed.), chapter 8: valid for the whole
  // Gregorian calendar, no table.
  const int a = y % 19;
  const int b = y / 100;
  const int c = y % 100;
  const int d = b / 4;
  const int e = b % 4;
  const int f = (b + 8) / 25;
  const int g = (b - f + 1) / 3;
  const int h = (19 * a + b - d - g + 15) % 30;
  const int i = c / 4;
  const int k = c % 4;
  const int l = (32 + 2 * e + 2 * i - h - k) % 7;
  const int m = (a + 11 * h + 22 * l) / 451;
  const int month_number = (h + l - 7 * m + 114) / 31;
  const int day_number = (h + l - 7 * m + 114) % 31 + 1;
  return Date(y, static_cast<unsigned>(month_number), static_cast<unsigned>(day_number));
}

std::vector<Holiday> BrazilNationalHolidays(int y) {
  const base::LocalDate easter = EasterSunday(y);
  std::vector<Holiday> out = {
      {Date(y, 1, 1), "Confraternização Universal"},
      {easter - days(48), "Carnaval (segunda-feira)"},
      {easter - days(47), "Carnaval (terça-feira)"},
      {easter - days(2), "Sexta-feira da Paixão"},
      {Date(y, 4, 21), "Tiradentes"},
      {Date(y, 5, 1), "Dia do Trabalho"},
      {easter + days(60), "Corpus Christi"},
      {Date(y, 9, 7), "Independência do Brasil"},
      {Date(y, 10, 12), "Nossa Senhora Aparecida"},
      {Date(y, 11, 2), "Finados"},
      {Date(y, 11, 15), "Proclamação da República"},
      {Date(y, 12, 25), "Natal"},
  };
  if (y >= kConscienciaNegraFirstYear) {
    out.push_back({Date(y, 11, 20), "Dia Nacional de Zumbi e da Consciência Negra"});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Holiday& a, const Holiday& b) { return a.date < b.date; });
  return out;
}

bool IsBrazilianTimeZone(std::string_view zone) {
  // Every IANA zone of Brazil, and the old Brazil/* links.
  static constexpr std::array<std::string_view, 20> kZones = {
      "America/Araguaina",    "America/Bahia",      "America/Belem",    "America/Boa_Vista",
      "America/Campo_Grande", "America/Cuiaba",     "America/Eirunepe", "America/Fortaleza",
      "America/Maceio",       "America/Manaus",     "America/Noronha",  "America/Porto_Velho",
      "America/Recife",       "America/Rio_Branco", "America/Santarem", "America/Sao_Paulo",
      "Brazil/Acre",          "Brazil/DeNoronha",   "Brazil/East",      "Brazil/West",
  };
  return std::find(kZones.begin(), kZones.end(), zone) != kZones.end();
}

HolidayCalendar HolidayCalendar::Brazil() {
  HolidayCalendar calendar;
  calendar.national_brazil_ = true;
  return calendar;
}

HolidayCalendar HolidayCalendar::ForTimeZone(std::string_view zone) {
  return IsBrazilianTimeZone(zone) ? Brazil() : HolidayCalendar();
}

void HolidayCalendar::Add(base::LocalDate date, std::string name) {
  added_[date] = Holiday{date, std::move(name)};
}

base::Status HolidayCalendar::AddFile(const std::filesystem::path& path) {
  FROTA_ASSIGN_OR_RETURN(auto source, FileSource(path));
  FROTA_ASSIGN_OR_RETURN(auto csv, CsvReader::Open(std::move(source), path.string()));
  const auto date_column = csv.FindColumn("date");
  const auto name_column = csv.FindColumn("name");
  if (!date_column || !name_column) {
    return base::InvalidInput("{}: line 1: the header must name the columns date and name",
                              path.string());
  }
  while (true) {
    FROTA_ASSIGN_OR_RETURN(const bool more, csv.Next());
    if (!more) {
      break;
    }
    const auto date = base::ParseDate(csv.field(*date_column));
    if (!date) {
      return csv.ErrorAt("date", "not a date (YYYY-MM-DD or YYYYMMDD)");
    }
    Add(*date, std::string(csv.field(*name_column)));
  }
  return base::Status::Ok();
}

std::optional<Holiday> HolidayCalendar::Find(base::LocalDate date) const {
  if (const auto it = added_.find(date); it != added_.end()) {
    return it->second;
  }
  if (national_brazil_) {
    for (auto& holiday : BrazilNationalHolidays(YearOf(date))) {
      if (holiday.date == date) {
        return std::move(holiday);
      }
    }
  }
  return std::nullopt;
}

}  // namespace frota::gtfs
