#include "frota/sim/expected_outcomes.h"

#include <algorithm>
#include <limits>

#include "frota/geo/haversine.h"

namespace frota::sim {

namespace {

// The contract's numbers (semantics.md §2 and §3), written here on purpose rather than
// taken from the job module: the truth is an independent reading of the rules.
constexpr std::int64_t kSecondUs = 1'000'000;
constexpr std::int64_t kFutureToleranceUs = 30 * kSecondUs;
constexpr std::int64_t kStaleLimitUs = 300 * kSecondUs;
constexpr std::int64_t kMaxLatenessUs = 360 * kSecondUs;
constexpr double kJumpKmh = 120;

}  // namespace

ExpectedOutcomes::ExpectedOutcomes(const geo::Area* area)
    : area_(area), watermark_us_(std::numeric_limits<std::int64_t>::min()) {}

void ExpectedOutcomes::Decide(std::int64_t offset, std::optional<model::RejectReason> reason) {
  if (reason) {
    outcomes_[static_cast<std::size_t>(offset)] =
        static_cast<std::uint8_t>(1 + static_cast<int>(*reason));
    ++rejected_[static_cast<std::size_t>(*reason)];
  } else {
    outcomes_[static_cast<std::size_t>(offset)] = 0;
    ++accepted_;
  }
}

void ExpectedOutcomes::Offer(const RecordFacts& record) {
  using model::RejectReason;
  const auto offset = static_cast<std::int64_t>(outcomes_.size());
  outcomes_.push_back(0);
  if (record.decoder_reason) {
    Decide(offset, record.decoder_reason);
    return;
  }
  if (record.event_us - record.ingest_us > kFutureToleranceUs) {
    Decide(offset, RejectReason::kFuture);
    return;
  }
  if (record.ingest_us - record.event_us > kStaleLimitUs) {
    Decide(offset, RejectReason::kStale);
    return;
  }
  if (area_ != nullptr && !area_->Contains(record.lat, record.lon)) {
    Decide(offset, RejectReason::kOutOfArea);
    return;
  }
  if (record.event_us <= watermark_us_) {
    Decide(offset, RejectReason::kLate);
    return;
  }
  if (record.vehicle >= static_cast<std::int32_t>(vehicles_.size())) {
    vehicles_.resize(static_cast<std::size_t>(record.vehicle) + 1);
  }
  VehicleState& state = vehicles_[static_cast<std::size_t>(record.vehicle)];
  state.pending.push_back({record.event_us, offset, record.lat, record.lon});
  if (!state.dirty) {
    state.dirty = true;
    dirty_.push_back(record.vehicle);
  }
  // One partition: W = its max event time - 6 min, never moving back.
  if (!any_event_ || record.event_us > max_event_us_) {
    max_event_us_ = record.event_us;
    any_event_ = true;
    watermark_us_ = std::max(watermark_us_, max_event_us_ - kMaxLatenessUs);
  }
}

void ExpectedOutcomes::Release(VehicleState& state, std::int64_t up_to_us) {
  std::sort(state.pending.begin(), state.pending.end(), [](const Pending& a, const Pending& b) {
    return a.event_us != b.event_us ? a.event_us < b.event_us : a.offset < b.offset;
  });
  std::size_t released = 0;
  for (const Pending& p : state.pending) {
    if (p.event_us > up_to_us) {
      break;
    }
    ++released;
    if (state.has_released && p.event_us == state.last_released_us) {
      Decide(p.offset, model::RejectReason::kDuplicate);
      continue;
    }
    state.has_released = true;
    state.last_released_us = p.event_us;
    if (state.has_accepted) {
      const double metres = geo::HaversineM(state.last_lat, state.last_lon, p.lat, p.lon);
      const double seconds = static_cast<double>(p.event_us - state.last_accepted_us) / 1e6;
      if (metres / seconds * 3.6 > kJumpKmh) {
        Decide(p.offset, model::RejectReason::kJump);
        continue;
      }
    }
    state.has_accepted = true;
    state.last_accepted_us = p.event_us;
    state.last_lat = p.lat;
    state.last_lon = p.lon;
    state.shown.push_back({p.event_us, static_cast<float>(p.lat), static_cast<float>(p.lon)});
    Decide(p.offset, std::nullopt);
  }
  state.pending.erase(state.pending.begin(),
                      state.pending.begin() + static_cast<std::ptrdiff_t>(released));
}

void ExpectedOutcomes::EndOfResponse() {
  std::vector<std::int32_t> still_dirty;
  for (const std::int32_t vehicle : dirty_) {
    VehicleState& state = vehicles_[static_cast<std::size_t>(vehicle)];
    Release(state, watermark_us_);
    if (state.pending.empty()) {
      state.dirty = false;
    } else {
      still_dirty.push_back(vehicle);
    }
  }
  dirty_ = std::move(still_dirty);
}

const std::vector<ExpectedOutcomes::Shown>& ExpectedOutcomes::shown(std::int32_t vehicle) const {
  static const std::vector<Shown> kNone;
  return vehicle >= 0 && static_cast<std::size_t>(vehicle) < vehicles_.size()
             ? vehicles_[static_cast<std::size_t>(vehicle)].shown
             : kNone;
}

void ExpectedOutcomes::Finish() {
  for (const std::int32_t vehicle : dirty_) {
    VehicleState& state = vehicles_[static_cast<std::size_t>(vehicle)];
    Release(state, std::numeric_limits<std::int64_t>::max());
    state.dirty = false;
  }
  dirty_.clear();
  // The covered minutes, from every vehicle's accepted records.
  constexpr std::int64_t kMinuteUs = 60'000'000;
  covered_minutes_.clear();
  for (const VehicleState& state : vehicles_) {
    for (const Shown& r : state.shown) {
      covered_minutes_.push_back(r.event_us >= 0 ? r.event_us / kMinuteUs
                                                 : -((-r.event_us + kMinuteUs - 1) / kMinuteUs));
    }
  }
  std::sort(covered_minutes_.begin(), covered_minutes_.end());
  covered_minutes_.erase(std::unique(covered_minutes_.begin(), covered_minutes_.end()),
                         covered_minutes_.end());
}

}  // namespace frota::sim
