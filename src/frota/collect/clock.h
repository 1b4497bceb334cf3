// Wall-clock time for the collector, injectable so tests run days of polls in seconds.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "frota/base/time.h"

namespace frota::collect {

/// A stop request shared by every thread of a collector; waits on a Clock end early when
/// it is raised. Thread-safe.
class StopSignal {
 public:
  void Raise();
  [[nodiscard]] bool raised() const { return raised_.load(std::memory_order_acquire); }

 private:
  friend class SystemClock;
  std::atomic<bool> raised_{false};
  std::mutex mutex_;
  std::condition_variable changed_;
};

/// The time source of pollers and schedules: Now() is the ingest time a response gets.
///
/// Implementations are thread-safe. WaitUntil() returns false when `stop` was raised
/// before the deadline.
class Clock {
 public:
  virtual ~Clock() = default;
  [[nodiscard]] virtual base::Timestamp Now() const = 0;
  virtual bool WaitUntil(base::Timestamp deadline, StopSignal& stop) = 0;
};

/// The system's real-time clock; waits sleep on a condition variable.
class SystemClock final : public Clock {
 public:
  [[nodiscard]] base::Timestamp Now() const override;
  bool WaitUntil(base::Timestamp deadline, StopSignal& stop) override;
};

/// Virtual time for tests: Now() is what the driver set; WaitUntil() jumps to the
/// deadline at once (time never goes back). Used by the collector's single-threaded
/// virtual-time loop, where one thread owns the timeline.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(base::Timestamp start) : now_(base::ToUnixMicros(start)) {}
  [[nodiscard]] base::Timestamp Now() const override {
    return base::FromUnixMicros(now_.load(std::memory_order_acquire));
  }
  bool WaitUntil(base::Timestamp deadline, StopSignal& stop) override;
  void AdvanceTo(base::Timestamp t);
  void Advance(std::chrono::microseconds d) { AdvanceTo(Now() + d); }

 private:
  std::atomic<std::int64_t> now_;
};

}  // namespace frota::collect
