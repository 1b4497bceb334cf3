#include "frota/base/clock.h"

#include <algorithm>
#include <thread>

namespace frota::base {

void StopSignal::Raise() {
  {
    const std::lock_guard lock(mutex_);
    raised_.store(true, std::memory_order_release);
  }
  changed_.notify_all();
}

SystemClock& SystemClock::Get() {
  static SystemClock clock;
  return clock;
}

Timestamp SystemClock::Now() const {
  return std::chrono::time_point_cast<Micros>(std::chrono::system_clock::now());
}

std::chrono::steady_clock::time_point SystemClock::Steady() const {
  return std::chrono::steady_clock::now();
}

bool SystemClock::WaitUntil(Timestamp deadline, StopSignal& stop) {
  std::unique_lock lock(stop.mutex_);
  // Waits in steady time so a wall-clock step does not stretch or cut the wait, an hour
  // at most at a time: the condition variable turns its timeout into nanoseconds, which a
  // far deadline (Timestamp::max(): until stopped) would overflow into no wait at all.
  while (!stop.raised()) {
    const auto remaining = deadline - Now();
    if (remaining.count() <= 0) {
      break;
    }
    stop.changed_.wait_for(lock, std::min<Micros>(remaining, std::chrono::hours(1)),
                           [&] { return stop.raised(); });
  }
  return !stop.raised();
}

void SystemClock::SleepFor(std::chrono::microseconds duration) {
  std::this_thread::sleep_for(duration);
}

bool ManualClock::WaitUntil(Timestamp deadline, StopSignal& stop) {
  if (stop.raised()) {
    return false;
  }
  AdvanceTo(deadline);
  return true;
}

void ManualClock::AdvanceTo(Timestamp t) {
  std::int64_t current = now_.load(std::memory_order_acquire);
  const std::int64_t target = ToUnixMicros(t);
  while (current < target &&
         !now_.compare_exchange_weak(current, target, std::memory_order_acq_rel)) {
  }
}

}  // namespace frota::base
