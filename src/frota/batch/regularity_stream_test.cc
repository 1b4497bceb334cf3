// The streaming departures, headways and alerts (regularity::Stream) on a simulated day:
// at the end of a replay they equal what `frota headways` computes in batch, row by
// row, whatever the epochs, the partitions or crashes between epochs; and so do the rows of
// a Kafka group's follower (runner/regularity_follower.h) over the committed positions.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>

#include "frota/base/clock.h"
#include "frota/batch/headways.h"
#include "frota/gtfs/static_feed.h"
#include "frota/regularity/stream.h"
#include "frota/runner/regularity_follower.h"
#include "frota/runner/regularity_jobs.h"
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

// A row's stored values as text, through the catalog (model/tables.h).
struct TextOut {
  std::string text;
  void Text(std::string_view v) { Add(fmt::format("'{}'", v)); }
  void Int64(std::int64_t v) { Add(std::to_string(v)); }
  void Int32(std::int32_t v) { Add(std::to_string(v)); }
  void Int16(std::int16_t v) { Add(std::to_string(v)); }
  void Int8(std::int8_t v) { Add(std::to_string(v)); }
  void Double(double v) { Add(fmt::format("{}", v)); }
  void Bool(bool v) { Add(v ? "true" : "false"); }
  void Date(base::LocalDate v) { Add(base::FormatDate(v)); }
  void Timestamp(base::Timestamp v) { Add(base::FormatIso8601(v)); }
  void Null() { Add("NULL"); }
  void Add(const std::string& v) { text += text.empty() ? v : "|" + v; }
};
template <typename Row>
std::string RowText(const Row& r) {
  TextOut out;
  model::Table<Row>::Write(r, out);
  return out.text;
}

// The committed positions of a group, in memory: the frontier moves by `step` at each
// read (as members committing epochs move it) and jumps to the end past the last
// position; the lead is lost once, at the `lose_lead_at`-th call of Lead().
class MemoryFollowedStream final : public engine::FollowedStream<model::Position> {
 public:
  MemoryFollowedStream(std::vector<model::Position> positions, base::Micros step, int lose_lead_at)
      : positions_(std::move(positions)), step_(step), lose_lead_at_(lose_lead_at) {}
  base::Result<bool> Lead(std::string_view /*name*/) override { return ++leads_ != lose_lead_at_; }
  void Release() override {}
  base::Result<base::Timestamp> Frontier(std::string_view /*stream*/,
                                         std::int32_t /*partitions*/) override {
    const base::Timestamp f = positions_.front().event_time + step_ * ++frontiers_;
    return f > positions_.back().event_time ? base::Timestamp::max() : f;
  }
  base::Result<std::optional<base::Timestamp>> NextEventTime(base::Timestamp after) override {
    const auto it = After(after);
    return it == positions_.end() ? std::nullopt : std::optional(it->event_time);
  }
  base::Status Read(base::Timestamp after, base::Timestamp through,
                    const std::function<void(const model::Position&)>& each) override {
    for (auto it = After(after); it != positions_.end() && it->event_time <= through; ++it) {
      each(*it);
    }
    return base::Status::Ok();
  }

 private:
  std::vector<model::Position>::const_iterator After(base::Timestamp t) const {
    return std::upper_bound(
        positions_.begin(), positions_.end(), t,
        [](base::Timestamp v, const model::Position& p) { return v < p.event_time; });
  }
  std::vector<model::Position> positions_;
  base::Micros step_;
  int lose_lead_at_;
  int leads_ = 0;
  int frontiers_ = 0;
};

// Partition 0 of the follower's stream, in memory, as PostgreSQL keeps it: the committed
// state and rows; the commits numbered in `crashes` fail once as a dead server's would
// (nothing lands, and the follower starts again from the committed state).
class MemoryFollowerSink final : public engine::PartitionedSink<model::EpochRows> {
 public:
  explicit MemoryFollowerSink(std::set<int> crashes) : crashes_(std::move(crashes)) {}
  base::Result<std::vector<engine::PartitionCheckpoint>> Acquire(
      std::string_view /*stream*/, const std::vector<base::PartitionId>& partitions) override {
    ++acquired_;
    engine::PartitionCheckpoint cp;
    cp.partition = partitions.at(0);
    cp.state = state_;
    cp.finished = finished_;
    return std::vector<engine::PartitionCheckpoint>{cp};
  }
  void Release(const std::vector<base::PartitionId>& /*partitions*/) override {}
  base::Result<engine::CommitOutcome> CommitPartitions(
      const model::EpochRows& rows, const engine::PartitionedEpoch& epoch) override {
    if (crashes_.erase(++commits_) > 0) {
      return base::Unavailable("server gone at commit {}", commits_);
    }
    state_ = epoch.states.at(0).bytes;
    finished_ = !epoch.finished.empty();
    Keep(rows.of<model::DepartureRow>(), departures);
    Keep(rows.of<model::HeadwayRow>(), headways);
    Keep(rows.of<model::AlertRow>(), alerts);
    return engine::CommitOutcome::kCommitted;
  }
  base::Result<std::int64_t> FinishedPartitions(std::string_view /*stream*/) override {
    return finished_ ? 1 : 0;
  }

  std::vector<std::string> departures, headways, alerts;
  int acquired_ = 0;
  int commits_ = 0;

 private:
  template <typename Row>
  static void Keep(const std::vector<Row>& rows, std::vector<std::string>& out) {
    for (const auto& r : rows) {
      out.push_back(RowText(r));
    }
  }
  std::set<int> crashes_;
  std::string state_;
  bool finished_ = false;
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

  // A follower of topic `positions` run to its end, waiting on `clock`.
  static runner::RegularityFollowerConfig FollowerConfig(base::Clock& clock,
                                                         std::int32_t partitions) {
    runner::RegularityFollowerConfig config;
    config.topic = "positions";
    config.partitions = partitions;
    config.until_end = true;
    config.clock = &clock;
    return config;
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

// A Kafka group's follower reads the committed positions up to the frontier, epoch by
// epoch, losing its lead once and its server three times: its committed rows are the
// stream's over all the positions at once, each emitted row (an alert raised, then
// closed) exactly once.
TEST_F(RegularityStreamTest, AFollowerOfTheCommittedPositionsCommitsTheSameRows) {
  const auto path = Replay("follower-source.duckdb", Config(2, 20'000));
  auto db = sink::OpenFrotaDuckDb(path, /*must_exist=*/true);
  ASSERT_TRUE(db.ok()) << db.error().message();
  auto found = (*db)->Query(
      "SELECT feed_id, vehicle_id, route_id, trip_id, trip_start_date, epoch_us(event_time), "
      "lat, lon FROM positions ORDER BY event_time, feed_id, vehicle_id");
  ASSERT_TRUE(found.ok()) << found.error().message();
  std::vector<model::Position> positions(found->rows());
  for (std::size_t i = 0; i < found->rows(); ++i) {
    auto& p = positions[i];
    p.feed_id = found->String(i, 0);
    p.vehicle_id = found->String(i, 1);
    p.route_id = found->String(i, 2);
    p.trip_id = found->String(i, 3);
    p.trip_start_date = found->String(i, 4);
    p.event_time = base::FromUnixMicros(found->Int64(i, 5));
    p.lat = found->Double(i, 6);
    p.lon = found->Double(i, 7);
  }
  ASSERT_GT(positions.size(), 10'000U);
  db->reset();

  runner::ReplayConfig replay = Config(1, 10'000);
  auto context = runner::LoadReplayContext(replay);
  ASSERT_TRUE(context.ok()) << context.error().message();
  // Everything at once: the rows every path must give.
  auto whole = runner::NewRegularityStream(**context);
  for (const auto& p : positions) {
    whole->Add(p.feed_id, p.vehicle_id, p.event_time, p.lat, p.lon, p.route_id, p.trip_id,
               p.trip_start_date);
  }
  model::EpochRows all;
  whole->Finish(all);
  MemoryFollowerSink expected({});
  engine::PartitionedEpoch at_once;
  at_once.states.push_back({base::PartitionId(0), ""});
  ASSERT_TRUE(expected.CommitPartitions(all, at_once).ok());
  ASSERT_GT(expected.departures.size(), 100U);
  ASSERT_GT(expected.alerts.size(), 0U);

  MemoryFollowedStream input(positions, std::chrono::minutes(7), /*lose_lead_at=*/9);
  MemoryFollowerSink sink({4, 11, 12});
  base::ManualClock clock(base::FromUnixSeconds(0));
  runner::RegularityFollowerConfig config = FollowerConfig(clock, 6);
  config.slice = std::chrono::minutes(3);
  config.epoch_positions = 500;  // many epochs
  std::atomic<bool> stop{false};
  const auto report = runner::RunRegularityFollower(config, **context, input, sink, stop);
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_TRUE(report->finished);
  EXPECT_GT(report->epochs, 20);
  EXPECT_GE(sink.acquired_, 5);  // the first lead, after the lost lead, after each crash
  const auto sorted = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(sorted(sink.departures), sorted(expected.departures));
  EXPECT_EQ(sorted(sink.headways), sorted(expected.headways));
  EXPECT_EQ(sorted(sink.alerts), sorted(expected.alerts));
}

// The group's input as a follower run to its end sees it: the frontier held at `held` for
// the first `hold` reads, then the end; no positions. The lead is `lead`'s.
class EndingFollowedStream final : public engine::FollowedStream<model::Position> {
 public:
  EndingFollowedStream(bool lead, base::Timestamp held, int hold)
      : lead_(lead), held_(held), hold_(hold) {}
  base::Result<bool> Lead(std::string_view /*name*/) override { return lead_; }
  void Release() override {}
  base::Result<base::Timestamp> Frontier(std::string_view /*stream*/,
                                         std::int32_t /*partitions*/) override {
    return ++frontiers_ > hold_ ? base::Timestamp::max() : held_;
  }
  base::Result<std::optional<base::Timestamp>> NextEventTime(base::Timestamp /*after*/) override {
    return std::optional<base::Timestamp>();
  }
  base::Status Read(base::Timestamp /*after*/, base::Timestamp /*through*/,
                    const std::function<void(const model::Position&)>& /*each*/) override {
    return base::Status::Ok();
  }

 private:
  bool lead_;
  base::Timestamp held_;
  int hold_;
  int frontiers_ = 0;
};

// A follower sink whose follower's end shows as committed from the `finished_at`-th
// question on (another member led and finished).
class FinishingElsewhereSink final : public engine::PartitionedSink<model::EpochRows> {
 public:
  explicit FinishingElsewhereSink(int finished_at) : finished_at_(finished_at) {}
  base::Result<std::vector<engine::PartitionCheckpoint>> Acquire(
      std::string_view /*stream*/, const std::vector<base::PartitionId>& partitions) override {
    engine::PartitionCheckpoint cp;
    cp.partition = partitions.at(0);
    return std::vector<engine::PartitionCheckpoint>{cp};
  }
  void Release(const std::vector<base::PartitionId>& /*partitions*/) override {}
  base::Result<engine::CommitOutcome> CommitPartitions(
      const model::EpochRows& /*rows*/, const engine::PartitionedEpoch& epoch) override {
    finished_ = finished_ || !epoch.finished.empty();
    return engine::CommitOutcome::kCommitted;
  }
  base::Result<std::int64_t> FinishedPartitions(std::string_view /*stream*/) override {
    return finished_ || ++asked_ >= finished_at_ ? 1 : 0;
  }

 private:
  int finished_at_;
  int asked_ = 0;
  bool finished_ = false;
};

// Run to the end, a follower waiting for input asks every `end_check` whether the end has
// come, not only every `interval`: the leader runs its last epoch, and a member that does
// not lead leaves, about a second after the end, not up to a minute.
TEST_F(RegularityStreamTest, AFollowerRunToTheEndLeavesSoonAfterIt) {
  auto context = runner::LoadReplayContext(Config(1, 10'000));
  ASSERT_TRUE(context.ok()) << context.error().message();
  const auto run = [&](engine::FollowedStream<model::Position>& input,
                       engine::PartitionedSink<model::EpochRows>& sink) {
    base::ManualClock clock(base::FromUnixSeconds(0));
    runner::RegularityFollowerConfig config = FollowerConfig(clock, 2);
    config.interval = std::chrono::seconds(60);
    config.end_check = std::chrono::seconds(1);
    std::atomic<bool> stop{false};
    const auto report = runner::RunRegularityFollower(config, **context, input, sink, stop);
    EXPECT_TRUE(report.ok()) << report.error().message();
    EXPECT_TRUE(report.ok() && report->finished);
    return std::chrono::duration_cast<std::chrono::seconds>(clock.Now() - base::FromUnixSeconds(0));
  };
  // The leader catches up with a frontier that moves no more; the members' ends come at
  // its sixth read, the fifth while it waits, one a second.
  const base::Timestamp held = base::FromUnixSeconds(1'700'000'000);
  EndingFollowedStream leading(/*lead=*/true, held, /*hold=*/5);
  FinishingElsewhereSink sink(/*finished_at=*/1'000'000);
  EXPECT_EQ(run(leading, sink), std::chrono::seconds(5));
  // Another member leads; the follower's end shows at the fourth question, the third
  // while this member waits.
  EndingFollowedStream other(/*lead=*/false, held, /*hold=*/0);
  FinishingElsewhereSink finished_elsewhere(/*finished_at=*/4);
  EXPECT_EQ(run(other, finished_elsewhere), std::chrono::seconds(3));
}

}  // namespace
}  // namespace frota::batch
