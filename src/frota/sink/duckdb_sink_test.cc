#include "frota/sink/duckdb_sink.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "frota/engine/checkpoint.h"
#include "frota/geo/area.h"
#include "frota/model/rejection_record.h"
#include "frota/sink/catalog_sql.h"
#include "frota/sink/export.h"

namespace frota::sink::sql {
extern const std::string_view kSchemaV1Sql;
extern const std::string_view kSchemaV2Sql;
extern const std::string_view kSilverFromTextV2Sql;
}  // namespace frota::sink::sql

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
    rows.of<model::SpeedCellRow>().push_back(cell);
    cell.partition_id = 1;
    rows.of<model::SpeedCellRow>().push_back(cell);
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

TEST_F(DuckDbSinkTest, TheRulesAreRecordedOnceAndOthersRefused) {
  const RuleRecord rules = {{"stale_after_s", 600}, {"max_speed_kmh.bus", 90}};
  DuckDbSinkOptions options;
  options.rules = rules;
  {
    auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1", options);
    ASSERT_TRUE(sink.ok()) << sink.error().message();
    ASSERT_TRUE((*sink)->Commit(SomeRows(), Checkpoint(1, 8)).ok());
  }
  {
    auto again = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run2", options);
    ASSERT_TRUE(again.ok()) << again.error().message();
    auto stored = (*again)->connection().Query("SELECT key, value FROM rules ORDER BY key");
    ASSERT_TRUE(stored.ok());
    ASSERT_EQ(stored->rows(), 2U);
    EXPECT_EQ(stored->String(0, 0), "max_speed_kmh.bus");
    EXPECT_EQ(stored->Double(0, 1), 90);
    EXPECT_EQ(stored->Double(1, 1), 600);
  }
  options.rules = {{"stale_after_s", 300}, {"max_speed_kmh.bus", 90}};
  auto other = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run3", options);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message().find("stale_after_s=600, this run has stale_after_s=300"),
            std::string::npos)
      << other.error().message();
}

// A square garage of 0.004 degrees around (-22.9645, -43.3915), as GeoJSON would give it.
geo::Area SquareGarage(double half) {
  const double lat = -22.9645;
  const double lon = -43.3915;
  auto area = geo::Area::FromRings({{{lon - half, lat - half},
                                     {lon + half, lat - half},
                                     {lon + half, lat + half},
                                     {lon - half, lat + half}}},
                                   "garage");
  EXPECT_TRUE(area.ok());
  return std::move(area).value();
}

// A stop row of route R at (lat, lon), `near_terminal` as SQL text.
std::string InsertStop(std::string_view vehicle, double lat, double lon,
                       std::string_view near_terminal) {
  return fmt::format(
      "INSERT INTO stops VALUES ('f', '{}', TIMESTAMP '2022-01-03 02:00:00', 'brt', 'R', "
      "TIMESTAMP '2022-01-03 02:30:00', {}::DOUBLE, {}::DOUBLE, 10, {})",
      vehicle, lat, lon, near_terminal);
}

TEST_F(DuckDbSinkTest, AStopInsideAGarageIsAtADepot) {
  DuckDbSinkOptions options;
  options.garages = GarageEdges(SquareGarage(0.002).rings());
  ASSERT_EQ(options.garages.size(), 2U) << "the square's two horizontal edges are left out";
  {
    auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1", options);
    ASSERT_TRUE(sink.ok()) << sink.error().message();
    auto& db = (*sink)->connection();
    // Inside the garage (even beside a terminal: the garage wins), outside it on the way,
    // outside it at a terminal, outside it on a route the GTFS does not have.
    for (const auto& sql : {InsertStop("in", -22.9645, -43.3915, "true"),
                            InsertStop("way", -22.9700, -43.3915, "false"),
                            InsertStop("term", -22.9600, -43.3990, "true"),
                            InsertStop("unknown", -22.9400, -43.3915, "NULL")}) {
      ASSERT_TRUE(db.Execute(sql).ok()) << sql;
    }
    auto places = db.Query("SELECT vehicle_id, place FROM stop_rows ORDER BY vehicle_id");
    ASSERT_TRUE(places.ok()) << places.error().message();
    ASSERT_EQ(places->rows(), 4U);
    EXPECT_EQ(places->String(0, 1), "depot");     // in
    EXPECT_EQ(places->String(1, 1), "terminal");  // term
    EXPECT_TRUE(places->IsNull(2, 1));            // unknown
    EXPECT_EQ(places->String(3, 1), "en_route");  // way
  }
  // A run without garages keeps them; one with others replaces them.
  {
    auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run2");
    ASSERT_TRUE(sink.ok());
    EXPECT_EQ((*sink)->connection().Query("SELECT count(*) FROM garage_edges")->Int64(0, 0), 2);
  }
  options.garages = GarageEdges(SquareGarage(0.00001).rings());
  auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run3", options);
  ASSERT_TRUE(sink.ok());
  auto edges = (*sink)->connection().Query("SELECT count(*) FROM garage_edges");
  EXPECT_EQ(edges->Int64(0, 0), 2);
  auto place =
      (*sink)->connection().Query("SELECT count(*) FILTER (WHERE place = 'depot') FROM stop_rows");
  EXPECT_EQ(place->Int64(0, 0), 1) << "the smaller garage still holds the stop at its centre";
}

// The view's even-odd rule answers as geo::Area::Contains does, to the bit: on a ring
// with a hole and slanted edges, at random points, at its vertices and on its edges.
TEST_F(DuckDbSinkTest, TheGarageRuleInSqlIsTheAreaRule) {
  auto garages = geo::Area::FromRings(
      {{{-43.40, -22.97}, {-43.38, -22.975}, {-43.37, -22.95}, {-43.395, -22.955}},
       {{-43.39, -22.965}, {-43.385, -22.962}, {-43.388, -22.958}}},
      "holed");
  ASSERT_TRUE(garages.ok());
  DuckDbSinkOptions options;
  options.garages = GarageEdges(garages->rings());
  auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1", options);
  ASSERT_TRUE(sink.ok()) << sink.error().message();
  std::vector<std::pair<double, double>> points;  // (lat, lon)
  std::uint64_t state = 12345;
  const auto uniform = [&state](double lo, double hi) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (hi - lo) * static_cast<double>(state >> 11) / static_cast<double>(1ULL << 53);
  };
  for (int i = 0; i < 2000; ++i) {
    points.emplace_back(uniform(-22.98, -22.945), uniform(-43.405, -43.365));
  }
  for (const auto& ring : garages->rings()) {
    for (std::size_t i = 0; i + 1 < ring.size(); ++i) {
      points.emplace_back(ring[i].second, ring[i].first);
      points.emplace_back((ring[i].second + ring[i + 1].second) / 2,
                          (ring[i].first + ring[i + 1].first) / 2);
    }
  }
  std::string values;
  for (const auto& [lat, lon] : points) {
    values += fmt::format("{}('{}'::DOUBLE, '{}'::DOUBLE)", values.empty() ? "" : ", ", lat, lon);
  }
  auto answers = (*sink)->connection().Query(fmt::format(
      "SELECT lat, lon, frota_in_garage(lat, lon) FROM (VALUES {}) AS p(lat, lon)", values));
  ASSERT_TRUE(answers.ok()) << answers.error().message();
  ASSERT_EQ(answers->rows(), points.size());
  std::int64_t inside = 0;
  for (std::size_t i = 0; i < answers->rows(); ++i) {
    const double lat = answers->Double(i, 0);
    const double lon = answers->Double(i, 1);
    EXPECT_EQ(answers->Bool(i, 2), garages->Contains(lat, lon)) << lat << ", " << lon;
    inside += answers->Bool(i, 2) ? 1 : 0;
  }
  EXPECT_GT(inside, 100);
  EXPECT_LT(inside, static_cast<std::int64_t>(points.size()) - 100);
}

TEST_F(DuckDbSinkTest, ADatabaseWithResultsFromBeforeVersion6GetsTheOldRules) {
  {
    auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1");
    ASSERT_TRUE(sink.ok());
    ASSERT_TRUE((*sink)->Commit(SomeRows(), Checkpoint(1, 8)).ok());
    // Back to version 5, as a frota before the rules table left it.
    ASSERT_TRUE((*sink)
                    ->connection()
                    .Execute("DROP TABLE garage_edges; DROP TABLE rules; DROP TABLE departures; "
                             "DROP TABLE headways; "
                             "DROP TABLE alerts; DROP TABLE aircraft_positions; "
                             "DROP VIEW duplicate_count_totals; DROP TABLE duplicate_counts; "
                             "ALTER TABLE trips DROP COLUMN plan_slot; "
                             "DELETE FROM frota_schema WHERE version >= 6")
                    .ok());
  }
  auto db = OpenFrotaDuckDb(dir_ / "t.duckdb", /*must_exist=*/true);
  ASSERT_TRUE(db.ok()) << db.error().message();
  auto rules = (*db)->Query(
      "SELECT count(*), max(value) FILTER (WHERE key = 'stale_after_s'), "
      "max(value) FILTER (WHERE key = 'max_speed_kmh.aircraft') FROM rules");
  ASSERT_TRUE(rules.ok());
  EXPECT_EQ(rules->Int64(0, 0), 16);  // with version 10's segment speeds, as rule 6's
  EXPECT_EQ(rules->Double(0, 1), 300);
  EXPECT_EQ(rules->Double(0, 2), 1300);
  // A new database has nothing recorded until a run with rules writes.
  auto fresh = OpenFrotaDuckDb(dir_ / "new.duckdb", /*must_exist=*/false);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ((*fresh)->Query("SELECT count(*) FROM rules")->Int64(0, 0), 0);
}

// An aircraft's origin country and last contact land in aircraft_positions, keyed like its
// position; a bus position has no row there, and `positions` has no column for them.
TEST_F(DuckDbSinkTest, AircraftFieldsLandBesideThePositionsTheyDescribe) {
  model::EpochRows rows = SomeRows();
  // SomeRows' dictionary, which the added positions' texts must join.
  auto strings = std::const_pointer_cast<model::StringDictionary>(rows.strings);
  model::Position a;
  a.feed_id = "opensky";
  a.vehicle_id = "e49406";
  a.route_id = "GLO1234";
  a.mode = model::Mode::kAircraft;
  a.lat = -23.4;
  a.lon = -46.5;
  a.event_time = base::FromUnixSeconds(1'656'570'895);
  a.ingest_time = base::FromUnixSeconds(1'656'570'900);
  a.source = {catalog_.Intern("states.json"), 3};
  a.origin_country = "Brazil";
  a.has_origin_country = true;
  a.last_contact = 1'656'570'897;
  rows.positions.push_back(model::InternPosition(a, *strings));
  a.vehicle_id = "abc123";  // an aircraft whose state vector had neither
  a.origin_country.clear();
  a.has_origin_country = false;
  a.last_contact = model::kNoLastContact;
  rows.positions.push_back(model::InternPosition(a, *strings));
  a.vehicle_id = "fff333";  // a blank country, as sent: '' rather than NULL
  a.has_origin_country = true;
  rows.positions.push_back(model::InternPosition(a, *strings));
  auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1");
  ASSERT_TRUE(sink.ok());
  ASSERT_TRUE((*sink)->Commit(rows, Checkpoint(1, 8)).ok());
  auto got = (*sink)->connection().Query(
      "SELECT feed_id, vehicle_id, epoch(event_time)::BIGINT, coalesce(origin_country, '-'), "
      "coalesce(last_contact, -1) FROM aircraft_positions ORDER BY vehicle_id");
  ASSERT_TRUE(got.ok()) << got.error().message();
  ASSERT_EQ(got->rows(), 3U);
  EXPECT_EQ(got->String(0, 1), "abc123");
  EXPECT_EQ(got->String(0, 3), "-");
  EXPECT_EQ(got->Int64(0, 4), -1);
  EXPECT_EQ(got->String(1, 0), "opensky");
  EXPECT_EQ(got->String(1, 1), "e49406");
  EXPECT_EQ(got->Int64(1, 2), 1'656'570'895);
  EXPECT_EQ(got->String(1, 3), "Brazil");
  EXPECT_EQ(got->Int64(1, 4), 1'656'570'897);
  EXPECT_EQ(got->String(2, 1), "fff333");
  EXPECT_EQ(got->String(2, 3), "");
  auto joined = (*sink)->connection().Query(
      "SELECT count(*) FROM positions JOIN aircraft_positions USING (feed_id, vehicle_id, "
      "event_time)");
  EXPECT_EQ(joined->Int64(0, 0), 3);
  auto columns = (*sink)->connection().Query(
      "SELECT count(*) FROM information_schema.columns WHERE table_name = 'positions' AND "
      "column_name IN ('origin_country', 'last_contact')");
  EXPECT_EQ(columns->Int64(0, 0), 0);
}

TEST_F(DuckDbSinkTest, ANewerSchemaIsRefused) {
  {
    auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1");
    ASSERT_TRUE(sink.ok());
    ASSERT_TRUE((*sink)
                    ->connection()
                    .Execute("INSERT INTO frota_schema VALUES (99, now()::TIMESTAMP, 'future')")
                    .ok());
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
  EXPECT_EQ(header,
            "mode,local_date,hour,cell_x,cell_y,segments,implausible_segments,distance_m,"
            "duration_s,mean_speed_kmh");
  EXPECT_EQ(row, "brt,2022-06-30,3,0,0,4,0,2,120,0.06");
}

TEST_F(DuckDbSinkTest, AFailedCommitForgetsTheStringsItNumbered) {
  auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1");
  ASSERT_TRUE(sink.ok());
  ASSERT_TRUE((*sink)->Commit(SomeRows(), Checkpoint(1, 8)).ok());
  // New strings in an epoch that fails (epoch 1 again): their ids go with it...
  auto rows = SomeRows();
  auto strings = std::make_shared<model::StringDictionary>();
  model::Position p = model::MaterializePosition(rows.positions[0], *rows.strings);
  p.vehicle_id = "only-in-the-failed-epoch";
  p.trip_id = "trip-of-the-failed-epoch";
  p.source = {catalog_.Intern("b.csv"), 3};
  rows.positions = {model::InternPosition(p, *strings)};
  rows.strings = strings;
  EXPECT_FALSE((*sink)->Commit(rows, Checkpoint(1, 99)).ok());
  // ...and the same rows in the next epoch store them again: no row refers to an id that
  // is not in `strings`.
  ASSERT_TRUE((*sink)->Commit(rows, Checkpoint(2, 9)).ok());
  auto found = (*sink)->connection().Query(
      "SELECT vehicle_id, trip_id, source FROM positions WHERE source_offset = 3");
  ASSERT_TRUE(found.ok()) << found.error().message();
  ASSERT_EQ(found->rows(), 1U);
  EXPECT_EQ(found->String(0, 0), "only-in-the-failed-epoch");
  EXPECT_EQ(found->String(0, 1), "trip-of-the-failed-epoch");
  EXPECT_EQ(found->String(0, 2), "b.csv");
  auto dangling = (*sink)->connection().Query(
      "SELECT count(*) FROM positions WHERE feed_id IS NULL OR vehicle_id IS NULL OR "
      "trip_id IS NULL OR source IS NULL OR mode IS NULL");
  EXPECT_EQ(dangling->Int64(0, 0), 0);
  auto distinct = (*sink)->connection().Query(
      "SELECT count(*), count(DISTINCT text), count(DISTINCT id) FROM strings");
  EXPECT_EQ(distinct->Int64(0, 0), distinct->Int64(0, 1));
  EXPECT_EQ(distinct->Int64(0, 0), distinct->Int64(0, 2));
}

TEST_F(DuckDbSinkTest, ADuplicatesDetailIsDerivedAndOtherDetailsAreKept) {
  auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1");
  ASSERT_TRUE(sink.ok());
  auto rows = SomeRows();
  model::RejectionRecord duplicate;
  duplicate.reason = model::RejectReason::kDuplicate;
  duplicate.feed_id = rows.positions[0].feed_id;
  duplicate.vehicle_id = rows.positions[0].vehicle_id;
  duplicate.event_time = base::FromUnixMicros(1'656'570'891'000'250);
  duplicate.ingest_time = base::FromUnixSeconds(1'656'570'920);
  duplicate.source = {catalog_.Intern("a.csv"), 8};
  rows.rejected.push_back(duplicate);
  model::RejectionRecord malformed;
  malformed.reason = model::RejectReason::kMalformedRecord;
  malformed.source = {catalog_.Intern("a.csv"), 9};
  malformed.detail = "line 10: 3 fields, expected 10";
  rows.rejected.push_back(malformed);
  ASSERT_TRUE((*sink)->Commit(rows, Checkpoint(1, 10)).ok());
  // The duplicate goes to duplicates_data, without detail or reason; any other refusal
  // to rejected_data with its detail.
  auto duplicates = (*sink)->connection().Query("SELECT source_offset FROM duplicates_data");
  ASSERT_TRUE(duplicates.ok()) << duplicates.error().message();
  ASSERT_EQ(duplicates->rows(), 1U);
  EXPECT_EQ(duplicates->Int64(0, 0), 8);
  auto stored = (*sink)->connection().Query("SELECT source_offset, detail FROM rejected_data");
  ASSERT_EQ(stored->rows(), 1U);
  EXPECT_EQ(stored->Int64(0, 0), 9);
  EXPECT_EQ(stored->String(0, 1), "line 10: 3 fields, expected 10");
  auto shown = (*sink)->connection().Query(
      "SELECT reason, vehicle_id, detail FROM rejected ORDER BY source_offset");
  ASSERT_TRUE(shown.ok()) << shown.error().message();
  EXPECT_EQ(shown->String(0, 0), "duplicate");
  EXPECT_EQ(shown->String(0, 1), "v, \"quoted\"");
  EXPECT_EQ(shown->String(0, 2), model::DuplicateDetail(*duplicate.event_time));
  EXPECT_EQ(shown->String(0, 2), "event_time=2022-06-30T06:34:51.000250Z");
  EXPECT_EQ(shown->String(1, 0), "malformed_record");
  EXPECT_EQ(shown->String(1, 1), "");
  EXPECT_EQ(shown->String(1, 2), "line 10: 3 fields, expected 10");
}

TEST_F(DuckDbSinkTest, AVersion1DatabaseIsMigratedWithEveryRow) {
  const auto path = dir_ / "v1.duckdb";
  {
    auto db = DuckDbConnection::Open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)
                    ->Execute("CREATE TABLE frota_schema (version INTEGER NOT NULL, applied_at "
                              "TIMESTAMP NOT NULL, "
                              "frota_version VARCHAR NOT NULL); INSERT INTO frota_schema VALUES "
                              "(1, now()::TIMESTAMP, "
                              "'0.1.0')")
                    .ok());
    ASSERT_TRUE((*db)->Execute(sql::kSchemaV1Sql).ok());
    const auto inserted = (*db)->Execute(R"sql(
      INSERT INTO positions VALUES
        ('rio-brt', 'B1', 'brt', '13', 't-1', '20220630', '', 0, -22.9, -43.3, 41.5, NULL, NULL,
         NULL, TIMESTAMP '2022-06-30 06:34:51', TIMESTAMP '2022-06-30 06:35:20', false, 'a.csv', 1),
        ('rio-brt', 'B2', 'bus', '', '', '', '', NULL, -22.8, -43.2, NULL, NULL, NULL, NULL,
         TIMESTAMP '2022-06-30 06:34:52', TIMESTAMP '2022-06-30 06:35:21', true, 'b.csv', 2);
      INSERT INTO rejected VALUES
        ('rio-brt', 'B1', 'duplicate', TIMESTAMP '2022-06-30 06:34:51',
         TIMESTAMP '2022-06-30 06:35:20', 'a.csv', 3, 'event_time=2022-06-30T06:34:51Z'),
        ('rio-brt', '', 'missing_vehicle_id', NULL, TIMESTAMP '2022-06-30 06:35:20', 'c.csv', 4,
         'id_veiculo=""');
      INSERT INTO stops VALUES
        ('rio-brt', 'B1', TIMESTAMP '2022-06-30 06:40:00', 'brt', '13',
         TIMESTAMP '2022-06-30 06:47:00', -22.9, -43.3, 9, false);
      INSERT INTO trips VALUES
        ('rio-brt', 'B1', 't-1', '20220630', TIMESTAMP '2022-06-30 06:34:51', '13', 0, '',
         -22.9, -43.3, TIMESTAMP '2022-06-30 07:34:51', -22.8, -43.2, 120, 15000000);
    )sql");
    ASSERT_TRUE(inserted.ok()) << inserted.error().message();
  }
  auto db = OpenFrotaDuckDb(path, /*must_exist=*/true);
  ASSERT_TRUE(db.ok()) << db.error().message();
  auto version = (*db)->Query("SELECT max(version) FROM frota_schema");
  EXPECT_EQ(version->Int64(0, 0), kDuckDbSchemaVersion);
  auto positions = (*db)->Query(
      "SELECT feed_id, vehicle_id, mode, route_id, trip_id, trip_start_date, direction_id, "
      "reported_speed_kmh, event_time_from_header, source, source_offset FROM positions "
      "ORDER BY source_offset");
  ASSERT_TRUE(positions.ok()) << positions.error().message();
  ASSERT_EQ(positions->rows(), 2U);
  EXPECT_EQ(positions->String(0, 1), "B1");
  EXPECT_EQ(positions->String(0, 2), "brt");
  EXPECT_EQ(positions->String(0, 4), "t-1");
  EXPECT_EQ(positions->String(0, 5), "20220630");
  EXPECT_EQ(positions->Int64(0, 6), 0);
  EXPECT_DOUBLE_EQ(positions->Double(0, 7), 41.5);
  EXPECT_EQ(positions->String(0, 9), "a.csv");
  EXPECT_EQ(positions->String(1, 2), "bus");
  EXPECT_EQ(positions->String(1, 3), "");
  EXPECT_TRUE(positions->IsNull(1, 6));
  EXPECT_TRUE(positions->Bool(1, 8));
  EXPECT_EQ(positions->String(1, 9), "b.csv");
  auto rejected = (*db)->Query(
      "SELECT reason, vehicle_id, event_time IS NULL, source, detail FROM rejected "
      "ORDER BY source_offset");
  ASSERT_TRUE(rejected.ok()) << rejected.error().message();
  ASSERT_EQ(rejected->rows(), 2U);
  EXPECT_EQ(rejected->String(0, 0), "duplicate");
  EXPECT_EQ(rejected->String(0, 4), "event_time=2022-06-30T06:34:51Z");
  EXPECT_EQ(rejected->String(1, 0), "missing_vehicle_id");
  EXPECT_EQ(rejected->String(1, 1), "");
  EXPECT_TRUE(rejected->Bool(1, 2));
  EXPECT_EQ(rejected->String(1, 3), "c.csv");
  EXPECT_EQ(rejected->String(1, 4), "id_veiculo=\"\"");
  auto leftovers = (*db)->Query(
      "SELECT count(*) FROM duckdb_tables() WHERE table_name IN ('positions_text', "
      "'rejected_text', 'stops_v4', 'trips_v4')");
  EXPECT_EQ(leftovers->Int64(0, 0), 0);
  // Version 4: stops and trips keep their rows, without primary keys.
  auto stop = (*db)->Query("SELECT vehicle_id, end_time::VARCHAR, positions FROM stops");
  ASSERT_TRUE(stop.ok()) << stop.error().message();
  ASSERT_EQ(stop->rows(), 1U);
  EXPECT_EQ(stop->String(0, 0), "B1");
  EXPECT_EQ(stop->String(0, 1), "2022-06-30 06:47:00");
  EXPECT_EQ(stop->Int64(0, 2), 9);
  auto trip = (*db)->Query("SELECT trip_id, last_lon, distance_mm FROM trips");
  ASSERT_TRUE(trip.ok()) << trip.error().message();
  ASSERT_EQ(trip->rows(), 1U);
  EXPECT_EQ(trip->String(0, 0), "t-1");
  EXPECT_DOUBLE_EQ(trip->Double(0, 1), -43.2);
  EXPECT_EQ(trip->Int64(0, 2), 15000000);
  auto keys = (*db)->Query(
      "SELECT count(*) FROM duckdb_constraints() WHERE table_name IN ('stops', 'trips') "
      "AND constraint_type = 'PRIMARY KEY'");
  ASSERT_TRUE(keys.ok()) << keys.error().message();
  EXPECT_EQ(keys->Int64(0, 0), 0);
  // A sink on the migrated file numbers new strings after the migrated ones.
  db->reset();
  auto sink = DuckDbSink::Open(path, &catalog_, "run1");
  ASSERT_TRUE(sink.ok()) << sink.error().message();
  ASSERT_TRUE((*sink)->Commit(SomeRows(), Checkpoint(1, 8)).ok());
  auto all = (*sink)->connection().Query(
      "SELECT count(*), count(DISTINCT vehicle_id) FROM positions WHERE vehicle_id IS NOT NULL");
  EXPECT_EQ(all->Int64(0, 0), 3);
  EXPECT_EQ(all->Int64(0, 1), 3);
}

TEST_F(DuckDbSinkTest, AVersion2DatabaseIsMigratedToLabelsAndKeepsItsDuplicatesWhereTheyAre) {
  const auto path = dir_ / "v2.duckdb";
  {
    // Version 2 as its migration left it: positions with every text as an id (two of one
    // label, one of another that differs only by its missing direction), and a
    // duplicate stored the version 2 way: in rejected_data, its detail NULL.
    auto db = DuckDbConnection::Open(path);
    ASSERT_TRUE(db.ok());
    const auto made = (*db)->Execute(fmt::format(
        "CREATE TABLE frota_schema (version INTEGER NOT NULL, applied_at TIMESTAMP NOT NULL, "
        "frota_version VARCHAR NOT NULL); {} {} {} INSERT INTO frota_schema VALUES (1, "
        "now()::TIMESTAMP, '0.1.0'), (2, now()::TIMESTAMP, '0.1.0'); INSERT INTO strings "
        "VALUES (1, 'f'), (2, 'B1'), (3, 'a.csv'), (4, '13'), (5, 't-1'), (6, '20220630'); "
        "INSERT INTO positions_data VALUES "
        "(1, 2, 1, 4, 5, 6, 0, 1, -22.9, -43.3, 41.5, NULL, NULL, NULL, "
        "TIMESTAMP '2022-06-30 06:34:51', TIMESTAMP '2022-06-30 06:35:20', false, 3, 0), "
        "(1, 2, 1, 4, 5, 6, 0, 1, -22.8, -43.2, NULL, NULL, NULL, NULL, "
        "TIMESTAMP '2022-06-30 06:35:21', TIMESTAMP '2022-06-30 06:35:40', false, 3, 1), "
        "(1, 2, 1, 4, 5, 6, 0, NULL, -22.7, -43.1, NULL, NULL, NULL, NULL, "
        "TIMESTAMP '2022-06-30 06:36:01', TIMESTAMP '2022-06-30 06:36:20', true, 3, 2); "
        "INSERT INTO rejected_data VALUES (1, 2, 13, TIMESTAMP '2022-06-30 06:34:51', "
        "TIMESTAMP '2022-06-30 06:35:20', 3, 3, NULL)",
        sql::kSchemaV1Sql, sql::kSchemaV2Sql, sql::kSilverFromTextV2Sql));
    ASSERT_TRUE(made.ok()) << made.error().message();
  }
  auto sink = DuckDbSink::Open(path, &catalog_, "run1");
  ASSERT_TRUE(sink.ok()) << sink.error().message();
  auto& db = (*sink)->connection();
  auto version = db.Query("SELECT max(version) FROM frota_schema");
  EXPECT_EQ(version->Int64(0, 0), kDuckDbSchemaVersion);
  auto labels = db.Query("SELECT count(*) FROM position_labels");
  EXPECT_EQ(labels->Int64(0, 0), 2);
  auto positions = db.Query(
      "SELECT feed_id, vehicle_id, mode, route_id, trip_id, trip_start_date, trip_start_time, "
      "direction_id, lat, reported_speed_kmh, event_time_from_header, source, source_offset "
      "FROM positions ORDER BY source_offset");
  ASSERT_TRUE(positions.ok()) << positions.error().message();
  ASSERT_EQ(positions->rows(), 3U);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(positions->String(i, 0), "f");
    EXPECT_EQ(positions->String(i, 1), "B1");
    EXPECT_EQ(positions->String(i, 2), "brt");
    EXPECT_EQ(positions->String(i, 3), "13");
    EXPECT_EQ(positions->String(i, 4), "t-1");
    EXPECT_EQ(positions->String(i, 5), "20220630");
    EXPECT_EQ(positions->String(i, 6), "");
    EXPECT_EQ(positions->String(i, 11), "a.csv");
    EXPECT_EQ(positions->Int64(i, 12), static_cast<std::int64_t>(i));
  }
  EXPECT_EQ(positions->Int64(0, 7), 1);
  EXPECT_EQ(positions->Int64(1, 7), 1);
  EXPECT_TRUE(positions->IsNull(2, 7));
  EXPECT_DOUBLE_EQ(positions->Double(0, 8), -22.9);
  EXPECT_DOUBLE_EQ(positions->Double(0, 9), 41.5);
  EXPECT_TRUE(positions->IsNull(1, 9));
  EXPECT_TRUE(positions->Bool(2, 10));

  // New rows: a position of a new label, one of a migrated label, and a duplicate.
  auto rows = SomeRows();
  model::Position again = model::MaterializePosition(rows.positions[0], *rows.strings);
  again.feed_id = "f";
  again.vehicle_id = "B1";
  again.mode = model::Mode::kBrt;
  again.route_id = "13";
  again.trip_id = "t-1";
  again.trip_start_date = "20220630";
  again.trip_start_time = "";
  again.direction_id = 1;
  again.source = {catalog_.Intern("a.csv"), 10};
  // The rows' dictionary (SomeRows made it, and only it writes to it).
  rows.positions.push_back(model::InternPosition(
      again, *std::const_pointer_cast<model::StringDictionary>(rows.strings)));
  model::RejectionRecord duplicate;
  duplicate.reason = model::RejectReason::kDuplicate;
  duplicate.feed_id = rows.positions[0].feed_id;
  duplicate.vehicle_id = rows.positions[0].vehicle_id;
  duplicate.event_time = base::FromUnixSeconds(1'656'570'900);
  duplicate.ingest_time = base::FromUnixSeconds(1'656'570'930);
  duplicate.source = {catalog_.Intern("a.csv"), 8};
  rows.rejected.push_back(duplicate);
  ASSERT_TRUE((*sink)->Commit(rows, Checkpoint(1, 11)).ok());
  labels = db.Query("SELECT count(*) FROM position_labels");
  EXPECT_EQ(labels->Int64(0, 0), 3);  // SomeRows' position has a label of its own
  auto reused =
      db.Query("SELECT count(DISTINCT label) FROM positions_data WHERE source_offset IN (0, 10)");
  EXPECT_EQ(reused->Int64(0, 0), 1);
  auto stored = db.Query(
      "SELECT (SELECT count(*) FROM rejected_data), (SELECT count(*) FROM duplicates_data)");
  EXPECT_EQ(stored->Int64(0, 0), 1);  // the old row stays where it was
  EXPECT_EQ(stored->Int64(0, 1), 1);  // the new one has the new table
  auto shown = db.Query(
      "SELECT feed_id, vehicle_id, reason, source, source_offset, detail FROM rejected "
      "ORDER BY source_offset");
  ASSERT_TRUE(shown.ok()) << shown.error().message();
  ASSERT_EQ(shown->rows(), 2U);
  EXPECT_EQ(shown->String(0, 0), "f");
  EXPECT_EQ(shown->String(0, 1), "B1");
  EXPECT_EQ(shown->String(0, 2), "duplicate");
  EXPECT_EQ(shown->String(0, 3), "a.csv");
  EXPECT_EQ(shown->String(0, 5), "event_time=2022-06-30T06:34:51Z");
  EXPECT_EQ(shown->String(1, 0), "f");
  EXPECT_EQ(shown->String(1, 1), "v, \"quoted\"");
  EXPECT_EQ(shown->String(1, 2), "duplicate");
  EXPECT_EQ(shown->String(1, 3), "a.csv");
  EXPECT_EQ(shown->Int64(1, 4), 8);
  EXPECT_EQ(shown->String(1, 5), model::DuplicateDetail(*duplicate.event_time));
}

TEST_F(DuckDbSinkTest, ADatabaseThatNumbersReasonsDifferentlyIsRefused) {
  {
    auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1");
    ASSERT_TRUE(sink.ok());
    ASSERT_TRUE((*sink)
                    ->connection()
                    .Execute("UPDATE reject_reasons SET name = 'renamed' WHERE id = 13")
                    .ok());
  }
  auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run2");
  ASSERT_FALSE(sink.ok());
  EXPECT_NE(sink.error().message().find("reject_reasons names number 13 'renamed'"),
            std::string::npos)
      << sink.error().message();
}

TEST_F(DuckDbSinkTest, ViewsAreMadeAgainOnlyWhenOneIsMissingOrFromAnotherText) {
  const auto path = dir_ / "t.duckdb";
  const auto bytes = [&path] {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const auto open_and_close = [&path] {
    auto db = OpenFrotaDuckDb(path, /*must_exist=*/true);
    ASSERT_TRUE(db.ok()) << db.error().message();
  };
  {
    auto sink = DuckDbSink::Open(path, &catalog_, "run1");
    ASSERT_TRUE(sink.ok());
    ASSERT_TRUE((*sink)->Commit(SomeRows(), Checkpoint(1, 8)).ok());
  }
  // Every view carries the same tag, naming the text it was made from.
  {
    auto db = DuckDbConnection::Open(path, /*read_only=*/true);
    ASSERT_TRUE(db.ok());
    auto tags = (*db)->Query(
        "SELECT count(*), count(DISTINCT comment), min(comment) FROM duckdb_views() "
        "WHERE NOT internal AND schema_name = 'main'");
    ASSERT_TRUE(tags.ok());
    EXPECT_EQ(tags->Int64(0, 0), 12);
    EXPECT_EQ(tags->Int64(0, 1), 1);
    EXPECT_TRUE(tags->String(0, 2).starts_with("frota views ")) << tags->String(0, 2);
  }
  // An open that writes nothing leaves the file as it was.
  const std::string before = bytes();
  open_and_close();
  EXPECT_TRUE(bytes() == before) << "an open without writes changed the file";
  // A view dropped, a macro dropped, a view from another text: each is made again.
  const char* changes[] = {
      "DROP VIEW stop_rows",
      "DROP MACRO frota_iso8601",
      "COMMENT ON VIEW quality_hours IS 'frota views 0000000000000000'",
  };
  for (const char* change : changes) {
    {
      auto db = DuckDbConnection::Open(path);
      ASSERT_TRUE(db.ok());
      ASSERT_TRUE((*db)->Execute(change).ok()) << change;
    }
    open_and_close();
    auto db = DuckDbConnection::Open(path, /*read_only=*/true);
    ASSERT_TRUE(db.ok());
    auto rows = (*db)->Query(
        "SELECT (SELECT count(*) FROM stop_rows), (SELECT count(DISTINCT comment) FROM "
        "duckdb_views() WHERE NOT internal AND schema_name = 'main'), "
        "frota_iso8601(1656570891000000)");
    ASSERT_TRUE(rows.ok()) << change << ": " << rows.error().message();
    EXPECT_EQ(rows->Int64(0, 0), 0) << change;
    EXPECT_EQ(rows->Int64(0, 1), 1) << change;
    EXPECT_EQ(rows->String(0, 2), "2022-06-30T06:34:51Z") << change;
  }
}

TEST_F(DuckDbSinkTest, StreamedRowsCommitWithTheirEpochAndGoWithItWhenItFails) {
  auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1");
  ASSERT_TRUE(sink.ok());
  ASSERT_TRUE((*sink)->StreamsRows());
  ASSERT_TRUE((*sink)->Write(SomeRows()).ok());
  ASSERT_TRUE((*sink)->Write(SomeRows()).ok());
  ASSERT_TRUE((*sink)->Commit(SomeRows(), Checkpoint(1, 8)).ok());
  auto& db = (*sink)->connection();
  auto ledger = db.Query("SELECT positions, output_rows FROM batches WHERE epoch = 1");
  ASSERT_EQ(ledger->rows(), 1U);
  EXPECT_EQ(ledger->Int64(0, 0), 3);  // the ledger counts every write of the epoch
  EXPECT_EQ(ledger->Int64(0, 1), 9);  // 3 x (1 position + 2 speed cells)
  // An epoch whose commit fails (epoch 1 again) takes its streamed rows with it.
  ASSERT_TRUE((*sink)->Write(SomeRows()).ok());
  EXPECT_FALSE((*sink)->Commit(SomeRows(), Checkpoint(1, 99)).ok());
  auto count = db.Query("SELECT count(*) FROM positions");
  EXPECT_EQ(count->Int64(0, 0), 3);
  // The next epoch starts afresh.
  ASSERT_TRUE((*sink)->Write(SomeRows()).ok());
  ASSERT_TRUE((*sink)->Commit(model::EpochRows(), Checkpoint(2, 16)).ok());
  count = db.Query("SELECT count(*) FROM positions");
  EXPECT_EQ(count->Int64(0, 0), 4);
  ledger = db.Query("SELECT positions FROM batches WHERE epoch = 2");
  EXPECT_EQ(ledger->Int64(0, 0), 1);
}

TEST_F(DuckDbSinkTest, DuckDbsMemoryIsBoundedAndWhatItHoldsIsCheckpointedAway) {
  DuckDbSinkOptions options;
  options.memory_limit = "100MB";
  options.checkpoint_held_bytes = 1;  // any: checkpoint after every commit
  auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1", options);
  ASSERT_TRUE(sink.ok()) << sink.error().message();
  ASSERT_TRUE((*sink)->Commit(SomeRows(), Checkpoint(1, 8)).ok());
  auto& db = (*sink)->connection();
  auto limit = db.Query("SELECT current_setting('memory_limit')");
  ASSERT_TRUE(limit.ok());
  EXPECT_EQ(limit->String(0, 0), "95.3 MiB");  // DuckDB's rendering of 100 MB
  const fs::path wal = dir_ / "t.duckdb.wal";
  EXPECT_TRUE(!fs::exists(wal) || fs::file_size(wal) == 0);  // checkpointed
  // Without the bound, the epochs stay in the log until the end of the replay.
  options.checkpoint_held_bytes = 0;
  sink->reset();
  auto unbounded = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run2", options);
  ASSERT_TRUE(unbounded.ok());
  ASSERT_TRUE((*unbounded)->Commit(SomeRows(), Checkpoint(2, 16)).ok());
  EXPECT_TRUE(fs::exists(wal) && fs::file_size(wal) > 0);
}

TEST_F(DuckDbSinkTest, BetweenEpochsTheCacheIsBroughtDownAndTheLimitComesBack) {
  // A lower limit between epochs, a tiny one (DuckDB cannot evict down to it and keeps
  // the old), one that is not a size and one above the limit: each commit checkpoints
  // and leaves the epoch's limit in place.
  const fs::path wal = dir_ / "t.duckdb.wal";
  std::int64_t epoch = 0;
  for (const char* idle : {"40MB", "1KB", "lots", "200MB"}) {
    SCOPED_TRACE(idle);
    DuckDbSinkOptions options;
    options.memory_limit = "100MB";
    options.idle_memory_limit = idle;
    options.checkpoint_held_bytes = 1;
    auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run", options);
    ASSERT_TRUE(sink.ok()) << sink.error().message();
    for (int i = 0; i < 2; ++i) {
      ++epoch;
      const auto committed = (*sink)->Commit(SomeRows(), Checkpoint(epoch, 8 * epoch));
      ASSERT_TRUE(committed.ok()) << committed.error().message();
      auto limit = (*sink)->connection().Query("SELECT current_setting('memory_limit')");
      ASSERT_TRUE(limit.ok());
      EXPECT_EQ(limit->String(0, 0), "95.3 MiB");
      EXPECT_TRUE(!fs::exists(wal) || fs::file_size(wal) == 0);  // checkpointed
    }
    auto count = (*sink)->connection().Query("SELECT count(*) FROM positions");
    EXPECT_EQ(count->Int64(0, 0), epoch);
  }
}

TEST_F(DuckDbSinkTest, OnlyMovedSourcesAreWrittenAndARolledBackMoveIsWrittenAgain) {
  auto progress = [](std::vector<std::pair<std::string, std::int64_t>> offsets) {
    std::vector<engine::SourceProgress> out;
    for (auto& [source, offset] : offsets) {
      out.push_back({source, base::PartitionId(0), base::Offset(offset)});
    }
    return out;
  };
  auto commit = [&](DuckDbSink& sink, std::int64_t epoch,
                    std::vector<engine::SourceProgress> sources) {
    auto checkpoint = Checkpoint(epoch, 0);
    checkpoint.progress = std::move(sources);
    return sink.Commit(model::EpochRows(), checkpoint);
  };
  // (next_offset, epoch) of each source, as the table holds it.
  auto table = [](DuckDbSink& sink) {
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> out;
    auto rows = sink.connection().Query("SELECT source, next_offset, epoch FROM source_progress");
    EXPECT_TRUE(rows.ok());
    for (std::size_t i = 0; i < rows->rows(); ++i) {
      out[rows->String(i, 0)] = {rows->Int64(i, 1), rows->Int64(i, 2)};
    }
    return out;
  };
  using Row = std::pair<std::int64_t, std::int64_t>;
  {
    auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1");
    ASSERT_TRUE(sink.ok()) << sink.error().message();
    ASSERT_TRUE(commit(**sink, 1, progress({{"a", 10}, {"b", 20}, {"c", 30}})).ok());
    ASSERT_TRUE(commit(**sink, 2, progress({{"a", 15}, {"b", 20}, {"c", 30}})).ok());
    auto rows = table(**sink);
    EXPECT_EQ(rows["a"], Row(15, 2));
    EXPECT_EQ(rows["b"], Row(20, 1));  // unchanged: not written again
    EXPECT_EQ(rows["c"], Row(30, 1));
    // Epoch 2 again: its ledger row is refused and b's move goes with the transaction,
    // so the next epoch must write b again.
    EXPECT_FALSE(commit(**sink, 2, progress({{"a", 15}, {"b", 25}, {"c", 30}})).ok());
    EXPECT_EQ(table(**sink)["b"], Row(20, 1));
    ASSERT_TRUE(commit(**sink, 3, progress({{"a", 15}, {"b", 25}, {"c", 30}})).ok());
    rows = table(**sink);
    EXPECT_EQ(rows["a"], Row(15, 2));
    EXPECT_EQ(rows["b"], Row(25, 3));
  }
  // A reopened database knows its progress from Recover; more sources than one
  // statement takes are written in several.
  auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run2");
  ASSERT_TRUE(sink.ok()) << sink.error().message();
  ASSERT_TRUE((*sink)->Recover().ok());
  std::vector<std::pair<std::string, std::int64_t>> many = {{"a", 15}, {"b", 25}, {"c", 31}};
  for (int i = 0; i < 1100; ++i) {
    many.emplace_back("file-" + std::to_string(i), i);
  }
  const auto committed = commit(**sink, 4, progress(many));
  ASSERT_TRUE(committed.ok()) << committed.error().message();
  auto rows = table(**sink);
  EXPECT_EQ(rows.size(), 1103U);
  EXPECT_EQ(rows["a"], Row(15, 2));
  EXPECT_EQ(rows["b"], Row(25, 3));
  EXPECT_EQ(rows["c"], Row(31, 4));
  EXPECT_EQ(rows["file-0"], Row(0, 4));
  EXPECT_EQ(rows["file-1099"], Row(1099, 4));
  const auto recovered = (*sink)->Recover();
  ASSERT_TRUE(recovered.ok());
  EXPECT_EQ(recovered->progress.size(), 1103U);
}

// The schema that migrations build is the one the catalog describes (model/tables.h):
// each catalog table of a new database has exactly the columns, types, nullability and
// primary key of the catalog's DuckDB DDL, in order.
TEST_F(DuckDbSinkTest, MigratedSchemaMatchesTheCatalogsDdl) {
  const fs::path path = dir_ / "t.duckdb";
  {
    auto sink = DuckDbSink::Open(path, &catalog_, "run1");
    ASSERT_TRUE(sink.ok());
  }
  auto migrated = DuckDbConnection::Open(path, /*read_only=*/true);
  ASSERT_TRUE(migrated.ok());
  auto fresh = DuckDbConnection::Open("");
  ASSERT_TRUE(fresh.ok());
  const auto columns = [](DuckDbConnection& db, std::string_view table) {
    auto r = db.Query(
        fmt::format("SELECT column_name, data_type, is_nullable FROM information_schema.columns "
                    "WHERE table_schema = 'main' AND table_name = '{}' ORDER BY ordinal_position",
                    table));
    EXPECT_TRUE(r.ok());
    std::vector<std::string> out;
    for (std::size_t i = 0; r.ok() && i < r->rows(); ++i) {
      out.push_back(r->String(i, 0) + " " + r->String(i, 1) + " " + r->String(i, 2));
    }
    auto key = db.Query(fmt::format(
        "SELECT coalesce(string_agg(array_to_string(constraint_column_names, ', '), '; '), '') "
        "FROM duckdb_constraints() WHERE schema_name = 'main' AND table_name = '{}' AND "
        "constraint_type = 'PRIMARY KEY'",
        table));
    EXPECT_TRUE(key.ok());
    out.push_back("key " + (key.ok() ? key->String(0, 0) : std::string()));
    return out;
  };
  for (const model::TableSpec* table : model::CatalogTables()) {
    ASSERT_TRUE((*fresh)->Execute(CreateTableSql(*table, SqlDialect::kDuckDb)).ok());
    const auto expected = columns(**fresh, table->name);
    EXPECT_GT(expected.size(), 1U) << table->name;
    EXPECT_EQ(columns(**migrated, table->name), expected) << table->name;
  }
}

// Retention deletes, in the epoch's transaction, the raw rows placed before the cut (and
// the results only when their own cut is given), and keeps the rest; the same cut again
// deletes nothing more.
TEST_F(DuckDbSinkTest, RetentionDeletesTheRowsBeforeTheCutInTheEpochsTransaction) {
  auto sink = DuckDbSink::Open(dir_ / "t.duckdb", &catalog_, "run1");
  ASSERT_TRUE(sink.ok());
  for (int day = 0; day < 3; ++day) {
    model::EpochRows rows = SomeRows();
    rows.positions[0].event_time += std::chrono::days(day);
    rows.of<model::SpeedCellRow>()[0].local_date += std::chrono::days(day);
    rows.of<model::SpeedCellRow>()[1].local_date += std::chrono::days(day);
    rows.of<model::DuplicateCountRow>().push_back(
        {0, "f", "v", *base::ParseDate("2022-06-30") + std::chrono::days(day), 3, 5});
    ASSERT_TRUE((*sink)->Commit(rows, Checkpoint(day + 1, 8 + day)).ok());
  }
  const auto count = [&](std::string_view sql) {
    auto found = (*sink)->connection().Query(std::string(sql));
    EXPECT_TRUE(found.ok()) << found.error().message();
    return found.ok() ? found->Int64(0, 0) : -1;
  };
  ASSERT_EQ(count("SELECT count(*) FROM positions"), 3);
  // Keep 2022-07-01 (local, Rio) on: its first instant is 03:00 UTC.
  engine::Retention retention;
  retention.raw = engine::RetentionCut{*base::ParseDate("2022-07-01"),
                                       *base::ParseIso8601("2022-07-01T03:00:00Z")};
  for (int again = 0; again < 2; ++again) {
    auto checkpoint = Checkpoint(4 + again, 20 + again);
    checkpoint.retention = retention;
    ASSERT_TRUE((*sink)->Commit(model::EpochRows(), checkpoint).ok());
    EXPECT_EQ(count("SELECT count(*) FROM positions"), 2);
    EXPECT_EQ(count("SELECT count(*) FROM duplicate_count_totals"), 2);
    EXPECT_EQ(count("SELECT count(*) FROM speed_cell_totals"), 3);  // results stay
  }
  retention.results = retention.raw;
  auto checkpoint = Checkpoint(6, 22);
  checkpoint.retention = retention;
  ASSERT_TRUE((*sink)->Commit(model::EpochRows(), checkpoint).ok());
  EXPECT_EQ(count("SELECT count(*) FROM speed_cell_totals"), 2);
  EXPECT_EQ(count("SELECT count(*) FROM speed_cell_totals WHERE local_date < DATE '2022-07-01'"),
            0);
}

}  // namespace
}  // namespace frota::sink
