// Reconcile over real captures: replay into DuckDB, recompute in batch SQL, and expect no
// difference; then plant wrong rows into a copy of the real database and expect each.
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include "frota/batch/reconcile.h"
#include "frota/runner/replay_runner.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/testing/shared_data.h"
#include "frota/testing/subprocess.h"

namespace frota::batch {
namespace {

namespace fs = std::filesystem;

// Replays `config` into `db`, as `frota replay` does.
void Replay(const runner::ReplayConfig& config, const fs::path& db) {
  auto context = runner::LoadReplayContext(config);
  ASSERT_TRUE(context.ok()) << context.error().message();
  model::SourceCatalog catalog;
  auto sink = sink::DuckDbSink::Open(db, &catalog, "reconcile-integration");
  ASSERT_TRUE(sink.ok()) << sink.error().message();
  const auto report = runner::RunReplay(config, **context, catalog, **sink);
  ASSERT_TRUE(report.ok()) << report.error().message();
}

ReconcileReport MustReconcile(const runner::ReplayConfig& replay, const fs::path& db) {
  if (std::getenv("FROTA_TEST_DEBUG") != nullptr) {
    spdlog::set_level(spdlog::level::debug);  // per-statement timings of the batch SQL
  }
  ReconcileConfig config;
  config.replay = replay;
  config.db = db;
  auto report = Reconcile(config);
  EXPECT_TRUE(report.ok()) << report.error().message();
  return report.ok() ? std::move(report).value() : ReconcileReport{};
}

const TableComparison& Table(const ReconcileReport& report, std::string_view name) {
  for (const auto& t : report.tables) {
    if (t.table == name) {
      return t;
    }
  }
  ADD_FAILURE() << "no table " << name;
  static const TableComparison kNone;
  return kNone;
}

runner::ReplayConfig BrtArchive() {
  runner::ReplayConfig config;
  const auto gps = testing::SharedFile("rio-brt-2022/gps");
  const auto gtfs = testing::SharedFile("rio-brt-2022/gtfs");
  const auto area = testing::SharedFile("rio-boundary/rio-de-janeiro-3304557.geojson");
  if (!gps || !gtfs || !area) {
    return config;
  }
  for (const auto& entry : fs::directory_iterator(*gps)) {
    config.inputs.push_back(entry.path().string());
  }
  std::sort(config.inputs.begin(), config.inputs.end());
  config.gtfs = gtfs->string();
  config.area = area->string();
  config.partitions = 3;
  return config;
}

TEST(ReconcileRealData, TheRioBrtArchiveHasNoDifference) {
  const auto config = BrtArchive();
  if (config.inputs.empty()) {
    FROTA_SHARED_MISSING("the Rio BRT archive is not under " << testing::SharedDataDir());
  }
  testing::TempDir dir("reconcile_brt");
  const auto db = dir.path() / "brt.duckdb";
  Replay(config, db);
  const auto report = MustReconcile(config, db);
  EXPECT_TRUE(report.equal) << ReconcileText(report);
  EXPECT_GT(Table(report, "positions").batch_rows, 500000);
  EXPECT_GT(Table(report, "stops").batch_rows, 1000);
  EXPECT_GT(Table(report, "trips").batch_rows, 1000);

  // One wrong row of each kind, planted in a copy: reconcile must see each, and only them.
  const auto copy = dir.path() / "brt-planted.duckdb";
  fs::copy_file(db, copy);
  {
    auto conn = sink::DuckDbConnection::Open(copy);
    ASSERT_TRUE(conn.ok());
    const auto planted = (*conn)->Execute(R"sql(
      DELETE FROM positions_data WHERE rowid = (SELECT min(rowid) FROM positions_data);
      UPDATE stops SET end_time = end_time + INTERVAL 1 MINUTE
        WHERE rowid = (SELECT max(rowid) FROM stops);
      INSERT INTO trips SELECT * REPLACE (first_time - INTERVAL 1 DAY AS first_time)
        FROM trips WHERE rowid = (SELECT max(rowid) FROM trips);
    )sql");
    ASSERT_TRUE(planted.ok()) << planted.error().message();
  }
  const auto caught = MustReconcile(config, copy);
  EXPECT_FALSE(caught.equal);
  EXPECT_EQ(Table(caught, "positions").missing, 1);
  EXPECT_EQ(Table(caught, "stops").different, 1);
  EXPECT_EQ(Table(caught, "trips").extra, 1);
  std::int64_t total = 0;
  for (const auto& t : caught.tables) {
    total += t.missing + t.extra + t.different;
  }
  // Exactly the three planted rows differ (the copied trip keeps its vehicle, so its
  // schedule slot still has one vehicle and duplicate_slots is unchanged).
  EXPECT_EQ(total, 3) << ReconcileText(caught);
}

struct Capture {
  const char* name;
  std::vector<const char*> inputs;
  const char* gtfs;
};

class ReconcileCaptures : public ::testing::TestWithParam<Capture> {};

TEST_P(ReconcileCaptures, EveryOtherRealCaptureHasNoDifference) {
  const Capture& capture = GetParam();
  runner::ReplayConfig config;
  for (const char* input : capture.inputs) {
    const auto path = testing::SharedFile(input);
    if (!path) {
      FROTA_SHARED_MISSING("not found: " << testing::SharedDataDir() / input);
    }
    config.inputs.push_back(path->string());
  }
  if (capture.gtfs != nullptr) {
    const auto gtfs = testing::SharedFile(capture.gtfs);
    if (!gtfs) {
      FROTA_SHARED_MISSING("not found: " << testing::SharedDataDir() / capture.gtfs);
    }
    config.gtfs = gtfs->string();
  }
  testing::TempDir dir(std::string("reconcile_capture_") + capture.name);
  const auto db = dir.path() / "capture.duckdb";
  Replay(config, db);
  const auto report = MustReconcile(config, db);
  EXPECT_TRUE(report.equal) << ReconcileText(report);
  EXPECT_GT(Table(report, "positions").batch_rows + Table(report, "rejected").batch_rows, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Captures, ReconcileCaptures,
    ::testing::Values(
        Capture{"sppo", {"rio-api-snapshots/sppo_api_2024-06-06.json"}, nullptr},
        Capture{"brt_api", {"rio-api-snapshots/brt_api_realtime_2024-01-13.json"}, nullptr},
        Capture{"opensky",
                {"opensky/global_states_all_1634471390.json",
                 "opensky/global_states_all_extended_1649392659.json",
                 "opensky/usa_bbox_states_1738361582.json", "opensky/denver_bbox_series"},
                nullptr},
        Capture{
            "caltrain", {"gtfs-rt/caltrain/ct-vehicle-positions.pb"}, "gtfs-rt/caltrain/ct.zip"},
        Capture{"bullrunner",
                {"gtfs-rt/bullrunner/bullrunner-vehicle-positions.pb"},
                "gtfs-rt/bullrunner/bullrunner-gtfs.zip"}),
    [](const auto& test_info) { return std::string(test_info.param.name); });

}  // namespace
}  // namespace frota::batch
