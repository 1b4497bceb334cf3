#include "frota/collect/clock.h"

namespace frota::collect {

void StopSignal::Raise() {
  {
    const std::lock_guard lock(mutex_);
    raised_.store(true, std::memory_order_release);
  }
  changed_.notify_all();
}

base::Timestamp SystemClock::Now() const {
  return std::chrono::time_point_cast<base::Micros>(std::chrono::system_clock::now());
}

bool SystemClock::WaitUntil(base::Timestamp deadline, StopSignal& stop) {
  std::unique_lock lock(stop.mutex_);
  // Waits in steady time so a wall-clock step does not stretch or cut the wait.
  const auto remaining = deadline - Now();
  if (remaining.count() <= 0) {
    return !stop.raised();
  }
  stop.changed_.wait_for(lock, remaining, [&] { return stop.raised(); });
  return !stop.raised();
}

bool ManualClock::WaitUntil(base::Timestamp deadline, StopSignal& stop) {
  if (stop.raised()) {
    return false;
  }
  AdvanceTo(deadline);
  return true;
}

void ManualClock::AdvanceTo(base::Timestamp t) {
  std::int64_t current = now_.load(std::memory_order_acquire);
  const std::int64_t target = base::ToUnixMicros(t);
  while (current < target &&
         !now_.compare_exchange_weak(current, target, std::memory_order_acq_rel)) {
  }
}

}  // namespace frota::collect
