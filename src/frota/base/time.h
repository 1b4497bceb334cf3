// Typed times: UTC timestamps in microseconds, local civil dates, and their text forms.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace frota::base {

using Micros = std::chrono::microseconds;
/// An instant in UTC with microsecond resolution (event_time, ingest_time, ...).
using Timestamp = std::chrono::sys_time<Micros>;

/// A calendar date without a zone, as days since 1970-01-01 (service dates, local dates).
using LocalDate = std::chrono::local_days;

constexpr Timestamp FromUnixMicros(std::int64_t micros) { return Timestamp(Micros(micros)); }
constexpr Timestamp FromUnixSeconds(std::int64_t seconds) {
  return Timestamp(Micros(seconds * 1'000'000));
}
constexpr Timestamp FromUnixMillis(std::int64_t millis) {
  return Timestamp(Micros(millis * 1'000));
}
constexpr std::int64_t ToUnixMicros(Timestamp t) { return t.time_since_epoch().count(); }

/// "2022-06-30T06:34:51Z", with ".123456" only when the instant has a fraction.
std::string FormatIso8601(Timestamp t);
/// FormatIso8601 appended to `out`.
void AppendIso8601(std::string& out, Timestamp t);
/// Parses "YYYY-MM-DDTHH:MM:SS[.ffffff][Z|±HH:MM]" (a space may replace 'T'); no zone = UTC.
std::optional<Timestamp> ParseIso8601(std::string_view text);

/// Reads exactly `width` ASCII digits at text[pos] into `out`; false (out untouched) if
/// the text is too short or any of them is not a digit.
bool ReadDigits(std::string_view text, std::size_t pos, std::size_t width, int& out);

/// "YYYY-MM-DD".
std::string FormatDate(LocalDate date);
/// Accepts "YYYYMMDD" and "YYYY-MM-DD"; rejects impossible dates such as 2022-02-30.
std::optional<LocalDate> ParseDate(std::string_view text);
/// "YYYYMMDD", the GTFS form.
std::string FormatGtfsDate(LocalDate date);

/// Days since 1970-01-01 (what the sinks store for a DATE).
constexpr std::int32_t DaysSinceEpoch(LocalDate date) {
  return static_cast<std::int32_t>(date.time_since_epoch().count());
}
constexpr LocalDate LocalDateFromDays(std::int32_t days) {
  return LocalDate(std::chrono::days(days));
}

/// Parses "H:MM:SS" or "HH:MM:SS" (GTFS times may pass 24:00:00) into seconds after midnight.
std::optional<std::int32_t> ParseGtfsTime(std::string_view text);
/// Formats seconds after midnight as "HH:MM:SS" (hours may exceed 23).
std::string FormatGtfsTime(std::int32_t seconds);

}  // namespace frota::base
