#include "frota/collect/politeness.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <ctime>
#include <string>

namespace frota::collect {

milliseconds Backoff::Delay(int attempt) {
  const int shift = std::clamp(attempt, 0, 30);
  const double full =
      std::min(static_cast<double>(max_.count()),
               static_cast<double>(initial_.count()) * static_cast<double>(1LL << shift));
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return milliseconds(static_cast<std::int64_t>(full * jitter(random_)));
}

std::optional<base::Timestamp> ParseHttpDate(std::string_view value) {
  const std::string text(value);
  // IMF-fixdate, RFC 850, asctime: the three forms a recipient must accept.
  static constexpr const char* kForms[] = {"%a, %d %b %Y %H:%M:%S", "%A, %d-%b-%y %H:%M:%S",
                                           "%a %b %d %H:%M:%S %Y"};
  for (const char* form : kForms) {
    std::tm tm{};
    const char* end = strptime(text.c_str(), form, &tm);
    if (end == nullptr) {
      continue;
    }
    while (*end == ' ') {
      ++end;
    }
    if (*end != '\0' && std::strcmp(end, "GMT") != 0 && std::strcmp(end, "UTC") != 0) {
      continue;
    }
    const std::time_t t = timegm(&tm);
    if (t == static_cast<std::time_t>(-1)) {
      return std::nullopt;
    }
    return base::FromUnixSeconds(static_cast<std::int64_t>(t));
  }
  return std::nullopt;
}

std::optional<milliseconds> ParseRetryAfter(std::string_view value, base::Timestamp now) {
  while (!value.empty() && value.front() == ' ') {
    value.remove_prefix(1);
  }
  while (!value.empty() && value.back() == ' ') {
    value.remove_suffix(1);
  }
  if (value.empty()) {
    return std::nullopt;
  }
  std::int64_t seconds = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (error == std::errc() && end == value.data() + value.size()) {
    return seconds < 0 ? std::nullopt : std::optional<milliseconds>(std::chrono::seconds(seconds));
  }
  const auto date = ParseHttpDate(value);
  if (!date) {
    return std::nullopt;
  }
  if (*date <= now) {
    return milliseconds(0);
  }
  return std::chrono::ceil<milliseconds>(*date - now);
}

bool DailyBudget::TryTake(base::Timestamp now) {
  if (per_day_ <= 0) {
    return true;
  }
  const std::int64_t day = std::chrono::floor<std::chrono::days>(now).time_since_epoch().count();
  if (day != day_) {
    day_ = day;
    used_ = 0;
  }
  if (used_ >= per_day_) {
    return false;
  }
  ++used_;
  return true;
}

base::Timestamp DailyBudget::NextRefill(base::Timestamp now) {
  return std::chrono::floor<std::chrono::days>(now) + std::chrono::days(1);
}

}  // namespace frota::collect
