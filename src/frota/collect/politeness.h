// Politeness rules: exponential backoff with jitter, Retry-After, a daily request budget.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>

#include "frota/base/time.h"

namespace frota::collect {

using std::chrono::milliseconds;

/// Exponential backoff with "equal jitter": attempt k (0-based) waits a uniformly drawn
/// time in [d/2, d] where d = min(max, initial * 2^k). The jitter keeps many collectors
/// (or feeds of one host) from retrying in lockstep. Not thread-safe: one per poller.
class Backoff {
 public:
  Backoff(milliseconds initial, milliseconds max, std::uint64_t seed)
      : initial_(initial), max_(max), random_(seed) {}
  milliseconds Delay(int attempt);

 private:
  milliseconds initial_;
  milliseconds max_;
  std::mt19937_64 random_;
};

/// The wait a Retry-After value asks for at `now`: delta-seconds ("120") or an HTTP date
/// ("Wed, 21 Oct 2015 07:28:00 GMT", also the obsolete RFC 850 and asctime forms). A date
/// in the past is a wait of zero; nullopt when the value is neither.
std::optional<milliseconds> ParseRetryAfter(std::string_view value, base::Timestamp now);

/// Parses an HTTP date (RFC 9110 section 5.6.7) into an instant.
std::optional<base::Timestamp> ParseHttpDate(std::string_view value);

/// Requests allowed per UTC day (OpenSky's anonymous tier: 400 credits for /states/*).
/// Not thread-safe.
class DailyBudget {
 public:
  explicit DailyBudget(std::int64_t per_day) : per_day_(per_day) {}
  [[nodiscard]] bool enabled() const { return per_day_ > 0; }
  /// Whether a request may be made at `now`; counts it when it may.
  bool TryTake(base::Timestamp now);
  /// The start of the next UTC day after `now`: when the budget refills.
  static base::Timestamp NextRefill(base::Timestamp now);
  [[nodiscard]] std::int64_t used() const { return used_; }

 private:
  std::int64_t per_day_;
  std::int64_t day_ = -1;
  std::int64_t used_ = 0;
};

}  // namespace frota::collect
