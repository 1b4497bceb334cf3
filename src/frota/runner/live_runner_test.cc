#include "frota/runner/live_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "frota/base/clock.h"
#include "frota/base/file.h"
#include "frota/codec/decode.h"
#include "frota/engine/watermark.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/source/bronze_archive.h"
#include "frota/testing/shared_data.h"
#include "frota/testing/subprocess.h"

namespace frota::runner {
namespace {

namespace fs = std::filesystem;
using std::chrono::minutes;
using std::chrono::seconds;

TEST(LiveWatermark, SilentFeedsGoIdleAndTheWatermarkFollowsTheIngestClock) {
  engine::WatermarkTracker w(seconds(360), seconds(120));
  const auto t = *base::ParseIso8601("2024-06-06T12:00:00Z");
  w.Observe(base::PartitionId(0), t, t + seconds(5));
  EXPECT_EQ(w.Current(), t - seconds(360));
  w.AdvanceIngestTime(t + minutes(1));  // still active: W is what its records say
  EXPECT_EQ(w.Current(), t - seconds(360));
  w.AdvanceIngestTime(t + minutes(10));  // silent for > 2 min: W follows the clock
  EXPECT_EQ(w.Current(), t + minutes(10) - seconds(360));
  w.AdvanceIngestTime(t + minutes(9));  // never backwards
  EXPECT_EQ(w.Current(), t + minutes(10) - seconds(360));
  // A record that passes the stale rule can never be late after such an advance.
  EXPECT_FALSE(w.IsLate(t + minutes(10) - seconds(300)));
}

std::int64_t Count(sink::DuckDbSink& db, const std::string& table) {
  auto r = db.connection().Query("SELECT count(*) FROM " + table);
  if (!r.ok()) {
    ADD_FAILURE() << table << ": " << r.error().message();  // two failures must not agree
    return -1;
  }
  return r->Int64(0, 0);
}

// A bronze archive that the tests grow with copies of one Caltrain capture, 15 s of
// ingest time apart, and the replay context to run the jobs on it.
class LiveRunner : public ::testing::Test {
 protected:
  void SetUp() override {
    FROTA_REQUIRE_SHARED(capture, "gtfs-rt/caltrain/ct-vehicle-positions.pb");
    body_ = *base::ReadFile(capture);
    const auto info = codec::DecodeResponse(codec::Format::kGtfsRt, body_, {}, decoded_);
    ASSERT_TRUE(info.ok() && info->header_time);
    ASSERT_GT(decoded_.size(), 0U);
    t0_ = *info->header_time + seconds(5);
    auto writer = source::BronzeWriter::Open(
        archive_,
        {"caltrain", codec::Format::kGtfsRt, model::Mode::kRail, "America/Los_Angeles", ""});
    ASSERT_TRUE(writer.ok());
    writer_ = std::move(*writer);
    replay_config_.time_zone = "America/Los_Angeles";
    auto context = LoadReplayContext(replay_config_);
    ASSERT_TRUE(context.ok());
    context_ = std::move(*context);
  }
  // Archives the capture `n` more times; returns the last ingest time.
  base::Timestamp Write(int n) {
    for (int i = 0; i < n; ++i, ++written_) {
      source::ResponseEnvelope e;
      e.ingest_time = t0_ + seconds(15 * written_);
      last_ingest_ = e.ingest_time;
      EXPECT_TRUE(writer_->Write(e, body_).ok());
    }
    return last_ingest_;
  }
  // Records each archived copy of the capture holds.
  [[nodiscard]] std::int64_t PerResponse() const {
    return static_cast<std::int64_t>(decoded_.size());
  }

  testing::TempDir dir_{"live-runner"};
  fs::path archive_ = dir_.path() / "bronze";
  ReplayConfig replay_config_;
  std::unique_ptr<ReplayContext> context_;

 private:
  std::string body_;
  codec::DecodedBatch decoded_;
  base::Timestamp t0_;
  std::unique_ptr<source::BronzeWriter> writer_;
  int written_ = 0;
  base::Timestamp last_ingest_;
};

TEST_F(LiveRunner, FollowsTheArchiveAcrossRestartsExactlyOnceLikeAReplay) {
  auto live = [&](base::Timestamp floor, std::int64_t& records, std::int64_t& skipped) {
    model::SourceCatalog catalog;
    auto db = sink::DuckDbSink::Open(dir_.path() / "live.duckdb", &catalog, "live");
    ASSERT_TRUE(db.ok()) << db.error().message();
    LiveConfig config;
    config.archive = archive_;
    config.scan_interval = std::chrono::milliseconds(10);
    config.epoch_interval = std::chrono::milliseconds(0);
    std::atomic<int> rounds{0};
    config.stopping = [&] { return ++rounds > 3; };
    config.ingest_floor = [&] { return std::optional<base::Timestamp>(floor); };
    config.report_file = dir_.path() / "reports/run.json";
    const auto report = RunLive(config, *context_, catalog, **db);
    ASSERT_TRUE(report.ok()) << report.error().message();
    records = report->records;
    skipped = report->skipped_records;
  };
  std::int64_t records1 = 0;
  std::int64_t skipped1 = 0;
  live(Write(6) + seconds(1), records1, skipped1);
  EXPECT_GT(records1, 0);
  EXPECT_EQ(skipped1, 0);
  std::int64_t records2 = 0;
  std::int64_t skipped2 = 0;
  live(Write(4) + std::chrono::hours(1), records2, skipped2);  // then silence: all final
  EXPECT_EQ(skipped2, records1);
  EXPECT_EQ(records1 + records2, PerResponse() * 10);
  const auto run_report = nlohmann::json::parse(*base::ReadFile(dir_.path() / "reports/run.json"));
  EXPECT_EQ(run_report.at("status").get<std::string>(), "ok");
  EXPECT_TRUE(run_report.at("resumed").get<bool>());

  // The same archive replayed to its end gives the same positions and rejections.
  model::SourceCatalog catalog;
  auto live_db = sink::DuckDbSink::Open(dir_.path() / "live.duckdb", &catalog, "check");
  auto replay_db = sink::DuckDbSink::Open(dir_.path() / "replay.duckdb", &catalog, "replay");
  ASSERT_TRUE(live_db.ok() && replay_db.ok());
  replay_config_.inputs = {"archive:" + archive_.string()};
  const auto replayed = RunReplay(replay_config_, *context_, catalog, **replay_db);
  ASSERT_TRUE(replayed.ok()) << replayed.error().message();
  EXPECT_EQ(replayed->records, records1 + records2);
  EXPECT_EQ(Count(**live_db, "positions"), Count(**replay_db, "positions"));
  EXPECT_EQ(Count(**live_db, "rejected"), Count(**replay_db, "rejected"));
  EXPECT_GT(Count(**live_db, "positions"), 0);
}

// The run loop reads its time from the injected clock: with a ManualClock, each wait
// between scans moves time on at once, so an epoch interval of a minute cuts epochs by
// that clock (a round every 30 s of it), and the report is dated by it, while the test
// itself never sleeps.
TEST_F(LiveRunner, CutsEpochsAndDatesItsReportByTheInjectedClock) {
  model::SourceCatalog catalog;
  auto db = sink::DuckDbSink::Open(dir_.path() / "live.duckdb", &catalog, "live");
  ASSERT_TRUE(db.ok()) << db.error().message();
  const base::Timestamp start = *base::ParseIso8601("2030-01-01T00:00:00Z");
  base::ManualClock clock(start);
  LiveConfig config;
  config.archive = archive_;
  config.clock = &clock;
  config.scan_interval = seconds(30);
  config.epoch_interval = minutes(1);
  config.report_file = dir_.path() / "reports/run.json";
  // Round r starts at start + 30 s * (r - 1); responses arrive before rounds 1, 2 and 4.
  // The report the runner rewrites after each commit is read at the start of rounds:
  // rounds 1-3 see none yet, round 4 the commit of round 3 (1 min).
  int rounds = 0;
  std::vector<bool> report_before_round;
  nlohmann::json report_of_round_3;
  config.stopping = [&] {
    ++rounds;
    report_before_round.push_back(fs::exists(config.report_file));
    if (rounds == 4) {
      report_of_round_3 = nlohmann::json::parse(*base::ReadFile(config.report_file));
    }
    if (rounds == 2 || rounds == 4) {
      Write(1);
    }
    return rounds > 6;
  };
  Write(2);
  const auto report = RunLive(config, *context_, catalog, **db);
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_EQ(report_before_round, (std::vector<bool>{false, false, false, true, true, true, true}));
  ASSERT_TRUE(report_of_round_3.is_object());
  EXPECT_EQ(report_of_round_3.at("epochs").get<std::int64_t>(), 1);
  EXPECT_EQ(report_of_round_3.at("inputs").at("records").get<std::int64_t>(), 3 * PerResponse());
  EXPECT_EQ(report_of_round_3.at("updated_at").get<std::string>(),
            base::FormatIso8601(start + minutes(1)));
  // Round 5 (2 min) commits what round 4 read; rounds 6 and 7 (the last) find nothing
  // new. With the system clock none of these minutes would have passed: one epoch, cut
  // by the last round.
  EXPECT_EQ(report->epochs, 2);
  EXPECT_EQ(report->records, 4 * PerResponse());
  EXPECT_EQ(report->started_at, base::FormatIso8601(start));
  EXPECT_EQ(report->updated_at, base::FormatIso8601(start + minutes(3)));
  EXPECT_EQ(report->duration_s, 180.0);
  EXPECT_EQ(clock.Now(), start + minutes(3));
}

}  // namespace
}  // namespace frota::runner
