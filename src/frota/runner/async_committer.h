// Commits epochs on a background thread, one at a time and in order, while the next runs.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "frota/base/status.h"
#include "frota/engine/transactional_sink.h"
#include "frota/model/row_buffers.h"
#include "frota/model/rows.h"

namespace frota::runner {

/// Hands epochs to a TransactionalSink on its own thread, so the sink's work (DuckDB
/// compression, PostgreSQL round trips) overlaps decoding and the jobs of the next epoch.
///
/// Rows reach the sink in two ways. Write(rows) hands over rows of the open epoch as the
/// pipeline emits them: a sink that streams (StreamsRows) writes them at once into the
/// epoch's transaction, so an epoch never sits whole in memory; for any other sink the
/// commit thread gathers them until the epoch's Submit. Submit(rows, checkpoint) ends the
/// epoch. Writes and commits run in the order they were made; at most kMaxQueued of them,
/// holding at most about kMaxQueuedRows rows, wait, so Write and Submit block while the
/// sink is behind (back pressure, and a bound on memory).
///
/// A failure stops everything: Write, Submit and Drain return the first error, and no
/// later epoch is committed, so the previous epoch stays the last durable one, as a
/// synchronous commit would leave it. Drain() waits for everything handed over. Not
/// thread-safe: one thread writes and submits.
class AsyncCommitter {
 public:
  using Sink = engine::TransactionalSink<model::EpochRows>;
  // Each Write is the rows of one Advance of the pipeline (a replay's source batch of
  // 16,384 records on the Rio day), and the sink is the slowest stage, so the queue is
  // mostly full while it commits: the queued rows are the largest part of a replay's
  // peak memory. Fewer save memory but stall the pipeline during commits: on the
  // simulated Rio day 4 held the least at the peak but kept fewer cores busy, and 16
  // held less than 32 in the same wall time. 16, because peak memory is one of frota's
  // targets against Spark (bench/compare). The runs behind this, dated, with their
  // machines and numbers, are in docs/performance.md ("Measurements behind design
  // choices"), where a later run that changes the answer is to be added, newest first,
  // with its date and its machine.
  static constexpr std::size_t kMaxQueued = 16;
  // The same bound in rows, for writes larger than a batch's: a pipeline that advances
  // once per several batches (job::Pipeline::AdvanceDue, 8 times the Rio fleet) hands
  // over writes several times as large, and 16 of them held 140 MB more at the peak.
  // A write is queued whatever its size when nothing else waits.
  static constexpr std::size_t kMaxQueuedRows = kMaxQueued * 16384;
  /// `after_commit` (optional) runs on the commit thread after each successful commit,
  /// with that epoch's checkpoint (not the last one submitted: up to kMaxQueued wait).
  using AfterCommit = std::function<void(const engine::EpochCheckpoint&)>;
  /// `written` (optional) gets the positions and rejections of every write and commit
  /// back once the sink is done with them (model::RowBuffers::Give), for the pipeline
  /// that emitted them to fill again; it outlives the committer.
  explicit AsyncCommitter(Sink& sink, AfterCommit after_commit = {},
                          model::RowBuffers* written = nullptr);
  ~AsyncCommitter();
  AsyncCommitter(const AsyncCommitter&) = delete;
  AsyncCommitter& operator=(const AsyncCommitter&) = delete;

  /// Rows of the open epoch (the one the next Submit ends).
  base::Status Write(model::EpochRows rows);
  /// Ends the epoch: its last rows and its checkpoint.
  base::Status Submit(model::EpochRows rows, engine::EpochCheckpoint checkpoint);
  base::Status Drain();

 private:
  struct Work {
    model::EpochRows rows;
    std::optional<engine::EpochCheckpoint> checkpoint;  // none: a Write
  };
  base::Status Enqueue(Work work);
  void Run();
  base::Status Perform(Work& work);

  Sink& sink_;
  const bool streams_;
  AfterCommit after_commit_;
  model::RowBuffers* written_;
  model::EpochRows gathered_;  // commit thread only: Writes for a sink that does not stream
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Work> queue_;
  std::size_t queued_rows_ = 0;  // rows in queue_
  bool busy_ = false;            // the commit thread is performing a piece of work
  bool stop_ = false;
  std::optional<base::Error> error_;
  std::thread thread_;
};

}  // namespace frota::runner
