#include "frota/engine/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace frota::engine {
namespace {

TEST(WorkerPool, RunsEveryTaskExactlyOnceBatchAfterBatch) {
  WorkerPool pool(3);
  for (int batch = 0; batch < 200; ++batch) {
    std::vector<std::atomic<int>> hits(17);
    pool.ParallelFor(hits.size(), [&](std::size_t i) { hits[i].fetch_add(1); });
    for (const auto& h : hits) {
      ASSERT_EQ(h.load(), 1);
    }
  }
}

TEST(WorkerPool, WithoutWorkersRunsInline) {
  WorkerPool pool(0);
  int sum = 0;
  pool.ParallelFor(4, [&](std::size_t i) { sum += static_cast<int>(i); });
  EXPECT_EQ(sum, 6);
}

}  // namespace
}  // namespace frota::engine
