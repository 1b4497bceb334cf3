#include "frota/engine/watermark.h"

#include <algorithm>

#include "frota/base/bytes.h"

namespace frota::engine {

std::string WatermarkText(Timestamp watermark) {
  if (watermark == kWatermarkMin) {
    return "none";
  }
  if (watermark == kWatermarkMax) {
    return "end of input";
  }
  return base::FormatIso8601(watermark);
}

namespace {
constexpr std::uint32_t kSnapshotVersion = 1;
}  // namespace

WatermarkTracker::PartitionProgress& WatermarkTracker::ProgressOf(PartitionId partition) {
  if (last_used_ < partitions_.size() && partitions_[last_used_].id == partition) {
    return partitions_[last_used_];
  }
  auto it = std::lower_bound(partitions_.begin(), partitions_.end(), partition,
                             [](const PartitionProgress& p, PartitionId id) { return p.id < id; });
  if (it == partitions_.end() || it->id != partition) {
    it = partitions_.insert(it, PartitionProgress{partition});
  }
  last_used_ = static_cast<std::size_t>(it - partitions_.begin());
  return *it;
}

void WatermarkTracker::Observe(PartitionId partition, Timestamp event_time, Timestamp ingest_time) {
  if (finished()) {
    return;
  }
  auto& progress = ProgressOf(partition);
  const bool event_advanced = event_time > progress.max_event_time;
  progress.max_event_time = std::max(progress.max_event_time, event_time);
  progress.last_ingest_time = std::max(progress.last_ingest_time, ingest_time);
  const bool ingest_advanced = ingest_time > max_ingest_time_;
  max_ingest_time_ = std::max(max_ingest_time_, ingest_time);
  // Only a change in a maximum can move the minimum or the active set.
  if (event_advanced || ingest_advanced) {
    Recompute();
  }
}

Timestamp WatermarkTracker::LatestEventTime() const {
  Timestamp latest = kWatermarkMin;
  for (const auto& progress : partitions_) {
    latest = std::max(latest, progress.max_event_time);
  }
  return latest;
}

void WatermarkTracker::Reopen() {
  if (finished()) {
    current_ = LatestEventTime();
  }
}

void WatermarkTracker::AdvanceIngestTime(Timestamp ingest_time) {
  if (finished() || ingest_time <= max_ingest_time_) {
    return;
  }
  max_ingest_time_ = ingest_time;
  Recompute();
  for (const auto& progress : partitions_) {
    if (max_ingest_time_ - progress.last_ingest_time <= idle_timeout_) {
      return;  // an active partition holds W as the records say
    }
  }
  if (ingest_time - max_lateness_ > current_) {
    current_ = ingest_time - max_lateness_;
  }
}

void WatermarkTracker::Recompute() {
  Timestamp min_event = kWatermarkMax;
  bool any_active = false;
  for (const auto& progress : partitions_) {
    const bool idle = max_ingest_time_ - progress.last_ingest_time > idle_timeout_;
    if (idle) {
      continue;
    }
    any_active = true;
    min_event = std::min(min_event, progress.max_event_time);
  }
  if (!any_active || min_event == kWatermarkMin) {
    return;
  }
  const Timestamp candidate = min_event - max_lateness_;
  current_ = std::max(current_, candidate);
}

std::string WatermarkTracker::Snapshot() const {
  base::ByteWriter w;
  w.U32(kSnapshotVersion);
  w.I64(base::ToUnixMicros(current_));
  w.I64(base::ToUnixMicros(max_ingest_time_));
  // Sorted by id, so equal states give equal bytes.
  w.Varint(partitions_.size());
  for (const auto& progress : partitions_) {
    w.SignedVarint(progress.id.value());
    w.I64(base::ToUnixMicros(progress.max_event_time));
    w.I64(base::ToUnixMicros(progress.last_ingest_time));
  }
  return w.Take();
}

base::Status WatermarkTracker::Restore(std::string_view bytes) {
  base::ByteReader r(bytes);
  FROTA_ASSIGN_OR_RETURN(const auto version, r.U32());
  if (version != kSnapshotVersion) {
    return base::InvalidInput("watermark state has format version {}, this binary reads {}",
                              version, kSnapshotVersion);
  }
  FROTA_ASSIGN_OR_RETURN(const auto current, r.I64());
  FROTA_ASSIGN_OR_RETURN(const auto max_ingest, r.I64());
  FROTA_ASSIGN_OR_RETURN(const auto count, r.Varint());
  std::vector<PartitionProgress> partitions;
  for (std::uint64_t i = 0; i < count; ++i) {
    FROTA_ASSIGN_OR_RETURN(const auto id, r.SignedVarint());
    FROTA_ASSIGN_OR_RETURN(const auto max_event, r.I64());
    FROTA_ASSIGN_OR_RETURN(const auto last_ingest, r.I64());
    partitions.push_back({PartitionId(static_cast<std::int32_t>(id)),
                          base::FromUnixMicros(max_event), base::FromUnixMicros(last_ingest)});
  }
  std::sort(partitions.begin(), partitions.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  if (!r.AtEnd()) {
    return base::InvalidInput("watermark state has {} trailing bytes", r.remaining());
  }
  partitions_ = std::move(partitions);
  last_used_ = 0;
  current_ = base::FromUnixMicros(current);
  max_ingest_time_ = base::FromUnixMicros(max_ingest);
  return base::Status::Ok();
}

}  // namespace frota::engine
