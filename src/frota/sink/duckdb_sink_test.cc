#include "frota/sink/duckdb_sink.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "frota/engine/checkpoint.h"
#include "frota/sink/export.h"

namespace frota::sink {
namespace {

namespace fs = std::filesystem;

class DuckDbSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("frota-sink-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  model::EpochRows SomeRows() {
    model::EpochRows rows;
    model::Position p;
    p.feed_id = "f";
    p.vehicle_id = "v, \"quoted\"";
    p.route_id = "13";
    p.lat = -22.9;
    p.lon = -43.3;
    p.event_time = base::FromUnixSeconds(1'656'570'891);
    p.ingest_time = base::FromUnixSeconds(1'656'570'920);
    p.source = {catalog_.Intern("a.csv"), 7};
    auto strings = std::make_shared<model::StringDictionary>();
    rows.positions.push_back(model::InternPosition(p, *strings));
    rows.strings = strings;
    model::SpeedCellRow cell;
    cell.partition_id = 0;
    cell.mode = model::Mode::kBrt;
    cell.local_date = *base::ParseDate("2022-06-30");
    cell.hour = 3;
    cell.segments = 2;
    cell.distance_mm = 1000;
    cell.duration_us = 60'000'000;
    rows.speed_cells.push_back(cell);
    cell.partition_id = 1;
    rows.speed_cells.push_back(cell);
    return rows;
  }

  engine::EpochCheckpoint Checkpoint(std::int64_t epoch, std::int64_t offset) {
    engine::EpochCheckpoint c;
    c.epoch = base::EpochId(epoch);
    c.watermark = base::FromUnixSeconds(1'656'570'000);
    c.progress = {{"a.csv", base::PartitionId(0), base::Offset(offset)}};
    c.states = {{base::PartitionId(0), engine::SealCheckpoint("job-shard", 1, "state")}};
    c.runner_state = "runner";
    return c;
  }

  fs::path dir_;
  model::SourceCatalog catalog_;
};

TEST_F(DuckDbSinkTest, ACommittedEpochIsRecoveredWithItsOffsetsAndState) {
  {
    auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1");
    ASSERT_TRUE(sink.ok()) << sink.error().message();
    const auto empty = (*sink)->Recover();
    ASSERT_TRUE(empty.ok());
    EXPECT_EQ(empty->last_epoch.value(), 0);
    ASSERT_TRUE((*sink)->Commit(SomeRows(), Checkpoint(1, 8)).ok());
  }
  auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run2");
  ASSERT_TRUE(sink.ok());
  const auto recovered = (*sink)->Recover();
  ASSERT_TRUE(recovered.ok()) << recovered.error().message();
  EXPECT_EQ(recovered->last_epoch.value(), 1);
  ASSERT_EQ(recovered->progress.size(), 1U);
  EXPECT_EQ(recovered->progress[0].next_offset.value(), 8);
  ASSERT_EQ(recovered->states.size(), 1U);
  EXPECT_EQ(recovered->runner_state, "runner");
  auto count = (*sink)->connection().Query("SELECT count(*), sum(segments) FROM speed_cell_totals");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(count->Int64(0, 0), 1);  // two partitions' rows sum into one
  EXPECT_EQ(count->Int64(0, 1), 4);
}

TEST_F(DuckDbSinkTest, TheFinalCheckpointEmptiesTheLogAndLeavesOneThreadForEpochs) {
  auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1");
  ASSERT_TRUE(sink.ok());
  ASSERT_TRUE((*sink)->Commit(SomeRows(), Checkpoint(1, 8)).ok());
  const fs::path wal = dir_ / "t.duckdb.wal";
  ASSERT_TRUE(fs::exists(wal) && fs::file_size(wal) > 0);  // epochs stay in the log
  ASSERT_TRUE((*sink)->CheckpointWithAllCores().ok());
  EXPECT_TRUE(!fs::exists(wal) || fs::file_size(wal) == 0);
  auto setting = (*sink)->connection().Query(
      "SELECT current_setting('threads')::BIGINT, current_setting('disabled_compression_methods')");
  ASSERT_TRUE(setting.ok());
  EXPECT_EQ(setting->Int64(0, 0), 1);
  EXPECT_EQ(setting->String(0, 1), "FSST");
  // Still a working sink afterwards.
  ASSERT_TRUE((*sink)->Commit(SomeRows(), Checkpoint(2, 16)).ok());
  auto count = (*sink)->connection().Query("SELECT count(*) FROM positions");
  EXPECT_EQ(count->Int64(0, 0), 2);
}

TEST_F(DuckDbSinkTest, AFailedCommitLeavesThePreviousEpoch) {
  auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1");
  ASSERT_TRUE(sink.ok());
  ASSERT_TRUE((*sink)->Commit(SomeRows(), Checkpoint(1, 8)).ok());
  // Epoch 1 again violates the ledger's key: the whole transaction must roll back.
  EXPECT_FALSE((*sink)->Commit(SomeRows(), Checkpoint(1, 99)).ok());
  const auto recovered = (*sink)->Recover();
  ASSERT_TRUE(recovered.ok());
  EXPECT_EQ(recovered->progress[0].next_offset.value(), 8);
  auto count = (*sink)->connection().Query("SELECT count(*) FROM positions");
  EXPECT_EQ(count->Int64(0, 0), 1);
}

TEST_F(DuckDbSinkTest, ANewerSchemaIsRefused) {
  {
    auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1");
    ASSERT_TRUE(sink.ok());
    ASSERT_TRUE((*sink)->connection().Execute("INSERT INTO frota_schema VALUES (99, now()::TIMESTAMP, 'future')").ok());
  }
  auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run2");
  ASSERT_FALSE(sink.ok());
  EXPECT_NE(sink.error().message().find("schema version 99"), std::string::npos);
}

TEST_F(DuckDbSinkTest, AFileThatIsNotADatabaseIsAClearError) {
  std::ofstream(dir_ / "junk.duckdb") << "this is not a database, just text\n";
  auto sink = DuckDbSink::Open(dir_ / "junk.duckdb", &catalog_, "run1");
  ASSERT_FALSE(sink.ok());
  EXPECT_NE(sink.error().message().find("junk.duckdb"), std::string::npos);
}

TEST_F(DuckDbSinkTest, ExportWritesSortedCsvWithQuotingAndSummedAggregates) {
  {
    auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1");
    ASSERT_TRUE(sink.ok());
    ASSERT_TRUE((*sink)->Commit(SomeRows(), Checkpoint(1, 8)).ok());
  }
  auto db = OpenFrotaDuckDb(dir_ / "t.duckdb", true);
  ASSERT_TRUE(db.ok());
  const auto summary = ExportDuckDb(**db, dir_ / "out", ExportFormat::kCsv);
  ASSERT_TRUE(summary.ok()) << summary.error().message();
  std::ifstream positions(dir_ / "out" / "positions.csv");
  std::string header;
  std::string row;
  std::getline(positions, header);
  std::getline(positions, row);
  EXPECT_EQ(header.substr(0, 27), "feed_id,vehicle_id,mode,rou");
  EXPECT_EQ(row,
            "f,\"v, \"\"quoted\"\"\",other,13,,,,,-22.9,-43.3,,,,,2022-06-30T06:34:51Z,"
            "2022-06-30T06:35:20Z,false,a.csv,7");
  std::ifstream cells(dir_ / "out" / "speed_cells.csv");
  std::getline(cells, header);
  std::getline(cells, row);
  EXPECT_EQ(header, "mode,local_date,hour,cell_x,cell_y,segments,distance_m,duration_s,mean_speed_kmh");
  EXPECT_EQ(row, "brt,2022-06-30,3,0,0,4,2,120,0.06");
}

}  // namespace
}  // namespace frota::sink
