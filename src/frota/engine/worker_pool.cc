#include "frota/engine/worker_pool.h"

#include "frota/base/file.h"

namespace frota::engine {

WorkerPool::WorkerPool(std::size_t workers) {
  threads_.reserve(workers);
  for (std::size_t i = 0; i < workers; ++i) {
    threads_.emplace_back([this] {
      base::NameThisThread("frota-worker");
      Work();
    });
  }
}

WorkerPool::~WorkerPool() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) {
    t.join();
  }
}

bool WorkerPool::TakeTask(std::size_t& index) {
  if (task_ == nullptr || next_ >= count_) {
    return false;
  }
  index = next_++;
  return true;
}

void WorkerPool::ParallelFor(std::size_t n, const std::function<void(std::size_t)>& task) {
  if (n == 0) {
    return;
  }
  if (threads_.empty() || n == 1) {
    for (std::size_t i = 0; i < n; ++i) {
      task(i);
    }
    return;
  }
  std::unique_lock lock(mutex_);
  task_ = &task;
  next_ = 0;
  count_ = n;
  finished_ = 0;
  ++generation_;
  wake_.notify_all();
  std::size_t index = 0;
  while (TakeTask(index)) {
    lock.unlock();
    task(index);
    lock.lock();
    ++finished_;
  }
  done_.wait(lock, [this] { return finished_ == count_; });
  task_ = nullptr;
}

void WorkerPool::Work() {
  std::size_t seen_generation = 0;
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stop_ || (task_ != nullptr && generation_ != seen_generation); });
    if (stop_) {
      return;
    }
    seen_generation = generation_;
    std::size_t index = 0;
    while (TakeTask(index)) {
      const auto* task = task_;
      lock.unlock();
      (*task)(index);
      lock.lock();
      ++finished_;
      if (finished_ == count_) {
        done_.notify_all();
      }
    }
  }
}

}  // namespace frota::engine
