#include "frota/runner/async_committer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace frota::runner {
namespace {

// Records what reaches it, in order; streams or not; fails where it is told to.
class RecordingSink final : public engine::TransactionalSink<model::EpochRows> {
 public:
  explicit RecordingSink(bool streams) : streams_(streams) {}
  base::Result<engine::RecoveredCheckpoint> Recover() override {
    return engine::RecoveredCheckpoint{};
  }
  bool StreamsRows() const override { return streams_; }
  base::Status Write(const model::EpochRows& rows) override {
    log.push_back("write " + std::to_string(rows.positions.size()));
    if (fail_writes) {
      return base::Unavailable("write refused");
    }
    return base::Status::Ok();
  }
  base::Status Commit(const model::EpochRows& rows,
                      const engine::EpochCheckpoint& checkpoint) override {
    log.push_back("commit " + std::to_string(checkpoint.epoch.value()) + " with " +
                  std::to_string(rows.positions.size()));
    return base::Status::Ok();
  }
  std::vector<std::string> log;
  bool fail_writes = false;

 private:
  bool streams_;
};

model::EpochRows Positions(std::size_t n) {
  // One pipeline's rows share its dictionary.
  static const auto kStrings = std::make_shared<model::StringDictionary>();
  model::EpochRows rows;
  rows.strings = kStrings;
  rows.positions.resize(n);
  return rows;
}

engine::EpochCheckpoint Epoch(std::int64_t epoch) {
  engine::EpochCheckpoint c;
  c.epoch = base::EpochId(epoch);
  return c;
}

TEST(AsyncCommitter, AStreamingSinkGetsEachWriteAsItComesThenTheCommit) {
  RecordingSink sink(/*streams=*/true);
  {
    AsyncCommitter committer(sink);
    ASSERT_TRUE(committer.Write(Positions(3)).ok());
    ASSERT_TRUE(committer.Write(Positions(0)).ok());  // nothing: not handed over
    ASSERT_TRUE(committer.Write(Positions(2)).ok());
    ASSERT_TRUE(committer.Submit(Positions(1), Epoch(1)).ok());
    ASSERT_TRUE(committer.Write(Positions(4)).ok());
    ASSERT_TRUE(committer.Submit(model::EpochRows(), Epoch(2)).ok());
    ASSERT_TRUE(committer.Drain().ok());
  }
  EXPECT_EQ(sink.log, (std::vector<std::string>{"write 3", "write 2", "commit 1 with 1", "write 4",
                                                "commit 2 with 0"}));
}

TEST(AsyncCommitter, AnyOtherSinkGetsTheWholeEpochInItsCommit) {
  RecordingSink sink(/*streams=*/false);
  {
    AsyncCommitter committer(sink);
    ASSERT_TRUE(committer.Write(Positions(3)).ok());
    ASSERT_TRUE(committer.Write(Positions(2)).ok());
    ASSERT_TRUE(committer.Submit(Positions(1), Epoch(1)).ok());
    ASSERT_TRUE(committer.Submit(Positions(5), Epoch(2)).ok());
    ASSERT_TRUE(committer.Drain().ok());
  }
  EXPECT_EQ(sink.log, (std::vector<std::string>{"commit 1 with 6", "commit 2 with 5"}));
}

TEST(AsyncCommitter, TheFirstFailureStopsEveryLaterCommit) {
  RecordingSink sink(/*streams=*/true);
  sink.fail_writes = true;
  AsyncCommitter committer(sink);
  ASSERT_TRUE(committer.Write(Positions(3)).ok());  // fails on the commit thread
  base::Status status;
  // Sooner or later a call sees the failure; the epoch is never committed.
  for (int i = 0; i < 100 && status.ok(); ++i) {
    status = committer.Submit(model::EpochRows(), Epoch(1));
  }
  const auto drained = committer.Drain();
  ASSERT_FALSE(drained.ok());
  EXPECT_NE(drained.error().message().find("write refused"), std::string::npos);
  for (const auto& line : sink.log) {
    EXPECT_EQ(line.rfind("commit", 0), std::string::npos) << line;
  }
}

// A streaming sink whose writes wait until the test opens it.
class GatedSink final : public engine::TransactionalSink<model::EpochRows> {
 public:
  base::Result<engine::RecoveredCheckpoint> Recover() override {
    return engine::RecoveredCheckpoint{};
  }
  bool StreamsRows() const override { return true; }
  base::Status Write(const model::EpochRows& rows) override {
    std::unique_lock lock(mutex_);
    ++writes_started_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return open_; });
    log_.push_back(rows.positions.size());
    return base::Status::Ok();
  }
  base::Status Commit(const model::EpochRows& /*rows*/,
                      const engine::EpochCheckpoint& /*checkpoint*/) override {
    return base::Status::Ok();
  }
  void WaitForWrites(int n) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return writes_started_ >= n; });
  }
  void Open() {
    const std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  std::vector<std::size_t> log() {
    const std::lock_guard lock(mutex_);
    return log_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int writes_started_ = 0;
  bool open_ = false;
  std::vector<std::size_t> log_;
};

TEST(AsyncCommitter, BoundsTheRowsWaitingNotOnlyTheWrites) {
  GatedSink sink;
  AsyncCommitter committer(sink);
  ASSERT_TRUE(committer.Write(Positions(1)).ok());
  sink.WaitForWrites(1);  // the commit thread holds it: nothing waits
  // A write larger than the bound is queued when nothing else waits...
  ASSERT_TRUE(committer.Write(Positions(AsyncCommitter::kMaxQueuedRows + 1)).ok());
  // ...and the next, however small, waits for room.
  std::atomic<bool> returned = false;
  std::thread writer([&] {
    EXPECT_TRUE(committer.Write(Positions(2)).ok());
    returned = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(returned.load()) << "a write went past the bound of queued rows";
  sink.Open();
  writer.join();
  ASSERT_TRUE(committer.Drain().ok());
  EXPECT_EQ(sink.log(), (std::vector<std::size_t>{1, AsyncCommitter::kMaxQueuedRows + 1, 2}));
}

TEST(AsyncCommitter, AfterCommitGetsEachEpochsOwnCheckpointWhileOthersWait) {
  // The sink holds its first write until the test opens it: three epochs wait behind it,
  // and each one's callback must carry that epoch's watermark and records, not those of
  // the epoch submitted last.
  GatedSink sink;
  std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> seen;
  std::mutex seen_mutex;
  AsyncCommitter committer(sink, [&](const engine::EpochCheckpoint& c) {
    const std::lock_guard lock(seen_mutex);
    seen.emplace_back(c.epoch.value(), base::ToUnixMicros(c.watermark), c.records);
  });
  ASSERT_TRUE(committer.Write(Positions(1)).ok());
  sink.WaitForWrites(1);
  for (std::int64_t e = 1; e <= 3; ++e) {
    engine::EpochCheckpoint c = Epoch(e);
    c.watermark = base::FromUnixMicros(1000 * e);
    c.records = 10 * e;
    ASSERT_TRUE(committer.Submit(model::EpochRows(), std::move(c)).ok());
  }
  sink.Open();
  ASSERT_TRUE(committer.Drain().ok());
  const std::lock_guard lock(seen_mutex);
  EXPECT_EQ(seen, (std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
                      {1, 1000, 10}, {2, 2000, 20}, {3, 3000, 30}}));
}

}  // namespace
}  // namespace frota::runner
