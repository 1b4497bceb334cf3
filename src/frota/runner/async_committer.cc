#include "frota/runner/async_committer.h"

namespace frota::runner {

AsyncCommitter::AsyncCommitter(Sink& sink, std::function<void(std::int64_t)> after_commit)
    : sink_(sink), after_commit_(std::move(after_commit)) {
  thread_ = std::thread([this] { Run(); });
}

AsyncCommitter::~AsyncCommitter() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

base::Status AsyncCommitter::Submit(model::EpochRows rows, engine::EpochCheckpoint checkpoint) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !busy_ && !pending_; });
  if (error_) {
    return *error_;
  }
  pending_.emplace(std::move(rows), std::move(checkpoint));
  busy_ = true;
  changed_.notify_all();
  return base::Status::Ok();
}

base::Status AsyncCommitter::Drain() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !busy_ && !pending_; });
  if (error_) {
    return *error_;
  }
  return base::Status::Ok();
}

void AsyncCommitter::Run() {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stop_ || pending_.has_value(); });
    if (!pending_) {
      return;  // stopping with nothing left
    }
    auto work = std::move(*pending_);
    pending_.reset();
    lock.unlock();
    const auto status = sink_.Commit(work.first, work.second);
    if (status.ok() && after_commit_) {
      after_commit_(work.second.epoch.value());
    }
    lock.lock();
    if (!status.ok()) {
      error_ = status.error();
    }
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace frota::runner
