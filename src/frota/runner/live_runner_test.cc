#include "frota/runner/live_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

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

TEST(LiveRunner, FollowsTheArchiveAcrossRestartsExactlyOnceLikeAReplay) {
  FROTA_REQUIRE_SHARED(capture, "gtfs-rt/caltrain/ct-vehicle-positions.pb");
  testing::TempDir dir("live-runner");
  const auto archive = dir.path() / "bronze";
  const auto body = *base::ReadFile(capture);
  codec::DecodedBatch decoded;
  const auto info = codec::DecodeResponse(codec::Format::kGtfsRt, body, {}, decoded);
  ASSERT_TRUE(info.ok() && info->header_time);
  const base::Timestamp t0 = *info->header_time + seconds(5);
  auto writer = source::BronzeWriter::Open(
      archive, {"caltrain", codec::Format::kGtfsRt, model::Mode::kRail, "America/Los_Angeles", ""});
  ASSERT_TRUE(writer.ok());
  base::Timestamp last_ingest;
  auto write = [&](int n, int first) {
    for (int i = first; i < first + n; ++i) {
      source::ResponseEnvelope e;
      e.ingest_time = t0 + seconds(15 * i);
      last_ingest = e.ingest_time;
      ASSERT_TRUE((*writer)->Write(e, body).ok());
    }
  };
  ReplayConfig replay_config;
  replay_config.time_zone = "America/Los_Angeles";
  auto context = LoadReplayContext(replay_config);
  ASSERT_TRUE(context.ok());

  auto live = [&](base::Timestamp floor, std::int64_t& records, std::int64_t& skipped) {
    model::SourceCatalog catalog;
    auto db = sink::DuckDbSink::Open(dir.path() / "live.duckdb", &catalog, "live");
    ASSERT_TRUE(db.ok()) << db.error().message();
    LiveConfig config;
    config.archive = archive;
    config.scan_interval = std::chrono::milliseconds(10);
    config.epoch_interval = std::chrono::milliseconds(0);
    std::atomic<int> rounds{0};
    config.stopping = [&] { return ++rounds > 3; };
    config.ingest_floor = [&] { return std::optional<base::Timestamp>(floor); };
    config.report_file = dir.path() / "reports/run.json";
    const auto report = RunLive(config, **context, catalog, **db);
    ASSERT_TRUE(report.ok()) << report.error().message();
    records = report->records;
    skipped = report->skipped_records;
  };
  write(6, 0);
  std::int64_t records1 = 0;
  std::int64_t skipped1 = 0;
  live(last_ingest + seconds(1), records1, skipped1);
  EXPECT_GT(records1, 0);
  EXPECT_EQ(skipped1, 0);
  write(4, 6);
  std::int64_t records2 = 0;
  std::int64_t skipped2 = 0;
  live(last_ingest + std::chrono::hours(1), records2, skipped2);  // then silence: all final
  EXPECT_EQ(skipped2, records1);
  EXPECT_EQ(records1 + records2, static_cast<std::int64_t>(decoded.size()) * 10);
  const auto run_report = nlohmann::json::parse(*base::ReadFile(dir.path() / "reports/run.json"));
  EXPECT_EQ(run_report.at("status").get<std::string>(), "ok");
  EXPECT_TRUE(run_report.at("resumed").get<bool>());

  // The same archive replayed to its end gives the same positions and rejections.
  model::SourceCatalog catalog;
  auto live_db = sink::DuckDbSink::Open(dir.path() / "live.duckdb", &catalog, "check");
  auto replay_db = sink::DuckDbSink::Open(dir.path() / "replay.duckdb", &catalog, "replay");
  ASSERT_TRUE(live_db.ok() && replay_db.ok());
  replay_config.inputs = {"archive:" + archive.string()};
  const auto replayed = RunReplay(replay_config, **context, catalog, **replay_db);
  ASSERT_TRUE(replayed.ok()) << replayed.error().message();
  EXPECT_EQ(replayed->records, records1 + records2);
  EXPECT_EQ(Count(**live_db, "positions"), Count(**replay_db, "positions"));
  EXPECT_EQ(Count(**live_db, "rejected"), Count(**replay_db, "rejected"));
  EXPECT_GT(Count(**live_db, "positions"), 0);
}

}  // namespace
}  // namespace frota::runner
