// Event-time progress over source partitions: the watermark of semantics.md section 3.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/strong_id.h"
#include "frota/base/time.h"

namespace frota::engine {

using base::PartitionId;
using base::Timestamp;

/// The smallest and largest watermark values: before any record, and after end of input.
inline constexpr Timestamp kWatermarkMin = Timestamp::min();
inline constexpr Timestamp kWatermarkMax = Timestamp::max();

/// A watermark as logs and reports show it: "none" before any record, "end of input"
/// after a flush, else ISO 8601 UTC.
std::string WatermarkText(Timestamp watermark);

/// Tracks the watermark W = min over active source partitions of (max event time seen
/// in the partition) - max_lateness.
///
/// A partition is active until no record has arrived from it for `idle_timeout` of
/// ingest time, measured against the largest ingest time seen in any partition; so a
/// finished file or a silent Kafka partition stops holding W back. W never moves
/// backwards. After Finish() (end of recorded input) W is kWatermarkMax.
///
/// A record is late when its event time is <= W at the moment it arrives: every record
/// of its key up to W may already have been processed.
///
/// Not thread-safe: the runner owns one instance.
class WatermarkTracker {
 public:
  WatermarkTracker(std::chrono::microseconds max_lateness, std::chrono::microseconds idle_timeout)
      : max_lateness_(max_lateness), idle_timeout_(idle_timeout) {}

  /// Whether a record with this event time would be late now.
  [[nodiscard]] bool IsLate(Timestamp event_time) const { return event_time <= current_; }

  /// Records an accepted record of `partition`; may advance W.
  void Observe(PartitionId partition, Timestamp event_time, Timestamp ingest_time);

  /// Live sources only: every record still to come has an ingest time >= `ingest_time`
  /// (the collector's clock has passed it and nothing received earlier is unread). Moves
  /// the idle clock as a record with that ingest time would, so silent partitions go idle;
  /// when no partition is active, W rises to ingest_time - max_lateness, which no record
  /// that passes the stale rule (ingest - event <= stale limit < max_lateness, which the
  /// job derives from the stale limit: job::JobConfig::max_lateness) can be late for.
  /// Replays never call it, so their watermark stays a function of the records alone.
  void AdvanceIngestTime(Timestamp ingest_time);

  /// End of recorded input: W jumps to kWatermarkMax, releasing everything.
  void Finish() { current_ = kWatermarkMax; }
  /// More input after Finish() (the next day's archive into the same database): W comes
  /// back to the latest event time seen in any partition, so that a record later than
  /// everything the flush released is processed as if the input had never ended, and one
  /// at or before it is late. Does nothing unless finished.
  void Reopen();

  [[nodiscard]] Timestamp Current() const { return current_; }
  /// The latest event time seen in any partition (kWatermarkMin before any record).
  [[nodiscard]] Timestamp LatestEventTime() const;
  [[nodiscard]] bool finished() const { return current_ == kWatermarkMax; }

  /// Versioned bytes of the tracker's state, and their restoration.
  [[nodiscard]] std::string Snapshot() const;
  base::Status Restore(std::string_view bytes);

 private:
  struct PartitionProgress {
    PartitionId id;
    Timestamp max_event_time = kWatermarkMin;
    Timestamp last_ingest_time = kWatermarkMin;
  };
  PartitionProgress& ProgressOf(PartitionId partition);
  void Recompute();

  std::chrono::microseconds max_lateness_;
  std::chrono::microseconds idle_timeout_;
  // Few partitions (files, assigned Kafka partitions): a vector, sorted by id, with the
  // last one used cached, beats a hash map on every record.
  std::vector<PartitionProgress> partitions_;
  std::size_t last_used_ = 0;
  Timestamp max_ingest_time_ = kWatermarkMin;
  Timestamp current_ = kWatermarkMin;
};

}  // namespace frota::engine
