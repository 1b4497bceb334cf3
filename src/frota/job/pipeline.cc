#include "frota/job/pipeline.h"

#include <algorithm>

#include "frota/base/bytes.h"
#include "frota/base/hash.h"
#include "frota/base/vector_growth.h"
#include "frota/engine/checkpoint.h"
#include "frota/job/validation.h"

namespace frota::job {

namespace {
constexpr std::string_view kRunnerKind = "job-runner";
constexpr std::uint32_t kRunnerVersion = 1;
// kBySourcePartition: a partition's shard state and its watermark, sealed together.
constexpr std::string_view kPartitionKind = "job-partition";
constexpr std::uint32_t kPartitionVersion = 1;
}  // namespace

Pipeline::Pipeline(JobConfig config, Routing routing, std::int32_t partitions,
                   model::SourceCatalog* catalog, std::size_t threads)
    : config_(std::move(config)),
      routing_(routing),
      catalog_(catalog),
      watermark_(config_.max_lateness(), config_.idle_timeout),
      pool_(threads > 1 ? threads - 1 : 0) {
  if (routing_ == Routing::kByKeyHash) {
    for (std::int32_t i = 0; i < std::max(partitions, 1); ++i) {
      shards_.push_back(std::make_unique<Shard>(i, &config_, catalog_, strings_, &row_buffers_));
    }
    inboxes_.resize(shards_.size());
  }
}

std::size_t Pipeline::FindShard(base::PartitionId partition) const {
  for (std::size_t i = 0; i < shards_.size(); ++i) {
    if (shards_[i]->partition_id() == partition.value()) {
      return i;
    }
  }
  return shards_.size();
}

std::size_t Pipeline::ShardIndexFor(base::PartitionId source_partition, std::uint64_t key_hash) {
  if (routing_ == Routing::kByKeyHash) {
    return key_hash % shards_.size();
  }
  const std::size_t index = FindShard(source_partition);
  if (index < shards_.size()) {
    return index;
  }
  AddPartition(source_partition);
  return shards_.size() - 1;
}

void Pipeline::Offer(base::PartitionId source_partition, model::Position&& position) {
  model::KeyTextHashes hashes;
  model::PositionRecord record = interner_.Intern(position, &hashes);
  Offer(source_partition, std::move(record), KeyHash(hashes));
}

void Pipeline::Offer(base::PartitionId source_partition, model::Rejection&& rejection) {
  model::KeyTextHashes hashes;
  model::RejectionRecord record = interner_.Intern(std::move(rejection), &hashes);
  OfferRejection(source_partition, std::move(record), KeyHash(hashes));
}

void Pipeline::Offer(base::PartitionId source_partition, model::PositionRecord&& position,
                     std::uint64_t key_hash) {
  // kBySourcePartition: the record's own partition's watermark decides lateness (the
  // partition is created here if new, so the index stays valid below).
  const std::size_t partition_index =
      routing_ == Routing::kBySourcePartition ? ShardIndexFor(source_partition, 0) : shards_.size();
  engine::WatermarkTracker& watermark =
      routing_ == Routing::kBySourcePartition ? partition_watermarks_[partition_index] : watermark_;
  if (watermark.finished()) [[unlikely]] {
    // Input after an end of input: the database goes on where the flush left it.
    watermark.Reopen();
  }
  std::optional<model::RejectReason> reason = CheckRecordRules(position, config_);
  std::string detail;
  if (reason) {
    detail = DescribeRecordRuleFailure(position, *reason);
  } else if (watermark.IsLate(position.event_time)) {
    reason = model::RejectReason::kLate;
    // Not the watermark itself: under Kafka each partition keeps its own (semantics-notes,
    // "Time"), and the row must be the same whichever partition carried the record.
    detail = fmt::format("event_time={}", base::FormatIso8601(position.event_time));
  }
  if (reason) {
    model::RejectionRecord rejection;
    rejection.reason = *reason;
    rejection.feed_id = position.feed_id;
    rejection.vehicle_id = position.vehicle_id;
    rejection.event_time = position.event_time;
    rejection.ingest_time = position.ingest_time;
    rejection.source = position.source;
    rejection.detail = std::move(detail);
    OfferRejection(source_partition, std::move(rejection), key_hash);
    return;
  }
  watermark.Observe(source_partition, position.event_time, position.ingest_time);
  const std::size_t index = routing_ == Routing::kBySourcePartition
                                ? partition_index
                                : ShardIndexFor(source_partition, key_hash);
  inboxes_[index].positions.push_back(position);
  ++offered_since_advance_;
}

void Pipeline::Offer(base::PartitionId source_partition, model::RejectionRecord&& rejection,
                     std::uint64_t key_hash) {
  OfferRejection(source_partition, std::move(rejection), key_hash);
}

void Pipeline::OfferRejection(base::PartitionId source_partition,
                              model::RejectionRecord&& rejection, std::uint64_t key_hash) {
  inboxes_[ShardIndexFor(source_partition, key_hash)].rejections.push_back(std::move(rejection));
  ++offered_since_advance_;
}

void Pipeline::Advance() {
  offered_since_advance_ = 0;
  const base::Timestamp global_watermark = watermark_.Current();
  pool_.ParallelFor(shards_.size(), [&](std::size_t i) {
    const base::Timestamp watermark = routing_ == Routing::kBySourcePartition
                                          ? partition_watermarks_[i].Current()
                                          : global_watermark;
    Shard& shard = *shards_[i];
    Inbox& inbox = inboxes_[i];
    for (auto& rejection : inbox.rejections) {
      shard.Reject(std::move(rejection));
    }
    inbox.rejections.clear();
    shard.AddAll(inbox.positions);
    inbox.positions.clear();
    shard.Advance(watermark);
  });
}

base::Timestamp Pipeline::LatestEventTime() const {
  base::Timestamp latest = watermark_.LatestEventTime();
  for (const auto& watermark : partition_watermarks_) {
    latest = std::max(latest, watermark.LatestEventTime());
  }
  return latest;
}

void Pipeline::Finish() {
  watermark_.Finish();
  for (auto& watermark : partition_watermarks_) {
    watermark.Finish();
  }
  Advance();
}

base::Timestamp Pipeline::watermark() const {
  if (routing_ == Routing::kByKeyHash) {
    return watermark_.Current();
  }
  if (partition_watermarks_.empty()) {
    return engine::kWatermarkMin;
  }
  base::Timestamp lowest = engine::kWatermarkMax;
  for (const auto& watermark : partition_watermarks_) {
    lowest = std::min(lowest, watermark.Current());
  }
  return lowest;
}

bool Pipeline::finished() const {
  if (routing_ == Routing::kByKeyHash) {
    return watermark_.finished();
  }
  return !partition_watermarks_.empty() &&
         std::all_of(partition_watermarks_.begin(), partition_watermarks_.end(),
                     [](const engine::WatermarkTracker& w) { return w.finished(); });
}

model::EpochRows Pipeline::TakeRows() {
  model::EpochRows rows;
  rows.strings = strings_;
  for (auto& shard : shards_) {
    rows.Append(shard->TakeRows());
  }
  return rows;
}

bool Pipeline::AdvanceDue(std::size_t min_records) const {
  if (offered_since_advance_ < min_records) {
    return false;
  }
  const std::size_t per_vehicles =
      std::min(vehicle_count() * kOfferedPerVehicleToAdvance, kMaxOfferedBeforeAdvance);
  return offered_since_advance_ >= per_vehicles;
}

std::size_t Pipeline::vehicle_count() const {
  std::size_t n = 0;
  for (const auto& shard : shards_) {
    n += shard->vehicle_count();
  }
  return n;
}

std::size_t Pipeline::pending_records() const {
  std::size_t n = 0;
  for (const auto& shard : shards_) {
    n += shard->pending_records();
  }
  return n;
}

void Pipeline::AddPartition(base::PartitionId partition) {
  if (FindShard(partition) < shards_.size()) {
    return;
  }
  shards_.push_back(
      std::make_unique<Shard>(partition.value(), &config_, catalog_, strings_, &row_buffers_));
  inboxes_.emplace_back();
  if (routing_ == Routing::kBySourcePartition) {
    partition_watermarks_.emplace_back(config_.max_lateness(), config_.idle_timeout);
  }
}

void Pipeline::DropPartition(base::PartitionId partition) {
  const std::size_t i = FindShard(partition);
  if (i == shards_.size()) {
    return;
  }
  shards_.erase(shards_.begin() + static_cast<std::ptrdiff_t>(i));
  inboxes_.erase(inboxes_.begin() + static_cast<std::ptrdiff_t>(i));
  if (routing_ == Routing::kBySourcePartition) {
    partition_watermarks_.erase(partition_watermarks_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

bool Pipeline::HasPartition(base::PartitionId partition) const {
  return FindShard(partition) < shards_.size();
}

std::vector<base::PartitionId> Pipeline::Partitions() const {
  std::vector<base::PartitionId> out;
  out.reserve(shards_.size());
  for (const auto& shard : shards_) {
    out.emplace_back(shard->partition_id());
  }
  return out;
}

void Pipeline::FinishPartition(base::PartitionId partition) {
  if (routing_ != Routing::kBySourcePartition) {
    return;
  }
  partition_watermarks_[ShardIndexFor(partition, 0)].Finish();
}

base::Timestamp Pipeline::PartitionWatermark(base::PartitionId partition) const {
  const std::size_t i = FindShard(partition);
  if (routing_ != Routing::kBySourcePartition || i == shards_.size()) {
    return engine::kWatermarkMin;
  }
  return partition_watermarks_[i].Current();
}

std::string Pipeline::SnapshotPartition(base::PartitionId partition) const {
  const std::size_t i = FindShard(partition);
  if (i == shards_.size()) {
    return {};
  }
  if (routing_ == Routing::kByKeyHash) {
    return shards_[i]->Snapshot();
  }
  base::ByteWriter w;
  w.String(shards_[i]->Snapshot());
  w.String(partition_watermarks_[i].Snapshot());
  return engine::SealCheckpoint(kPartitionKind, kPartitionVersion, w.bytes());
}

base::Status Pipeline::RestorePartition(base::PartitionId partition, std::string_view bytes) {
  if (routing_ != Routing::kBySourcePartition) {
    return base::InvalidInput("RestorePartition needs Kafka routing (by source partition)");
  }
  FROTA_ASSIGN_OR_RETURN(const auto payload,
                         engine::OpenCheckpoint(bytes, kPartitionKind, kPartitionVersion));
  base::ByteReader r(payload);
  FROTA_ASSIGN_OR_RETURN(const auto shard_bytes, r.String());
  FROTA_ASSIGN_OR_RETURN(const auto watermark_bytes, r.String());
  if (!r.AtEnd()) {
    return base::InvalidInput("partition {} state has {} trailing bytes", partition.value(),
                              r.remaining());
  }
  // Restore into fresh objects first, so a corrupt state leaves the partition as it was.
  auto shard =
      std::make_unique<Shard>(partition.value(), &config_, catalog_, strings_, &row_buffers_);
  if (const auto status = shard->Restore(shard_bytes); !status.ok()) {
    return status.error().WithContext(
        fmt::format("restoring the state of partition {}", partition.value()));
  }
  engine::WatermarkTracker watermark(config_.max_lateness(), config_.idle_timeout);
  if (const auto status = watermark.Restore(watermark_bytes); !status.ok()) {
    return status.error().WithContext(
        fmt::format("restoring the watermark of partition {}", partition.value()));
  }
  const std::size_t i = ShardIndexFor(partition, 0);
  shards_[i] = std::move(shard);
  inboxes_[i] = Inbox();
  partition_watermarks_[i] = std::move(watermark);
  return base::Status::Ok();
}

std::vector<engine::PartitionState> Pipeline::SnapshotPartitions() const {
  std::vector<engine::PartitionState> states(shards_.size());
  // Snapshots are independent: build them in parallel like Advance.
  const_cast<engine::WorkerPool&>(pool_).ParallelFor(shards_.size(), [&](std::size_t i) {
    const base::PartitionId id(shards_[i]->partition_id());
    states[i] = {id, routing_ == Routing::kBySourcePartition ? SnapshotPartition(id)
                                                             : shards_[i]->Snapshot()};
  });
  return states;
}

std::string Pipeline::SnapshotRunner() const {
  base::ByteWriter w;
  w.U8(routing_ == Routing::kByKeyHash ? 0 : 1);
  w.SignedVarint(routing_ == Routing::kByKeyHash ? static_cast<std::int64_t>(shards_.size()) : 0);
  w.String(watermark_.Snapshot());
  return engine::SealCheckpoint(kRunnerKind, kRunnerVersion, w.bytes());
}

base::Status Pipeline::Restore(const engine::RecoveredCheckpoint& checkpoint) {
  if (routing_ == Routing::kBySourcePartition) {
    for (const auto& state : checkpoint.states) {
      FROTA_RETURN_IF_ERROR(RestorePartition(state.partition, state.bytes));
    }
    return base::Status::Ok();
  }
  if (checkpoint.runner_state.empty()) {
    return base::Status::Ok();  // nothing committed yet
  }
  FROTA_ASSIGN_OR_RETURN(const auto payload, engine::OpenCheckpoint(checkpoint.runner_state,
                                                                    kRunnerKind, kRunnerVersion));
  base::ByteReader r(payload);
  FROTA_ASSIGN_OR_RETURN(const auto routing, r.U8());
  FROTA_ASSIGN_OR_RETURN(const auto partitions, r.SignedVarint());
  FROTA_ASSIGN_OR_RETURN(const auto watermark_bytes, r.String());
  const Routing stored = routing == 0 ? Routing::kByKeyHash : Routing::kBySourcePartition;
  if (stored != routing_) {
    return base::InvalidInput("the database's state was written by a {} run; this run is {}",
                              stored == Routing::kByKeyHash ? "embedded" : "Kafka",
                              routing_ == Routing::kByKeyHash ? "embedded" : "Kafka");
  }
  if (routing_ == Routing::kByKeyHash && partitions != static_cast<std::int64_t>(shards_.size())) {
    return base::InvalidInput(
        "the database's state was written with --partitions {}; resume with the same count "
        "(this run asked for {})",
        partitions, shards_.size());
  }
  FROTA_RETURN_IF_ERROR(watermark_.Restore(watermark_bytes));
  for (const auto& state : checkpoint.states) {
    std::size_t index = shards_.size();
    for (std::size_t i = 0; i < shards_.size(); ++i) {
      if (shards_[i]->partition_id() == state.partition.value()) {
        index = i;
      }
    }
    if (index == shards_.size()) {
      if (routing_ == Routing::kByKeyHash) {
        return base::InvalidInput("the database holds state of unknown partition {}",
                                  state.partition.value());
      }
      AddPartition(state.partition);
    }
    const auto status = shards_[index]->Restore(state.bytes);
    if (!status.ok()) {
      return status.error().WithContext(
          fmt::format("restoring the state of partition {}", state.partition.value()));
    }
  }
  return base::Status::Ok();
}

}  // namespace frota::job
