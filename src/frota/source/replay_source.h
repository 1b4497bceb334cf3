// Recorded inputs as one stream: source partitions merged in ingest-time order.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/strong_id.h"
#include "frota/codec/decode.h"
#include "frota/engine/transactional_sink.h"
#include "frota/model/position.h"
#include "frota/model/position_record.h"
#include "frota/model/record_interner.h"
#include "frota/model/rejection.h"
#include "frota/model/rejection_record.h"
#include "frota/model/source.h"
#include "frota/source/input.h"

namespace frota::source {

/// One decoded record and where it came from.
struct SourceRecord {
  base::PartitionId partition;
  std::int64_t offset = 0;
  base::Timestamp order_time;  // the ingest time that orders the merge
  std::variant<model::Position, model::Rejection> record;
};

/// One decoded record with its strings interned (model::RecordInterner) and the hash its
/// key is routed by (engine::KeyRef::CombineHashes of its feed and vehicle texts' hashes,
/// as job::Pipeline::KeyHash): what a replay hands the pipeline, smaller than a
/// SourceRecord, made on the decoding thread.
struct InternedRecord {
  base::PartitionId partition;
  std::int64_t offset = 0;
  std::uint64_t key_hash = 0;
  std::variant<model::PositionRecord, model::RejectionRecord> record;
};

/// Options shared by every partition of a replay.
struct ReplayOptions {
  std::optional<model::Mode> mode;
  std::string time_zone = "America/Sao_Paulo";
  std::size_t chunk_records = 8192;  // decoded per partition at a time
};

/// Reads source partitions (files, folders of responses) and yields their records merged
/// by ingest time: always the partition whose next record has the earliest ingest time
/// (ties: lower partition id). Within a partition, records come in offset order.
///
/// Replaying a day from many files is thus what live collection would have seen: ingest
/// time grows, so the watermark advances smoothly and nothing is late for want of order.
/// Resuming: partitions skip the records before their committed offsets.
/// Not thread-safe.
class ReplaySource {
 public:
  /// `resume` maps partition names to (partition id, next offset) from a previous run;
  /// partitions not in it get fresh ids after the largest known one.
  static base::Result<std::unique_ptr<ReplaySource>> Open(
      std::vector<PartitionInput> partitions, model::SourceCatalog* catalog, ReplayOptions options,
      const std::vector<engine::SourceProgress>& resume);
  ~ReplaySource();

  /// Moves up to `max_records` records into `out` (cleared first); false when every
  /// partition is exhausted and nothing was moved.
  base::Result<bool> Next(std::vector<SourceRecord>& out, std::size_t max_records);
  /// The same records, interned by `interner` as they are decoded (a Rio archive CSV row
  /// by row, from the file's text). A source is read one way throughout: the first Next
  /// decides, and always the same interner.
  base::Result<bool> Next(std::vector<InternedRecord>& out, std::size_t max_records,
                          model::RecordInterner& interner);

  /// For each partition, the offset after the last record handed out by Next().
  [[nodiscard]] std::vector<engine::SourceProgress> Progress() const;
  /// Records skipped at start because a previous run had committed them.
  [[nodiscard]] std::int64_t skipped_records() const;
  [[nodiscard]] std::int64_t bytes_read() const;
  [[nodiscard]] const std::vector<PartitionInput>& partitions() const { return inputs_; }

  class Partition;

 private:
  ReplaySource() = default;
  // Next's merge, each record put in `out` by pop(partition, out).
  template <typename Record, typename Pop>
  base::Result<bool> Merge(std::vector<Record>& out, std::size_t max_records, Pop pop);
  std::vector<PartitionInput> inputs_;
  std::vector<std::unique_ptr<Partition>> partitions_;
  std::vector<std::size_t> ready_;      // heap of partitions with a record ready (Next)
  std::optional<std::size_t> current_;  // the partition whose turn it is, not in ready_
  bool merging_ = false;
  model::RecordInterner* interner_ = nullptr;  // set by the first Next that interns
};

/// Runs a ReplaySource on a background thread, a few batches ahead of the consumer, so
/// decoding overlaps processing. Progress() reflects the batches taken, not read ahead.
/// `Record`: SourceRecord, or InternedRecord when the reading thread interns (see
/// InterningPrefetchingSource).
template <typename Record>
class BasicPrefetchingSource {
 public:
  /// How the reading thread fills a batch: ReplaySource::Next of one kind or the other.
  using Fill = std::function<base::Result<bool>(ReplaySource&, std::vector<Record>&, std::size_t)>;
  BasicPrefetchingSource(std::unique_ptr<ReplaySource> source, std::size_t batch_records, Fill fill,
                         std::size_t depth = 3);
  ~BasicPrefetchingSource();
  BasicPrefetchingSource(const BasicPrefetchingSource&) = delete;
  BasicPrefetchingSource& operator=(const BasicPrefetchingSource&) = delete;

  /// The next batch (false at end), or the reader's error.
  base::Result<bool> Next(std::vector<Record>& out);
  /// Offsets after the last batch returned by Next().
  [[nodiscard]] std::vector<engine::SourceProgress> Progress() const { return progress_; }
  /// The source, for its counters; read it once Next() has returned false or an error.
  [[nodiscard]] const ReplaySource& source() const { return *source_; }

 private:
  struct Batch {
    std::vector<Record> records;
    std::vector<engine::SourceProgress> progress;
    std::optional<base::Error> error;
    bool end = false;
  };
  void Run();

  std::unique_ptr<ReplaySource> source_;
  std::size_t batch_records_;
  Fill fill_;
  std::size_t depth_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> ready_;
  std::vector<std::vector<Record>> spare_;  // emptied batches, for the reader to fill
  bool stop_ = false;
  std::vector<engine::SourceProgress> progress_;
  std::thread thread_;
};

/// Decoded records as they are.
class PrefetchingSource : public BasicPrefetchingSource<SourceRecord> {
 public:
  PrefetchingSource(std::unique_ptr<ReplaySource> source, std::size_t batch_records,
                    std::size_t depth = 3);
};

/// Decoded records interned on the reading thread, which is then the dictionary's
/// writer: while it runs, nothing else may intern into `interner`'s dictionary.
class InterningPrefetchingSource : public BasicPrefetchingSource<InternedRecord> {
 public:
  InterningPrefetchingSource(std::unique_ptr<ReplaySource> source, std::size_t batch_records,
                             model::RecordInterner& interner, std::size_t depth = 3);
};

extern template class BasicPrefetchingSource<SourceRecord>;
extern template class BasicPrefetchingSource<InternedRecord>;

}  // namespace frota::source
