#include "frota/runner/async_committer.h"

#include "frota/base/file.h"

namespace frota::runner {

AsyncCommitter::AsyncCommitter(Sink& sink, AfterCommit after_commit, model::RowBuffers* written)
    : sink_(sink),
      streams_(sink.StreamsRows()),
      after_commit_(std::move(after_commit)),
      written_(written) {
  thread_ = std::thread([this] {
    base::NameThisThread("frota-sink");
    Run();
  });
}

AsyncCommitter::~AsyncCommitter() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

base::Status AsyncCommitter::Enqueue(Work work) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] {
    return error_.has_value() || queue_.empty() ||
           (queue_.size() < kMaxQueued && queued_rows_ < kMaxQueuedRows);
  });
  if (error_) {
    return *error_;
  }
  queued_rows_ += work.rows.RowCount();
  queue_.push_back(std::move(work));
  changed_.notify_all();
  return base::Status::Ok();
}

base::Status AsyncCommitter::Write(model::EpochRows rows) {
  if (rows.RowCount() == 0) {
    return base::Status::Ok();
  }
  return Enqueue(Work{std::move(rows), std::nullopt});
}

base::Status AsyncCommitter::Submit(model::EpochRows rows, engine::EpochCheckpoint checkpoint) {
  return Enqueue(Work{std::move(rows), std::move(checkpoint)});
}

base::Status AsyncCommitter::Drain() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return error_.has_value() || (queue_.empty() && !busy_); });
  if (error_) {
    return *error_;
  }
  return base::Status::Ok();
}

base::Status AsyncCommitter::Perform(Work& work) {
  if (!work.checkpoint) {
    if (streams_) {
      return sink_.Write(work.rows);
    }
    gathered_.Append(std::move(work.rows));
    return base::Status::Ok();
  }
  if (!streams_ && gathered_.RowCount() > 0) {
    gathered_.Append(std::move(work.rows));
    work.rows = std::move(gathered_);
    gathered_ = model::EpochRows();
  }
  FROTA_RETURN_IF_ERROR(sink_.Commit(work.rows, *work.checkpoint));
  if (after_commit_) {
    after_commit_(*work.checkpoint);
  }
  return base::Status::Ok();
}

void AsyncCommitter::Run() {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) {
      return;  // stopping with nothing left
    }
    Work work = std::move(queue_.front());
    queue_.pop_front();
    queued_rows_ -= work.rows.RowCount();
    busy_ = true;
    changed_.notify_all();  // room in the queue
    lock.unlock();
    const auto status = error_ ? base::Status::Ok() : Perform(work);
    if (written_ != nullptr) {
      written_->Give(work.rows);
    }
    work = Work{};  // the other rows are freed here, off the submitting thread
    lock.lock();
    if (!status.ok() && !error_) {
      error_ = status.error();
    }
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace frota::runner
