// The jobs as one stream pipeline: admission (rules 2-4, late), watermark, state partitions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/strong_id.h"
#include "frota/engine/transactional_sink.h"
#include "frota/engine/watermark.h"
#include "frota/engine/worker_pool.h"
#include "frota/job/config.h"
#include "frota/job/shard.h"
#include "frota/model/record_interner.h"
#include "frota/model/row_buffers.h"
#include "frota/model/rows.h"
#include "frota/model/source.h"

namespace frota::job {

/// How records are assigned to state partitions.
enum class Routing {
  /// By a stable hash of (feed_id, vehicle_id) over a fixed number of partitions: the
  /// embedded default, where source partitions are input files.
  kByKeyHash,
  /// A record's state partition is its source partition: Kafka, where the producer
  /// already partitioned by key, so each Kafka partition's state moves as a unit.
  ///
  /// Each state partition then keeps its own watermark, over its own source partition
  /// only: every record of a key comes through that one partition, so the minimum over
  /// other partitions would protect nothing, and it would make `late` (and so the rows)
  /// depend on how a consumer's fetches interleave partitions and on which partitions it
  /// happened to own (docs/scale-out.md, "Watermarks"). With a watermark per partition,
  /// the rows of a partition are a function of that partition's records alone, which is
  /// what lets partitions move between processes, and crash, without changing a row.
  kBySourcePartition,
};

/// Runs rules 2-7 and the jobs over records offered in arrival order.
///
/// Offer() applies the record-level rules 2-4 and the late check (rule 7) against the
/// watermark as it stands at that record, then feeds the watermark and queues the record
/// for its state partition. Advance() processes every queued record and releases what the
/// watermark allows, partitions in parallel. The rows produced depend only on the records
/// offered (and their order within each source partition), never on when Advance() or
/// epoch boundaries happen, nor on how many partitions there are.
///
/// Not thread-safe: one thread offers and advances; partitions run on the worker pool.
class Pipeline {
 public:
  Pipeline(JobConfig config, Routing routing, std::int32_t partitions,
           model::SourceCatalog* catalog, std::size_t threads = 1);

  void Offer(base::PartitionId source_partition, model::Position&& position);
  void Offer(base::PartitionId source_partition, model::Rejection&& rejection);
  /// The same for records interned already, by interner(), with the hash of their key
  /// (KeyHash of the hashes the interner gave).
  void Offer(base::PartitionId source_partition, model::PositionRecord&& position,
             std::uint64_t key_hash);
  void Offer(base::PartitionId source_partition, model::RejectionRecord&& rejection,
             std::uint64_t key_hash);
  /// The interner of the pipeline's dictionary, for a reader that interns records on
  /// another thread (source::ReplaySource on the decoding thread) and offers them with
  /// the overloads above. While it does, the pipeline's thread must not offer records
  /// that are not interned: the dictionary has one writer at a time.
  [[nodiscard]] model::RecordInterner& interner() { return interner_; }
  /// The hash a record's key is routed by (engine::KeyRef::CombineHashes of its texts').
  static std::uint64_t KeyHash(const model::KeyTextHashes& hashes) {
    return engine::KeyRef::CombineHashes(hashes.feed, hashes.vehicle);
  }
  /// Processes everything offered so far up to the current watermark.
  void Advance();
  /// Whether a runner that advances between batches of input should advance now: once
  /// `min_records` were offered since the last Advance(), and at least
  /// kOfferedPerVehicleToAdvance per vehicle held (at most kMaxOfferedBeforeAdvance).
  ///
  /// An Advance() costs per vehicle it releases, not per record: the vehicle's entry,
  /// buffer and state are read from memory, its place in the due queue taken and given
  /// back. A fixed 16,384 records is 4.5 records per vehicle on the Rio day (3,600
  /// vehicles), but 0.5 on a day 8 times larger (35,000), where each vehicle's reads miss
  /// the cache, so the engine's time per record would grow with the fleet; advancing
  /// after 4 per vehicle instead made the larger day a third faster and the Rio day no
  /// slower (bench/engine_ceiling on both: docs/performance.md, "Measurements behind
  /// design choices"). Records wait in the partitions' queues meanwhile; the rows are the same
  /// either way (the class comment), emitted in fewer, larger steps;
  /// kMaxOfferedBeforeAdvance bounds what waits, however large the fleet.
  [[nodiscard]] bool AdvanceDue(std::size_t min_records) const;
  static constexpr std::size_t kOfferedPerVehicleToAdvance = 4;
  static constexpr std::size_t kMaxOfferedBeforeAdvance = std::size_t{1} << 20;
  /// Live input only: no record still to come has an earlier ingest time (see
  /// engine::WatermarkTracker::AdvanceIngestTime); lets the watermark move while feeds
  /// are silent. Advance() then releases what it allows.
  void AdvanceIngestTime(base::Timestamp ingest_time) { watermark_.AdvanceIngestTime(ingest_time); }
  /// End of recorded input: the watermark jumps to its maximum; everything is emitted. A
  /// position offered afterwards (the next day's input, in this run or a later one that
  /// restored this state) reopens the watermark at the latest event time seen
  /// (engine::WatermarkTracker::Reopen): later positions are processed as if the input had
  /// never ended, earlier ones are late.
  void Finish();
  /// Rows emitted since the last call (all partitions).
  model::EpochRows TakeRows();

  /// kByKeyHash: the watermark. kBySourcePartition: the smallest partition watermark
  /// (kWatermarkMin without partitions).
  [[nodiscard]] base::Timestamp watermark() const;
  /// The latest event time of any record the watermark has seen (kWatermarkMin before
  /// any): where "the newest data" stands, for retention.
  [[nodiscard]] base::Timestamp LatestEventTime() const;
  /// Whether every record was released: after Finish(), or (kBySourcePartition) when
  /// every partition was finished.
  [[nodiscard]] bool finished() const;
  [[nodiscard]] std::int32_t partition_count() const {
    return static_cast<std::int32_t>(shards_.size());
  }
  [[nodiscard]] std::size_t vehicle_count() const;
  [[nodiscard]] std::size_t pending_records() const;
  /// The strings of every record's ids (rows refer to it).
  [[nodiscard]] const std::shared_ptr<model::StringDictionary>& strings() const { return strings_; }
  /// Where a runner gives back the positions and rejections of rows it has written, for
  /// TakeRows to fill again (thread-safe: the runner's commit thread may give them).
  [[nodiscard]] model::RowBuffers& row_buffers() { return row_buffers_; }

  /// Kafka routing: create (or drop) the state of a source partition on assignment.
  /// AddPartition of a partition already present does nothing; DropPartition forgets the
  /// partition's state, watermark and queued records (the caller has committed them, or
  /// gives them up to whoever restores the partition from the sink).
  void AddPartition(base::PartitionId partition);
  void DropPartition(base::PartitionId partition);
  [[nodiscard]] bool HasPartition(base::PartitionId partition) const;
  /// The partitions present, in the order they were added (kBySourcePartition).
  [[nodiscard]] std::vector<base::PartitionId> Partitions() const;

  /// kBySourcePartition: end of input of one source partition (a Kafka end-of-input
  /// marker). Its watermark jumps to the maximum; the next Advance() emits everything
  /// the partition holds. A position it receives afterwards reopens it, as after Finish().
  void FinishPartition(base::PartitionId partition);
  /// kBySourcePartition: one partition's watermark (kWatermarkMin if absent).
  [[nodiscard]] base::Timestamp PartitionWatermark(base::PartitionId partition) const;

  /// kBySourcePartition: one partition's sealed state together with its watermark
  /// progress (what moves with the partition when another process takes it over), and
  /// its restoration, which creates the partition or replaces its state. Call Advance()
  /// first: records offered but not yet advanced are not part of the snapshot.
  [[nodiscard]] std::string SnapshotPartition(base::PartitionId partition) const;
  base::Status RestorePartition(base::PartitionId partition, std::string_view bytes);

  /// Sealed state of every partition (kBySourcePartition: SnapshotPartition of each), and
  /// of the runner (watermark; kBySourcePartition keeps no state outside partitions).
  [[nodiscard]] std::vector<engine::PartitionState> SnapshotPartitions() const;
  [[nodiscard]] std::string SnapshotRunner() const;
  /// Restores from a recovered checkpoint. The partition count must match the one the
  /// state was written with (kByKeyHash): the error says so. kBySourcePartition restores
  /// each state with RestorePartition and needs no runner state.
  base::Status Restore(const engine::RecoveredCheckpoint& checkpoint);

 private:
  struct Inbox {
    std::vector<model::PositionRecord> positions;
    std::vector<model::RejectionRecord> rejections;
  };
  /// Queues an interned rejection for the shard of its key.
  void OfferRejection(base::PartitionId source_partition, model::RejectionRecord&& rejection,
                      std::uint64_t key_hash);

  std::size_t ShardIndexFor(base::PartitionId source_partition, std::uint64_t key_hash);
  [[nodiscard]] std::size_t FindShard(base::PartitionId partition) const;  // size(): absent

  JobConfig config_;
  Routing routing_;
  model::SourceCatalog* catalog_;
  std::shared_ptr<model::StringDictionary> strings_ = std::make_shared<model::StringDictionary>();
  model::RecordInterner interner_{strings_};
  engine::WatermarkTracker watermark_;  // kByKeyHash
  model::RowBuffers row_buffers_;       // before shards_, which refill from it
  std::vector<std::unique_ptr<Shard>> shards_;
  std::vector<Inbox> inboxes_;
  std::size_t offered_since_advance_ = 0;  // records queued in inboxes_ (AdvanceDue)
  std::vector<engine::WatermarkTracker> partition_watermarks_;  // kBySourcePartition, by shard
  engine::WorkerPool pool_;
};

}  // namespace frota::job
