// Commits epochs on a background thread, one at a time and in order, while the next runs.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "frota/base/status.h"
#include "frota/engine/transactional_sink.h"
#include "frota/model/rows.h"

namespace frota::runner {

/// Hands epochs to a TransactionalSink on its own thread, so the sink's work (DuckDB
/// compression, PostgreSQL round trips) overlaps decoding and the jobs of the next epoch.
///
/// At most one epoch is in flight: Submit() first waits for the previous commit and
/// returns its error, if any, without submitting. Commits therefore happen in epoch order
/// and a failure stops the run with the previous epoch as the last durable one, as a
/// synchronous commit would. Drain() waits for the last commit. Not thread-safe: one
/// thread submits.
class AsyncCommitter {
 public:
  using Sink = engine::TransactionalSink<model::EpochRows>;
  /// `after_commit` (optional) runs on the commit thread after each successful commit.
  explicit AsyncCommitter(Sink& sink, std::function<void(std::int64_t)> after_commit = {});
  ~AsyncCommitter();
  AsyncCommitter(const AsyncCommitter&) = delete;
  AsyncCommitter& operator=(const AsyncCommitter&) = delete;

  base::Status Submit(model::EpochRows rows, engine::EpochCheckpoint checkpoint);
  base::Status Drain();

 private:
  void Run();

  Sink& sink_;
  std::function<void(std::int64_t)> after_commit_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<std::pair<model::EpochRows, engine::EpochCheckpoint>> pending_;
  bool busy_ = false;
  bool stop_ = false;
  std::optional<base::Error> error_;
  std::thread thread_;
};

}  // namespace frota::runner
