// The one clock of frota: injectable, so tests drive time instead of sleeping.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "frota/base/time.h"

namespace frota::base {

/// A stop request shared by threads that wait on a Clock: a wait ends early when it is
/// raised. Thread-safe.
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

/// Where product code reads time that decides what it does: the ingest time a polled
/// response gets, the timestamps of stage reports, when a feed is polled next, when an
/// epoch is cut, how long a run loop waits between rounds. Code that reads time for
/// behaviour takes a Clock (or a config field holding one; null: SystemClock::Get()).
///
/// What may read std::chrono::steady_clock directly instead:
///  - durations measured only to be reported (logs, metrics, a report's duration_s,
///    progress lines on a terminal): they change no output and no decision;
///  - deadlines and backoff of waits on another process (a broker or a database that is
///    unreachable, a test's child process) and the fault-injection pauses of
///    docs/scale-out.md: the other side lives in real time, which a manual clock cannot
///    hurry.
/// The watermark's idle clock is neither: it is ingest time carried by the records
/// (engine::WatermarkTracker), so it reads no clock at all.
///
/// Implementations are thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Wall-clock time, UTC.
  [[nodiscard]] virtual Timestamp Now() const = 0;
  /// Processing time for intervals (epoch cuts, round timing): never goes back.
  [[nodiscard]] virtual std::chrono::steady_clock::time_point Steady() const = 0;
  /// Waits until Now() reaches `deadline`; false when `stop` was raised before it.
  virtual bool WaitUntil(Timestamp deadline, StopSignal& stop) = 0;
  /// Waits `duration` of processing time.
  virtual void SleepFor(std::chrono::microseconds duration) = 0;
};

/// The system's clocks: Now() is std::chrono::system_clock, Steady() steady_clock; waits
/// sleep (WaitUntil on a condition variable the StopSignal wakes).
class SystemClock final : public Clock {
 public:
  /// The process's system clock (stateless; what a null Clock* stands for).
  static SystemClock& Get();
  [[nodiscard]] Timestamp Now() const override;
  [[nodiscard]] std::chrono::steady_clock::time_point Steady() const override;
  bool WaitUntil(Timestamp deadline, StopSignal& stop) override;
  void SleepFor(std::chrono::microseconds duration) override;
};

/// Virtual time for tests: Now() is what the test set; waits jump ahead at once (time
/// never goes back). Steady() moves with Now(): it is the time since `start` after the
/// steady clock's epoch.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(Timestamp start) : start_(ToUnixMicros(start)), now_(ToUnixMicros(start)) {}
  [[nodiscard]] Timestamp Now() const override {
    return FromUnixMicros(now_.load(std::memory_order_acquire));
  }
  [[nodiscard]] std::chrono::steady_clock::time_point Steady() const override {
    return std::chrono::steady_clock::time_point(
        Micros(now_.load(std::memory_order_acquire) - start_));
  }
  bool WaitUntil(Timestamp deadline, StopSignal& stop) override;
  void SleepFor(std::chrono::microseconds duration) override { Advance(duration); }
  void AdvanceTo(Timestamp t);
  void Advance(std::chrono::microseconds d) { AdvanceTo(Now() + d); }

 private:
  std::int64_t start_;
  std::atomic<std::int64_t> now_;
};

}  // namespace frota::base
