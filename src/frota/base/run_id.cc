#include "frota/base/run_id.h"

#include <fmt/format.h>

#include <chrono>
#include <random>

namespace frota::base {

std::string NewRunId(Timestamp now) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(now);
  const auto day = std::chrono::floor<std::chrono::days>(seconds);
  const std::chrono::hh_mm_ss hms(seconds - day);
  const std::chrono::year_month_day ymd(day);
  std::random_device random;
  return fmt::format("{:04d}{:02d}{:02d}T{:02d}{:02d}{:02d}Z-{:08x}", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                     hms.hours().count(), hms.minutes().count(), hms.seconds().count(), random());
}

}  // namespace frota::base
