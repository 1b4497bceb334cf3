#include "frota/base/time.h"

#include <fmt/format.h>

#include <charconv>

namespace frota::base {

bool ReadDigits(std::string_view text, std::size_t pos, std::size_t width, int& out) {
  if (pos + width > text.size()) {
    return false;
  }
  int value = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') {
      return false;
    }
    value = value * 10 + (c - '0');
  }
  out = value;
  return true;
}

namespace {

using std::chrono::days;
using std::chrono::year_month_day;

std::optional<LocalDate> MakeDate(int y, int m, int d) {
  const year_month_day ymd{std::chrono::year(y), std::chrono::month(static_cast<unsigned>(m)),
                           std::chrono::day(static_cast<unsigned>(d))};
  if (!ymd.ok()) {
    return std::nullopt;
  }
  return LocalDate(ymd);
}

}  // namespace

void AppendIso8601(std::string& out, Timestamp t) {
  const auto day = std::chrono::floor<days>(t);
  const year_month_day ymd(day);
  const int year = static_cast<int>(ymd.year());
  const std::int64_t micros_of_day = (t - day).count();
  const std::int64_t seconds = micros_of_day / 1'000'000;
  const std::int64_t fraction = micros_of_day % 1'000'000;
  if (year < 0 || year > 9999) {  // fmt's widths and signs, beyond four digits
    fmt::format_to(std::back_inserter(out), "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}", year,
                   static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                   seconds / 3600, (seconds / 60) % 60, seconds % 60);
    if (fraction != 0) {
      fmt::format_to(std::back_inserter(out), ".{:06d}", fraction);
    }
    out += 'Z';
    return;
  }
  // Digits in place, without fmt's format parsing: rejection details write one of these
  // per duplicate, and duplicates are often most of a Rio archive.
  char text[32] = "YYYY-MM-DDTHH:MM:SS";
  const auto put = [&text](std::size_t at, std::int64_t value, int digits) {
    for (int i = digits - 1; i >= 0; --i) {
      text[at + static_cast<std::size_t>(i)] = static_cast<char>('0' + value % 10);
      value /= 10;
    }
  };
  put(0, year, 4);
  put(5, static_cast<unsigned>(ymd.month()), 2);
  put(8, static_cast<unsigned>(ymd.day()), 2);
  put(11, seconds / 3600, 2);
  put(14, (seconds / 60) % 60, 2);
  put(17, seconds % 60, 2);
  std::size_t size = 19;
  if (fraction != 0) {
    text[size++] = '.';
    put(size, fraction, 6);
    size += 6;
  }
  text[size++] = 'Z';
  out.append(text, size);
}

std::string FormatIso8601(Timestamp t) {
  std::string out;
  AppendIso8601(out, t);
  return out;
}

std::optional<Timestamp> ParseIso8601(std::string_view text) {
  int y = 0;
  int mo = 0;
  int d = 0;
  int h = 0;
  int mi = 0;
  int s = 0;
  if (!ReadDigits(text, 0, 4, y) || text.size() < 19 || text[4] != '-' ||
      !ReadDigits(text, 5, 2, mo) || text[7] != '-' || !ReadDigits(text, 8, 2, d) ||
      (text[10] != 'T' && text[10] != ' ') || !ReadDigits(text, 11, 2, h) || text[13] != ':' ||
      !ReadDigits(text, 14, 2, mi) || text[16] != ':' || !ReadDigits(text, 17, 2, s)) {
    return std::nullopt;
  }
  const auto date = MakeDate(y, mo, d);
  if (!date || h > 23 || mi > 59 || s > 60) {
    return std::nullopt;
  }
  std::size_t pos = 19;
  std::int64_t micros = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 6) {
        micros = micros * 10 + (text[pos] - '0');
      }
      ++digits;
      ++pos;
    }
    if (digits == 0) {
      return std::nullopt;
    }
    for (int i = digits; i < 6; ++i) {
      micros *= 10;
    }
  }
  std::int64_t offset_seconds = 0;
  if (pos < text.size()) {
    if (text[pos] == 'Z' && pos + 1 == text.size()) {
      ++pos;
    } else if (text[pos] == '+' || text[pos] == '-') {
      int oh = 0;
      int om = 0;
      const int sign = text[pos] == '-' ? -1 : 1;
      if (!ReadDigits(text, pos + 1, 2, oh)) {
        return std::nullopt;
      }
      std::size_t mpos = pos + 3;
      if (mpos < text.size() && text[mpos] == ':') {
        ++mpos;
      }
      if (!ReadDigits(text, mpos, 2, om) || mpos + 2 != text.size()) {
        return std::nullopt;
      }
      offset_seconds = sign * (oh * 3600 + om * 60);
      pos = text.size();
    } else {
      return std::nullopt;
    }
  }
  if (pos != text.size()) {
    return std::nullopt;
  }
  const auto local_seconds = std::chrono::sys_days(date->time_since_epoch()) +
                             std::chrono::seconds(h * 3600 + mi * 60 + s - offset_seconds);
  return Timestamp(std::chrono::duration_cast<Micros>(local_seconds.time_since_epoch()) +
                   Micros(micros));
}

std::string FormatDate(LocalDate date) {
  const year_month_day ymd(date);
  return fmt::format("{:04d}-{:02d}-{:02d}", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
}

std::string FormatGtfsDate(LocalDate date) {
  const year_month_day ymd(date);
  return fmt::format("{:04d}{:02d}{:02d}", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
}

std::optional<LocalDate> ParseDate(std::string_view text) {
  int y = 0;
  int m = 0;
  int d = 0;
  if (text.size() == 8) {
    if (!ReadDigits(text, 0, 4, y) || !ReadDigits(text, 4, 2, m) || !ReadDigits(text, 6, 2, d)) {
      return std::nullopt;
    }
  } else if (text.size() == 10 && text[4] == '-' && text[7] == '-') {
    if (!ReadDigits(text, 0, 4, y) || !ReadDigits(text, 5, 2, m) || !ReadDigits(text, 8, 2, d)) {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  return MakeDate(y, m, d);
}

std::optional<std::int32_t> ParseGtfsTime(std::string_view text) {
  const auto first_colon = text.find(':');
  if (first_colon == std::string_view::npos || first_colon == 0 || first_colon > 3 ||
      text.size() != first_colon + 6 || text[first_colon + 3] != ':') {
    return std::nullopt;
  }
  int h = 0;
  int m = 0;
  int s = 0;
  if (!ReadDigits(text, 0, first_colon, h) || !ReadDigits(text, first_colon + 1, 2, m) ||
      !ReadDigits(text, first_colon + 4, 2, s) || m > 59 || s > 59) {
    return std::nullopt;
  }
  return h * 3600 + m * 60 + s;
}

std::string FormatGtfsTime(std::int32_t seconds) {
  return fmt::format("{:02d}:{:02d}:{:02d}", seconds / 3600, (seconds / 60) % 60, seconds % 60);
}

}  // namespace frota::base
