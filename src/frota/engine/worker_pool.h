// A fixed pool of worker threads that runs one batch of independent tasks at a time.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace frota::engine {

/// Runs `ParallelFor(n, task)` as task(0..n-1) on the calling thread plus `workers`
/// threads, returning when all are done. Used to advance state partitions in parallel
/// at each micro-batch. One ParallelFor at a time (the caller serialises).
class WorkerPool {
 public:
  explicit WorkerPool(std::size_t workers);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void ParallelFor(std::size_t n, const std::function<void(std::size_t)>& task);
  [[nodiscard]] std::size_t workers() const { return threads_.size(); }

 private:
  void Work();
  bool TakeTask(std::size_t& index);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(std::size_t)>* task_ = nullptr;
  std::size_t next_ = 0;
  std::size_t count_ = 0;
  std::size_t finished_ = 0;
  std::size_t generation_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace frota::engine
