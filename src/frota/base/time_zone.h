// Civil time in a feed's zone (America/Sao_Paulo for Rio), from the system's tz database.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"

namespace frota::base {

/// The local date and hour an instant falls in (what the jobs aggregate by).
struct LocalHour {
  LocalDate date;
  std::int8_t hour = 0;
  auto operator<=>(const LocalHour&) const = default;
};

/// A time zone's UTC offsets over history, precomputed into a table of transitions.
///
/// Loaded once from /usr/share/zoneinfo (Debian's tzdata) via Howard Hinnant's date
/// library; lookups are a binary search over transitions, so an instance is immutable
/// and safe to share between threads after Load().
class TimeZone {
 public:
  /// Loads `name` (an IANA zone such as "America/Sao_Paulo", or "UTC").
  static Result<TimeZone> Load(std::string_view name);
  /// UTC, for feeds that state no zone.
  static TimeZone Utc();

  [[nodiscard]] const std::string& name() const { return name_; }

  /// Offset of local time from UTC at instant `t` (e.g. -3 h in Rio since 2019).
  [[nodiscard]] std::chrono::seconds OffsetAt(Timestamp t) const;
  /// Local date and hour of `t`.
  [[nodiscard]] LocalHour ToLocalHour(Timestamp t) const;

  /// The local hour of `t` and the UTC interval [from, until) around `t` in which every
  /// instant has that same local hour: callers cache it and skip the lookup.
  struct HourSpan {
    LocalHour hour;
    Timestamp from;
    Timestamp until;
  };
  [[nodiscard]] HourSpan LocalHourSpan(Timestamp t) const;
  /// Local civil time of `t`, as microseconds since local 1970-01-01 00:00.
  [[nodiscard]] std::chrono::local_time<Micros> ToLocal(Timestamp t) const;

  /// The instant of a local civil time. In a DST gap (a local time that never
  /// happened) the offset before the gap applies, so 00:30 on a spring-forward
  /// midnight maps to 01:30 of the new offset; in an overlap the earlier instant wins.
  [[nodiscard]] Timestamp FromLocal(std::chrono::local_time<Micros> local) const;

  /// The instant at which local hour `hour` is over for good: when local time reaches
  /// the next hour for the last time (an hour repeated by a DST overlap ends at its
  /// second ending). Aggregates of the hour are final once the watermark reaches it.
  [[nodiscard]] Timestamp EndOfLocalHour(LocalHour hour) const;

 private:
  struct Transition {
    std::int64_t utc_seconds;     // first instant of this offset
    std::int32_t offset_seconds;  // local - UTC from then on
  };
  TimeZone() = default;
  [[nodiscard]] std::int32_t OffsetSecondsAt(std::int64_t utc_seconds) const;

  std::string name_;
  std::vector<Transition> transitions_;  // sorted by utc_seconds, first at -inf
};

}  // namespace frota::base
