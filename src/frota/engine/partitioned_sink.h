// The contract between a scale-out runner and a sink whose state is kept per source partition.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/strong_id.h"
#include "frota/base/time.h"
#include "frota/engine/transactional_sink.h"

namespace frota::engine {

/// What a sink holds for one source partition of a stream (a Kafka topic partition).
struct PartitionCheckpoint {
  base::PartitionId partition;
  std::optional<base::Offset> next_offset;  // nullopt: nothing committed yet
  std::string state;                        // sealed state + watermark; empty: none yet
  bool finished = false;                    // its end-of-input marker is committed
};

/// One epoch of a process that owns some partitions of a stream.
struct PartitionedEpoch {
  base::EpochId epoch;                      // per process run, 1, 2, 3...
  base::Timestamp watermark;                // the smallest watermark of the partitions owned
  std::int64_t records = 0;                 // messages consumed in the epoch
  std::vector<SourceProgress> progress;     // every partition the epoch consumed from
  std::vector<PartitionState> states;       // their state after the epoch
  std::vector<base::PartitionId> finished;  // those whose end-of-input marker it consumed
  Retention retention;                      // old rows removed after the epoch commits
};

enum class CommitOutcome {
  kCommitted,
  /// Nothing was written: another process committed one of the epoch's partitions since
  /// this sink acquired (or last committed) it. This process's state of its partitions
  /// is no longer the committed one; it must acquire them again and resume from there.
  kFenced,
};

/// A sink for N processes that share a stream's partitions (a consumer group). Each
/// process acquires the partitions it is assigned, commits epochs carrying only its own
/// partitions, and releases partitions it gives up.
///
/// Protocol (docs/scale-out.md lists every crash case):
///  - Acquire(stream, partitions): the committed checkpoint of each partition (offset,
///    state, finished), and from now on the sink remembers which committed version of
///    each partition this process holds.
///  - CommitPartitions(rows, epoch): in ONE transaction, the rows, the progress and state
///    of the epoch's partitions and a ledger row, IF every one of those partitions is
///    still at the version this process holds; else nothing (kFenced). Two processes
///    that both believe they own a partition (a consumer expelled from the group that has
///    not noticed yet) can therefore never both commit work derived from the same
///    committed version: the second is fenced and restarts from the first's commit.
///  - A commit that fails (an error, a crash, the database down) leaves everything as it
///    was; a retry of the same epoch is allowed.
///  - Release(partitions): forgets them.
template <typename Rows>
class PartitionedSink {
 public:
  virtual ~PartitionedSink() = default;
  virtual base::Result<std::vector<PartitionCheckpoint>> Acquire(
      std::string_view stream, const std::vector<base::PartitionId>& partitions) = 0;
  virtual void Release(const std::vector<base::PartitionId>& partitions) = 0;
  virtual base::Result<CommitOutcome> CommitPartitions(const Rows& rows,
                                                       const PartitionedEpoch& epoch) = 0;
  /// How many partitions of `stream` have committed their end-of-input marker.
  virtual base::Result<std::int64_t> FinishedPartitions(std::string_view stream) = 0;
};

}  // namespace frota::engine
