// The contract between the engine and a sink that commits each epoch exactly once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/strong_id.h"
#include "frota/base/time.h"

namespace frota::engine {

/// Where one source partition's reading stands: the next offset to read.
struct SourceProgress {
  std::string source;  // stable name: a file path, an archive feed, "topic/partition"
  base::PartitionId partition;
  base::Offset next_offset;
};

/// Opaque operator state of one state partition, sealed by SealCheckpoint.
struct PartitionState {
  base::PartitionId partition;
  std::string bytes;
  /// The partition's own watermark, for a sink that publishes it (a Kafka partition's,
  /// read by a follower: followed_stream.h); Timestamp::min() when not known.
  base::Timestamp watermark = base::Timestamp::min();
};

/// Retention (`--retain-days`, `--retain-results-days`): rows placed on a local date
/// before `before` go, removed at an epoch boundary with that epoch's commit. A row placed
/// by an instant goes when the instant is before `before_instant`, the first instant of
/// `before` in the feed's time zone (the runner, which knows the zone, gives both).
struct RetentionCut {
  base::LocalDate before;
  base::Timestamp before_instant;
  bool operator==(const RetentionCut&) const = default;
};

/// What an epoch removes besides what it writes: raw input (silver and the bronze it came
/// from) and results older than their cuts; nothing where a cut is absent.
struct Retention {
  std::optional<RetentionCut> raw;
  std::optional<RetentionCut> results;
  [[nodiscard]] bool empty() const { return !raw && !results; }
  bool operator==(const Retention&) const = default;
};

/// What the engine hands a sink at each epoch boundary besides the rows.
struct EpochCheckpoint {
  base::EpochId epoch;
  base::Timestamp watermark;             // after the epoch
  std::int64_t records = 0;              // source records consumed in the epoch
  std::vector<SourceProgress> progress;  // every source partition read so far
  std::vector<PartitionState> states;    // every state partition owned
  std::string runner_state;              // watermark and other runner state, sealed
  Retention retention;                   // old rows the epoch removes
};

/// What a sink restores from on start.
struct RecoveredCheckpoint {
  base::EpochId last_epoch{0};  // 0: nothing committed yet
  std::vector<SourceProgress> progress;
  std::vector<PartitionState> states;
  std::string runner_state;  // empty when nothing was committed
};

/// A sink that commits an epoch's rows, source progress and state atomically.
///
/// Protocol (the same for DuckDB and PostgreSQL):
///  - Recover() on start: the last committed checkpoint, or an empty one.
///  - Commit(rows, checkpoint) for epochs 1, 2, 3...: either everything of the epoch is
///    durable (rows, progress, states, ledger row) or nothing is.
///  - A crash before Commit returns leaves the previous epoch as the last one; the runner
///    restarts from it and produces the same rows again (the input and the restored state
///    determine them), so nothing is lost and nothing is written twice.
///  - A Commit that fails returns an error and leaves the sink as it was; the runner may
///    retry the same epoch.
///  - Streaming, for a sink whose StreamsRows() is true: Write(rows) any number of times
///    before a Commit hands it rows of the epoch that Commit ends, which the sink writes
///    into that epoch's open transaction at once, so that no epoch is held in memory
///    whole. The epoch is everything written plus Commit's rows. A Write that fails rolls
///    the epoch back and returns the error; so does every later Write of the epoch and
///    its Commit (retrying means writing the epoch again). Runners hand rows to sinks
///    that do not stream in one Commit (runner::AsyncCommitter does both).
template <typename Rows>
class TransactionalSink {
 public:
  virtual ~TransactionalSink() = default;
  virtual base::Result<RecoveredCheckpoint> Recover() = 0;
  virtual base::Status Commit(const Rows& rows, const EpochCheckpoint& checkpoint) = 0;
  [[nodiscard]] virtual bool StreamsRows() const { return false; }
  virtual base::Status Write(const Rows& /*rows*/) {
    return base::Internal("this sink takes an epoch's rows in its Commit only");
  }
};

}  // namespace frota::engine
