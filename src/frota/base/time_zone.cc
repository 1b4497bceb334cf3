#include "frota/base/time_zone.h"

#include <date/tz.h>

#include <algorithm>
#include <limits>

namespace frota::base {

namespace {
// The table covers 1900-2200; outside it the nearest transition's offset holds.
constexpr std::int64_t kTableStartSeconds = -2208988800;  // 1900-01-01
constexpr std::int64_t kTableEndSeconds = 7258118400;     // 2200-01-01
}  // namespace

TimeZone TimeZone::Utc() {
  TimeZone zone;
  zone.name_ = "UTC";
  zone.transitions_.push_back({std::numeric_limits<std::int64_t>::min(), 0});
  return zone;
}

Result<TimeZone> TimeZone::Load(std::string_view name) {
  if (name == "UTC" || name == "Etc/UTC") {
    return Utc();
  }
  const date::time_zone* zone = nullptr;
  try {
    zone = date::locate_zone(name);
  } catch (const std::exception& e) {
    return NotFound("unknown time zone '{}' ({}); is the tzdata package installed?", name,
                    e.what());
  }
  TimeZone out;
  out.name_ = std::string(name);
  auto at = date::sys_seconds(std::chrono::seconds(kTableStartSeconds));
  const auto end = date::sys_seconds(std::chrono::seconds(kTableEndSeconds));
  bool first = true;
  while (at < end) {
    const date::sys_info info = zone->get_info(at);
    const auto offset = static_cast<std::int32_t>(info.offset.count());
    if (first || out.transitions_.back().offset_seconds != offset) {
      out.transitions_.push_back(
          {first ? std::numeric_limits<std::int64_t>::min() : info.begin.time_since_epoch().count(),
           offset});
      first = false;
    }
    if (info.end <= at) {
      break;
    }
    at = info.end;
  }
  return out;
}

std::int32_t TimeZone::OffsetSecondsAt(std::int64_t utc_seconds) const {
  // Last transition whose start is <= utc_seconds.
  auto it = std::upper_bound(
      transitions_.begin(), transitions_.end(), utc_seconds,
      [](std::int64_t value, const Transition& t) { return value < t.utc_seconds; });
  return std::prev(it)->offset_seconds;
}

std::chrono::seconds TimeZone::OffsetAt(Timestamp t) const {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(t).time_since_epoch().count();
  return std::chrono::seconds(OffsetSecondsAt(seconds));
}

std::chrono::local_time<Micros> TimeZone::ToLocal(Timestamp t) const {
  return std::chrono::local_time<Micros>(t.time_since_epoch() + OffsetAt(t));
}

LocalHour TimeZone::ToLocalHour(Timestamp t) const {
  const auto local = ToLocal(t);
  const auto day = std::chrono::floor<std::chrono::days>(local);
  const auto hour = std::chrono::floor<std::chrono::hours>(local - day).count();
  return LocalHour{LocalDate(day.time_since_epoch()), static_cast<std::int8_t>(hour)};
}

TimeZone::HourSpan TimeZone::LocalHourSpan(Timestamp t) const {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(t).time_since_epoch().count();
  auto it = std::upper_bound(
      transitions_.begin(), transitions_.end(), seconds,
      [](std::int64_t value, const Transition& tr) { return value < tr.utc_seconds; });
  const auto offset = std::chrono::seconds(std::prev(it)->offset_seconds);
  const auto local = std::chrono::local_time<Micros>(t.time_since_epoch() + offset);
  const auto hour_start = std::chrono::floor<std::chrono::hours>(local);
  Timestamp from = t - (local - hour_start);
  Timestamp until = from + std::chrono::hours(1);
  // The offset may change inside the hour: clip to the offset's own period.
  if (std::prev(it)->utc_seconds != std::numeric_limits<std::int64_t>::min()) {
    from = std::max(from, FromUnixSeconds(std::prev(it)->utc_seconds));
  }
  if (it != transitions_.end()) {
    until = std::min(until, FromUnixSeconds(it->utc_seconds));
  }
  const auto day = std::chrono::floor<std::chrono::days>(local);
  return HourSpan{LocalHour{LocalDate(day.time_since_epoch()),
                            static_cast<std::int8_t>(
                                std::chrono::floor<std::chrono::hours>(local - day).count())},
                  from, until};
}

Timestamp TimeZone::FromLocal(std::chrono::local_time<Micros> local) const {
  const std::int64_t local_seconds =
      std::chrono::floor<std::chrono::seconds>(local).time_since_epoch().count();
  // Candidate instants: local minus each offset in force around it. Try the offset
  // in force a day earlier first (the "before" offset), then the later one.
  const std::int32_t before = OffsetSecondsAt(local_seconds - 86400 - 86400);
  const std::int32_t after = OffsetSecondsAt(local_seconds + 86400);
  for (const std::int32_t offset : {before, after}) {
    const std::int64_t utc = local_seconds - offset;
    if (OffsetSecondsAt(utc) == offset) {
      return Timestamp(local.time_since_epoch() - std::chrono::seconds(offset));
    }
  }
  // A gap: the local time never happened; keep the offset from before the gap.
  return Timestamp(local.time_since_epoch() - std::chrono::seconds(before));
}

Timestamp TimeZone::EndOfLocalHour(LocalHour hour) const {
  const auto end_local =
      std::chrono::local_seconds(hour.date.time_since_epoch()) + std::chrono::hours(hour.hour + 1);
  const std::int64_t local_seconds = end_local.time_since_epoch().count();
  const std::int32_t before = OffsetSecondsAt(local_seconds - 2 * 86400);
  const std::int32_t after = OffsetSecondsAt(local_seconds + 86400);
  std::int64_t latest = std::numeric_limits<std::int64_t>::min();
  for (const std::int32_t offset : {before, after}) {
    const std::int64_t utc = local_seconds - offset;
    if (OffsetSecondsAt(utc) == offset) {
      latest = std::max(latest, utc);
    }
  }
  if (latest == std::numeric_limits<std::int64_t>::min()) {
    latest = local_seconds - before;  // the end fell into a gap
  }
  return FromUnixSeconds(latest);
}

}  // namespace frota::base
