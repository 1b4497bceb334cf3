// When to cut an epoch: after N records or T of processing time, whichever comes first.
#pragma once

#include <chrono>
#include <cstdint>

#include "frota/base/clock.h"

namespace frota::engine {

/// Decides epoch boundaries, reading processing time from `clock` (base::Clock::Steady). Boundaries
/// only decide what commits together; the rows an input produces never depend on them (semantics.md
/// section 3).
///
/// Each epoch snapshots the whole operator state, so with epochs of a fixed size a fleet
/// k times larger costs k times more epochs of k times more state: k^2 (the cost curve of
/// bench/compare showed 8x the Rio day taking 17x as long). A policy given
/// `records_per_state_unit` > 0 therefore also makes every epoch span at least that many
/// records per unit of state the last checkpoint held (SetStateUnits: keys plus records
/// waiting for the watermark), whichever bound says later: snapshots stay a bounded share
/// of the work at any size.
class EpochPolicy {
 public:
  EpochPolicy(std::int64_t max_records, std::chrono::milliseconds max_duration,
              const base::Clock& clock = base::SystemClock::Get(),
              std::int64_t records_per_state_unit = 0)
      : max_records_(max_records),
        max_duration_(max_duration),
        clock_(clock),
        records_per_state_unit_(records_per_state_unit) {
    Reset();
  }

  /// Counts records added to the open epoch.
  void Count(std::int64_t records) { records_ += records; }
  /// The size of the state the last checkpoint held (ignored without a per-unit floor).
  void SetStateUnits(std::int64_t units) { min_records_ = units * records_per_state_unit_; }
  /// True when the open epoch has enough records to commit now, whatever the clock says.
  [[nodiscard]] bool RecordsDue() const {
    return records_ >= max_records_ && records_ >= min_records_;
  }
  /// True when the open epoch should commit now.
  [[nodiscard]] bool Due() const {
    return RecordsDue() || (records_ > 0 && records_ >= min_records_ &&
                            clock_.Steady() - started_ >= max_duration_);
  }
  /// Starts a new epoch.
  void Reset() {
    records_ = 0;
    started_ = clock_.Steady();
  }
  [[nodiscard]] std::int64_t records() const { return records_; }
  [[nodiscard]] std::int64_t max_records() const { return max_records_; }
  /// The floor SetStateUnits set (0: none).
  [[nodiscard]] std::int64_t min_records() const { return min_records_; }

 private:
  std::int64_t max_records_;
  std::chrono::milliseconds max_duration_;
  const base::Clock& clock_;  // its Steady() time
  std::int64_t records_per_state_unit_;
  std::int64_t min_records_ = 0;
  std::int64_t records_ = 0;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace frota::engine
