// The Rio archive reader's times: dates, date-times and their conversion from local time.
// Part of archive_csv.cc's reader, apart so each file holds one concern; included only
// there.
#pragma once

#include <array>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "frota/base/bytes.h"
#include "frota/base/time.h"
#include "frota/base/time_zone.h"

namespace frota::codec::archive_csv_internal {

// --- time -------------------------------------------------------------------------------

// Loaded zones, shared: loading reads the tz database, far too slow to do per response.
inline base::Result<std::shared_ptr<const base::TimeZone>> LoadZone(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const base::TimeZone>, std::less<>> zones;
  const std::lock_guard lock(mutex);
  if (const auto it = zones.find(name); it != zones.end()) {
    return it->second;
  }
  FROTA_ASSIGN_OR_RETURN(base::TimeZone zone, base::TimeZone::Load(name));
  auto shared = std::make_shared<const base::TimeZone>(std::move(zone));
  zones.emplace(name, shared);
  return shared;
}

inline std::optional<std::chrono::sys_days> ReadDate(std::string_view text) {
  int year = 0;
  int month = 0;
  int day = 0;
  if (text.size() < 10 || !base::ReadDigits(text, 0, 4, year) || text[4] != '-' ||
      !base::ReadDigits(text, 5, 2, month) || text[7] != '-' ||
      !base::ReadDigits(text, 8, 2, day)) {
    return std::nullopt;
  }
  const std::chrono::year_month_day date{std::chrono::year(year),
                                         std::chrono::month(static_cast<unsigned>(month)),
                                         std::chrono::day(static_cast<unsigned>(day))};
  // Only a date, or a date followed by its time ("2022-06-30 00:00:00").
  if (!date.ok() || (text.size() > 10 && text[10] != ' ' && text[10] != 'T')) {
    return std::nullopt;
  }
  return std::chrono::sys_days(date);
}

// "YYYY-MM-DD HH:MM:SS[.ffffff]" (or 'T'), naive local time unless it ends in Z or ±HH:MM.
struct DateTimeText {
  std::int64_t local_micros = 0;  // since local 1970-01-01 00:00, or UTC when `offset`
  std::optional<std::int32_t> offset_seconds;
};

// Rows come in time order, so most dates repeat the previous row's: remember the last.
class DateCache {
 public:
  std::optional<std::chrono::sys_days> Read(std::string_view text) {
    if (text.size() >= 10 && valid_ && std::memcmp(text.data(), last_.data(), 10) == 0 &&
        (text.size() == 10 || text[10] == ' ' || text[10] == 'T')) {
      return last_date_;
    }
    const auto date = ReadDate(text);
    if (date) {
      std::memcpy(last_.data(), text.data(), 10);
      last_date_ = *date;
      valid_ = true;
    }
    return date;
  }

 private:
  std::array<char, 10> last_{};
  std::chrono::sys_days last_date_{};
  bool valid_ = false;
};

inline std::optional<DateTimeText> ReadDateTime(std::string_view text, DateCache& dates) {
  text = Trim(text);
  const auto date = dates.Read(text);
  int hour = 0;
  int minute = 0;
  int second = 0;
  if (!date || text.size() < 19 || (text[10] != ' ' && text[10] != 'T') ||
      !base::ReadDigits(text, 11, 2, hour) || text[13] != ':' ||
      !base::ReadDigits(text, 14, 2, minute) || text[16] != ':' ||
      !base::ReadDigits(text, 17, 2, second) || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  std::size_t at = 19;
  std::int64_t fraction_micros = 0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    std::int64_t scale = 100000;
    const std::size_t digits_start = at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      fraction_micros += (text[at] - '0') * scale;
      scale /= 10;
      ++at;
    }
    if (at == digits_start) {
      return std::nullopt;
    }
  }
  DateTimeText out;
  if (at < text.size()) {
    const std::string_view zone = text.substr(at);
    int zone_hours = 0;
    int zone_minutes = 0;
    if (zone == "Z") {
      out.offset_seconds = 0;
    } else if ((zone[0] == '+' || zone[0] == '-') && base::ReadDigits(zone, 1, 2, zone_hours) &&
               ((zone.size() == 6 && zone[3] == ':' &&
                 base::ReadDigits(zone, 4, 2, zone_minutes)) ||
                (zone.size() == 5 && base::ReadDigits(zone, 3, 2, zone_minutes)) ||
                zone.size() == 3)) {
      const int sign = zone[0] == '-' ? -1 : 1;
      out.offset_seconds = sign * (zone_hours * 3600 + zone_minutes * 60);
    } else {
      return std::nullopt;
    }
  }
  const std::int64_t seconds =
      date->time_since_epoch().count() * 86400LL + hour * 3600LL + minute * 60LL + second;
  out.local_micros = seconds * 1'000'000 + fraction_micros;
  return out;
}

// Local civil time → UTC through a small cache by local hour: rows come in time order,
// so nearly every lookup hits. An hour whose offset changes inside it (historic
// odd-minute offsets) is never cached; DST gaps and overlaps resolve the way
// TimeZone::FromLocal does for the whole hour, so caching them is exact.
class LocalTimeConverter {
 public:
  explicit LocalTimeConverter(std::shared_ptr<const base::TimeZone> zone)
      : zone_(std::move(zone)) {}

  base::Timestamp ToUtc(std::int64_t local_micros) {
    constexpr std::int64_t kHourMicros = 3'600'000'000LL;
    const std::int64_t hour = local_micros >= 0 ? local_micros / kHourMicros
                                                : (local_micros - kHourMicros + 1) / kHourMicros;
    Entry& entry = cache_[static_cast<std::size_t>(hour) % cache_.size()];
    if (entry.valid && entry.hour == hour) {
      return base::FromUnixMicros(local_micros - entry.offset_micros);
    }
    const auto offset_at = [&](std::int64_t micros) {
      const auto local = std::chrono::local_time<base::Micros>(base::Micros(micros));
      return micros - base::ToUnixMicros(zone_->FromLocal(local));
    };
    const std::int64_t start_offset = offset_at(hour * kHourMicros);
    const std::int64_t end_offset = offset_at(hour * kHourMicros + kHourMicros - 1);
    if (start_offset != end_offset) {
      return base::FromUnixMicros(local_micros - offset_at(local_micros));
    }
    entry = Entry{hour, start_offset, true};
    return base::FromUnixMicros(local_micros - start_offset);
  }

 private:
  struct Entry {
    std::int64_t hour = 0;
    std::int64_t offset_micros = 0;
    bool valid = false;
  };
  std::shared_ptr<const base::TimeZone> zone_;
  std::array<Entry, 64> cache_{};
};

// Texts of a time column and the instants they read as (nullopt: not a time), in a
// small table by the text's last bytes. The rows of one response share its capture
// time, so nearly every timestamp_captura is the previous row's text (reading it again
// cost a tenth of the decode); a response's GPS times are a few dozen seconds, each
// met again and again in the responses around it, so most of those are in the table
// too (reading every one cost an eighth of the decode). The whole text is compared, so
// what is returned is always what reading the text gives.
class TimeTexts {
 public:
  template <typename Read>
  std::optional<base::Timestamp> Get(std::string_view text, Read&& read) {
    if (text.size() > kMaxText) {
      return read(text);
    }
    Entry& entry = entries_[Slot(text)];
    if (base::SameText(text, std::string_view(entry.text.data(), entry.size))) {
      return entry.value;
    }
    entry.value = read(text);
    entry.size = static_cast<std::uint8_t>(text.size());
    std::memcpy(entry.text.data(), text.data(), text.size());
    return entry.value;
  }

 private:
  static constexpr std::size_t kMaxText = 40;
  static constexpr std::size_t kSlots = 64;
  // The last 8 bytes (where the seconds and their fraction are) mixed with the length.
  static std::size_t Slot(std::string_view text) {
    std::uint64_t tail = 0;
    const std::size_t n = std::min<std::size_t>(text.size(), 8);
    std::memcpy(&tail, text.data() + text.size() - n, n);
    const std::uint64_t mixed = (tail ^ text.size()) * 0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(mixed >> 58);  // 6 bits: kSlots
  }
  struct Entry {
    std::array<char, kMaxText> text{};
    std::uint8_t size = 0xff;  // no text has this size: the entry is empty
    std::optional<base::Timestamp> value;
  };
  std::array<Entry, kSlots> entries_{};
};

}  // namespace frota::codec::archive_csv_internal
