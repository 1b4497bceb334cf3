// The streaming departures, headways and alerts (regularity::Stream) on a simulated day:
// at the end of a replay they equal what `frota headways` computes in batch, row by
// row, whatever the epochs, the partitions or crashes between epochs.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "frota/batch/headways.h"
#include "frota/gtfs/static_feed.h"
#include "frota/runner/replay_runner.h"
#include "frota/sim/sim_test_util.h"
#include "frota/sim/simulator.h"
#include "frota/sink/duckdb_sink.h"

namespace frota::batch {
namespace {

using sim::testing_util::ScratchDir;
using sim::testing_util::SmallDay;

// A process that dies while committing epoch `crash_at`: nothing of that epoch lands
// (the open transaction goes when the sink is closed).
class CrashingSink final : public engine::TransactionalSink<model::EpochRows> {
 public:
  CrashingSink(engine::TransactionalSink<model::EpochRows>& inner, std::int64_t crash_at)
      : inner_(inner), crash_at_(crash_at) {}
  base::Result<engine::RecoveredCheckpoint> Recover() override { return inner_.Recover(); }
  base::Status Commit(const model::EpochRows& rows,
                      const engine::EpochCheckpoint& checkpoint) override {
    if (checkpoint.epoch.value() == crash_at_) {
      return base::Unavailable("crash before committing epoch {}", crash_at_);
    }
    return inner_.Commit(rows, checkpoint);
  }
  [[nodiscard]] bool StreamsRows() const override { return inner_.StreamsRows(); }
  base::Status Write(const model::EpochRows& rows) override { return inner_.Write(rows); }

 private:
  engine::TransactionalSink<model::EpochRows>& inner_;
  std::int64_t crash_at_;
};

class RegularityStreamTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("regularity-stream");
    auto options = SmallDay(dir_->path() / "day", 60);
    options.departures_between_s = std::pair(6 * 3600, 10 * 3600);
    auto summary = sim::Simulate(options);
    ASSERT_TRUE(summary.ok()) << summary.error().message();
    summary_ = new sim::SimulateSummary(std::move(*summary));
  }
  static void TearDownTestSuite() {
    delete summary_;
    delete dir_;
  }

  static runner::ReplayConfig Config(std::int32_t partitions, std::int64_t epoch_records) {
    runner::ReplayConfig replay;
    replay.inputs = {"archive:" + summary_->archive.string()};
    replay.gtfs = summary_->gtfs.string();
    replay.area = summary_->area.string();
    replay.partitions = partitions;
    replay.epoch_records = epoch_records;
    replay.epoch_records_per_state_unit = 0;
    replay.epoch_interval = std::chrono::hours(1);
    replay.batch_records = 2048;
    return replay;
  }

  // Replays into `name`, crashing while committing each epoch of `crashes` once (then
  // starting again on the same database, as a restarted process does).
  static std::filesystem::path Replay(const std::string& name, const runner::ReplayConfig& config,
                                      std::set<std::int64_t> crashes = {}) {
    const auto path = dir_->path() / name;
    auto context = runner::LoadReplayContext(config);
    EXPECT_TRUE(context.ok()) << context.error().message();
    for (int attempt = 0; attempt < 20; ++attempt) {
      model::SourceCatalog catalog;
      auto sink = sink::DuckDbSink::Open(path, &catalog, "regularity-stream-test");
      EXPECT_TRUE(sink.ok()) << sink.error().message();
      const std::int64_t crash_at = crashes.empty() ? -1 : *crashes.begin();
      CrashingSink crashing(**sink, crash_at);
      const auto report = runner::RunReplay(config, **context, catalog, crashing);
      if (report.ok()) {
        EXPECT_TRUE(crashes.empty()) << "epoch " << *crashes.begin() << " never came";
        return path;
      }
      EXPECT_FALSE(crashes.empty()) << report.error().message();
      if (crashes.empty()) {
        return path;
      }
      crashes.erase(crashes.begin());
    }
    ADD_FAILURE() << "too many attempts";
    return path;
  }

  // A table's rows as text, sorted.
  static std::vector<std::string> Rows(const std::filesystem::path& db_path,
                                       const std::string& table) {
    auto db = sink::OpenFrotaDuckDb(db_path, /*must_exist=*/true);
    EXPECT_TRUE(db.ok()) << db.error().message();
    auto rows = (*db)->Query("SELECT CAST(t AS VARCHAR) AS r FROM " + table + " t ORDER BY r");
    EXPECT_TRUE(rows.ok()) << rows.error().message();
    std::vector<std::string> out;
    for (std::size_t i = 0; i < rows->rows(); ++i) {
      out.push_back(rows->String(i, 0));
    }
    return out;
  }

  static inline ScratchDir* dir_ = nullptr;
  static inline sim::SimulateSummary* summary_ = nullptr;
};

TEST_F(RegularityStreamTest, EqualsTheBatchRowByRow) {
  const auto path = Replay("stream.duckdb", Config(2, 20'000));
  const auto departures = Rows(path, "departures");
  const auto headways = Rows(path, "headways");
  const auto alerts = Rows(path, "alerts");
  EXPECT_GT(departures.size(), 100U);
  EXPECT_GT(headways.size(), 50U);

  auto feed = gtfs::StaticFeed::Load(summary_->gtfs);
  ASSERT_TRUE(feed.ok()) << feed.error().message();
  auto db = sink::OpenFrotaDuckDb(path, /*must_exist=*/true);
  ASSERT_TRUE(db.ok()) << db.error().message();
  const auto report = ComputeHeadways(**db, *feed, HeadwayOptions{});
  ASSERT_TRUE(report.ok()) << report.error().message();
  ASSERT_EQ(report->stream_check.size(), 3U) << HeadwayText(*report);
  for (const auto& check : report->stream_check) {
    EXPECT_EQ(check.missing, 0) << HeadwayText(*report);
    EXPECT_EQ(check.extra, 0) << HeadwayText(*report);
    EXPECT_EQ(check.stream_rows, check.batch_rows) << check.table;
  }
  EXPECT_EQ(report->stream_check[0].stream_rows, static_cast<std::int64_t>(departures.size()));
  // The batch rewrote the tables: the same rows.
  db->reset();
  EXPECT_EQ(Rows(path, "departures"), departures);
  EXPECT_EQ(Rows(path, "headways"), headways);
  EXPECT_EQ(Rows(path, "alerts"), alerts);
}

TEST_F(RegularityStreamTest, SameRowsWhateverEpochsPartitionsAndCrashes) {
  const auto reference = Replay("one-epoch.duckdb", Config(1, 10'000'000));
  const auto many = Replay("many-epochs.duckdb", Config(3, 7'000));
  const auto crashed = Replay("crashed.duckdb", Config(2, 4'000), {2, 5, 8});
  for (const std::string table : {"departures", "headways", "alerts"}) {
    const auto rows = Rows(reference, table);
    EXPECT_FALSE(rows.empty()) << table;
    EXPECT_EQ(Rows(many, table), rows) << table;
    EXPECT_EQ(Rows(crashed, table), rows) << table;
  }
  // Each alert once, closed ones with their end.
  auto db = sink::OpenFrotaDuckDb(crashed, /*must_exist=*/true);
  ASSERT_TRUE(db.ok());
  auto kinds = (*db)->Query("SELECT kind, count(*), count(end_time) FROM alerts GROUP BY kind");
  ASSERT_TRUE(kinds.ok()) << kinds.error().message();
  std::map<std::string, std::int64_t> by_kind;
  for (std::size_t i = 0; i < kinds->rows(); ++i) {
    by_kind[kinds->String(i, 0)] = kinds->Int64(i, 1);
    if (kinds->String(i, 0) == "bunching" || kinds->String(i, 0) == "gap") {
      EXPECT_EQ(kinds->Int64(i, 2), kinds->Int64(i, 1)) << kinds->String(i, 0);
    }
  }
  EXPECT_GT(by_kind["bunching"] + by_kind["gap"], 0);
}

}  // namespace
}  // namespace frota::batch
