// What semantics §2 must decide for each record the simulator wrote: the truth's rule replica.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "frota/geo/area.h"
#include "frota/model/rejection.h"

namespace frota::sim {

/// What the simulator knows of one record it wrote, in archive (offset) order.
struct RecordFacts {
  std::int32_t vehicle = -1;                          // key; -1 for a record without a vehicle id
  std::optional<model::RejectReason> decoder_reason;  // rule 1, known from how it was encoded
  std::int64_t event_us = 0;                          // as the decoder will read it
  std::int64_t ingest_us = 0;                         // the envelope's ingest time
  double lat = 0;                                     // the float on the wire, widened
  double lon = 0;
};

/// Applies the rules of semantics §2 to one feed (one source partition) in their order,
/// independently of the stream code: rule 1 as encoded, rules 2-4 per record, rule 7
/// against the watermark of §3 (max event time of the records that passed 1-4 and were
/// not late, minus 6 minutes, updated after every record), and rules 5-6 per vehicle in
/// event-time order (ties in offset order), a duplicate compared with the previous
/// record of its vehicle and a jump with the last accepted position.
///
/// Records whose event time the watermark has passed are released vehicle by vehicle at
/// EndOfResponse(): nothing later can sort before them (it would be late), so this
/// equals sorting each vehicle's records once at the end, in bounded memory.
/// Not thread-safe.
class ExpectedOutcomes {
 public:
  /// `area` may be null (rule 4 off); it must outlive this object.
  explicit ExpectedOutcomes(const geo::Area* area);

  void Offer(const RecordFacts& record);
  void EndOfResponse();
  /// End of input: releases everything.
  void Finish();

  /// Per offset: 0 accepted, else 1 + the RejectReason. Complete after Finish().
  [[nodiscard]] const std::vector<std::uint8_t>& outcomes() const { return outcomes_; }
  [[nodiscard]] std::int64_t accepted() const { return accepted_; }
  [[nodiscard]] const std::array<std::int64_t, model::kRejectReasonCount>& rejected() const {
    return rejected_;
  }
  [[nodiscard]] std::int64_t watermark_us() const { return watermark_us_; }
  /// A record the rules accepted: its event time (UTC µs) and position as on the wire.
  struct Shown {
    std::int64_t event_us = 0;
    float lat = 0;
    float lon = 0;
  };
  /// A vehicle's accepted records, in event-time order; empty for a vehicle without one.
  /// Complete after Finish().
  [[nodiscard]] const std::vector<Shown>& shown(std::int32_t vehicle) const;
  /// The minutes of event time (UTC minutes since the epoch) with at least one accepted
  /// record: the feed's coverage as semantics §7 defines it. Sorted after Finish().
  [[nodiscard]] const std::vector<std::int64_t>& covered_minutes() const {
    return covered_minutes_;
  }

 private:
  struct Pending {
    std::int64_t event_us;
    std::int64_t offset;
    double lat;
    double lon;
  };
  struct VehicleState {
    std::vector<Pending> pending;
    bool has_released = false;
    std::int64_t last_released_us = 0;
    bool has_accepted = false;
    std::int64_t last_accepted_us = 0;
    double last_lat = 0;
    double last_lon = 0;
    bool dirty = false;
    std::vector<Shown> shown;
  };
  void Decide(std::int64_t offset, std::optional<model::RejectReason> reason);
  void Release(VehicleState& state, std::int64_t up_to_us);

  const geo::Area* area_;
  std::vector<std::uint8_t> outcomes_;
  std::vector<VehicleState> vehicles_;
  std::vector<std::int32_t> dirty_;
  std::int64_t max_event_us_ = 0;
  bool any_event_ = false;
  std::int64_t watermark_us_;
  std::int64_t accepted_ = 0;
  std::array<std::int64_t, model::kRejectReasonCount> rejected_{};
  std::vector<std::int64_t> covered_minutes_;
};

}  // namespace frota::sim
