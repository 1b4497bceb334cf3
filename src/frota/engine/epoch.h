// When to cut an epoch: after N records or T of processing time, whichever comes first.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace frota::engine {

/// A clock for processing time, injectable so tests never sleep.
using ProcessingClock = std::function<std::chrono::steady_clock::time_point()>;

/// Decides epoch boundaries. Boundaries only decide what commits together; the rows an
/// input produces never depend on them (semantics.md section 3).
class EpochPolicy {
 public:
  EpochPolicy(std::int64_t max_records, std::chrono::milliseconds max_duration,
              ProcessingClock clock = [] { return std::chrono::steady_clock::now(); })
      : max_records_(max_records), max_duration_(max_duration), clock_(std::move(clock)) {
    Reset();
  }

  /// Counts records added to the open epoch.
  void Count(std::int64_t records) { records_ += records; }
  /// True when the open epoch should commit now.
  [[nodiscard]] bool Due() const {
    return records_ >= max_records_ || (records_ > 0 && clock_() - started_ >= max_duration_);
  }
  /// Starts a new epoch.
  void Reset() {
    records_ = 0;
    started_ = clock_();
  }
  [[nodiscard]] std::int64_t records() const { return records_; }
  [[nodiscard]] std::int64_t max_records() const { return max_records_; }

 private:
  std::int64_t max_records_;
  std::chrono::milliseconds max_duration_;
  ProcessingClock clock_;
  std::int64_t records_ = 0;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace frota::engine
