// The PostgreSQL sink against a real server (scripts/services/): the same epochs give the
// same exported bytes as DuckDB, commits are atomic and fenced, schemas are versioned.
#include "frota/sink/postgres_sink.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>

#include "frota/geo/area.h"
#include "frota/sink/catalog_sql.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/sink/export.h"
#include "frota/sink/postgres_followed_stream.h"
#include "frota/sink/postgres_to_duckdb.h"
#include "frota/sink/testing/test_database.h"
#include "frota/testing/subprocess.h"

namespace frota::sink {
namespace {

namespace fs = std::filesystem;
using testing::TestDatabase;

// Rows of every kind, with NULLs, extreme doubles, a repeated aggregate key (a quality
// hour emitted twice) and strings that need quoting.
model::EpochRows SampleRows(model::SourceCatalog& catalog, int salt, bool aircraft = false) {
  model::EpochRows rows;
  auto strings = std::make_shared<model::StringDictionary>();
  rows.strings = strings;
  const auto source = catalog.Intern("/data/gps/13.csv.gz");
  for (int i = 0; i < 50; ++i) {
    model::PositionRecord p;
    p.feed_id = strings->Intern("rio-brt");
    p.vehicle_id = strings->Intern(fmt::format("v{}", i % 7));
    p.route_id = strings->Intern(i % 3 == 0 ? "" : "13");
    p.trip_id = strings->Intern("trip \"quoted\", with\ttab");
    p.trip_start_date = strings->Intern("20220630");
    p.trip_start_time = strings->Intern("");
    p.direction_id = static_cast<std::int8_t>(i % 3 - 1);
    p.mode = model::Mode::kBrt;
    p.lat = -22.9 + i * 1e-7 + salt;
    p.lon = -43.123456789012345;
    p.reported_speed_kmh = i % 2 == 0 ? NAN : 41.7F + static_cast<float>(i);
    p.bearing_deg = 0.1F;
    p.altitude_m = NAN;
    p.on_ground = static_cast<std::int8_t>(i % 3 - 1);
    p.event_time = base::FromUnixMicros(1'656'570'000'000'000 + i * 1'000'001LL + salt * 7);
    p.ingest_time = p.event_time + std::chrono::microseconds(12'345'678);
    p.event_time_from_header = i % 5 == 0;
    p.source = {source, i + salt * 1000};
    rows.positions.push_back(p);
  }
  // Aircraft (aircraft_positions): both fields, a country alone, neither.
  for (int i = 0; aircraft && i < 3; ++i) {
    model::PositionRecord p;
    p.feed_id = strings->Intern("opensky");
    p.vehicle_id = strings->Intern(fmt::format("e4940{}", i));
    p.route_id = strings->Intern(fmt::format("GLO{}", i));
    p.mode = model::Mode::kAircraft;
    p.lat = -23.4 + i * 0.01;
    p.lon = -46.5;
    p.altitude_m = 3000.5F;
    p.on_ground = 0;
    p.event_time = base::FromUnixMicros(1'656'570'000'000'000 + salt * 60'000'000LL);
    p.ingest_time = p.event_time + std::chrono::seconds(5);
    p.source = {source, 5000 + i + salt * 1000};
    p.origin_country = i < 2 ? strings->Intern(i == 0 ? "Brazil" : "C\u00f4te \"d'Ivoire\"")
                             : model::StringDictionary::kEmpty;
    p.has_origin_country = i < 2;
    p.last_contact = i == 0 ? 1'656'570'002 + salt : model::kNoLastContact;
    rows.positions.push_back(p);
  }
  model::Rejection r;
  r.reason = model::RejectReason::kLatitudeOutOfRange;
  r.feed_id = "rio-brt";
  r.vehicle_id = "";
  r.ingest_time = base::FromUnixMicros(1'656'570'000'123'456);
  r.source = {source, 999};
  r.detail = "latitude=\"-122,5\"\nnewline";
  rows.rejected.push_back(model::InternRejection(model::Rejection(r), *strings));
  // the same refusal twice (an input holding it twice)
  rows.rejected.push_back(model::InternRejection(std::move(r), *strings));
  // A duplicate: its detail is derived from its event time where it is written.
  model::RejectionRecord duplicate = rows.rejected.back();
  duplicate.reason = model::RejectReason::kDuplicate;
  duplicate.vehicle_id = strings->Intern("v3");
  duplicate.event_time = base::FromUnixMicros(1'656'570'000'000'001 + salt);
  duplicate.source.offset = 998;
  duplicate.detail.clear();
  rows.rejected.push_back(duplicate);
  const auto day = base::LocalDateFromDays(19173);
  rows.of<model::SpeedCellRow>().push_back(
      {0, model::Mode::kBrt, day, 6, -8665, -4581, 3, 1234, 5'000'000});
  rows.of<model::SpeedCellRow>().push_back(
      {1, model::Mode::kBrt, day, 6, -8665, -4581, 2, 1000, 1'000'000});
  rows.of<model::SpeedLineRow>().push_back(
      {0, model::Mode::kBrt, "13", day, 6, 3, 1234, 5'000'000});
  rows.of<model::FleetHourRow>().push_back({0, model::Mode::kBrt, day, 6, 7, 50});
  model::StopRow stop;
  stop.feed_id = "rio-brt";
  stop.vehicle_id = fmt::format("v{}", salt);
  stop.start_time = base::FromUnixMicros(1'656'570'000'000'000);
  stop.mode = model::Mode::kBrt;
  stop.route_id = "13";
  stop.end_time = stop.start_time + std::chrono::seconds(301);
  stop.anchor_lat = -22.9;
  stop.anchor_lon = -43.2;
  stop.positions = 6;
  stop.near_terminal = salt % 2 == 0 ? std::optional<bool>() : std::optional<bool>(true);
  rows.of<model::StopRow>().push_back(stop);
  model::TripRow trip;
  trip.feed_id = "rio-brt";
  trip.vehicle_id = fmt::format("v{}", salt);
  trip.trip_id = "T";
  trip.trip_start_date = "20220630";
  trip.first_time = stop.start_time;
  trip.route_id = "13";
  trip.direction_id = -1;
  trip.last_time = stop.end_time;
  trip.first_lat = 1.0 / 3.0;
  trip.last_lat = -0.0;
  trip.positions = 9;
  trip.distance_mm = 123456;
  rows.of<model::TripRow>().push_back(trip);
  model::QualityRow q;
  q.partition_id = 0;
  q.feed_id = "rio-brt";
  q.local_date = day;
  q.hour = 6;
  q.accepted = 50;
  q.vehicles = 7;
  q.rejected[static_cast<std::size_t>(model::RejectReason::kLatitudeOutOfRange)] = 2;
  q.latency = {{42, 10}, {43, 40}};
  rows.of<model::QualityRow>().push_back(q);
  model::QualityRow late = q;  // the same hour again: a refusal after the hour was emitted
  late.accepted = 0;
  late.vehicles = 0;
  late.latency = {{43, 1}};
  rows.of<model::QualityRow>().push_back(late);
  return rows;
}

engine::EpochCheckpoint Checkpoint(std::int64_t epoch, const std::string& source,
                                   std::int64_t offset) {
  engine::EpochCheckpoint c;
  c.epoch = base::EpochId(epoch);
  c.watermark = base::FromUnixSeconds(1'656'570'000 + epoch);
  c.records = 52;
  c.progress = {{source, base::PartitionId(0), base::Offset(offset)}};
  c.states = {{base::PartitionId(0), fmt::format("state {} \x01\x02\xff", epoch)}};
  c.runner_state = fmt::format("runner {}", epoch);
  return c;
}

// SQL that takes a database of the current schema back to version 8: the raw tables
// unpartitioned (as postgres_schema_v1.sql and v3 made them), no duplicate_counts.
// Back to the layout of version 8: version 11's garages, version 10's columns and rules
// undone, then version 9's partitions and duplicate_counts.
constexpr std::string_view kUnpartitioned =
    "DROP TABLE garage_edges CASCADE; DROP FUNCTION frota_in_garage; "
    "ALTER TABLE speed_cells DROP COLUMN implausible_segments CASCADE; "
    "ALTER TABLE speed_lines DROP COLUMN implausible_segments CASCADE; "
    "ALTER TABLE trips DROP COLUMN plan_slot CASCADE; "
    "DELETE FROM rules WHERE key LIKE 'max_segment_speed_kmh.%'; "
    "DROP VIEW IF EXISTS duplicate_count_totals; DROP TABLE duplicate_counts; "
    "DROP FUNCTION frota_fill_partitions; DROP FUNCTION frota_day_partition; "
    "CREATE TABLE positions_v8 (LIKE positions INCLUDING DEFAULTS); "
    "INSERT INTO positions_v8 SELECT * FROM positions; DROP TABLE positions; "
    "ALTER TABLE positions_v8 RENAME TO positions; "
    "ALTER TABLE positions ADD PRIMARY KEY (feed_id, vehicle_id, event_time); "
    "CREATE INDEX positions_event_time_brin ON positions USING brin (event_time); "
    "CREATE TABLE rejected_v8 (LIKE rejected INCLUDING DEFAULTS); "
    "INSERT INTO rejected_v8 SELECT * FROM rejected; DROP TABLE rejected; "
    "ALTER TABLE rejected_v8 RENAME TO rejected; "
    "CREATE INDEX rejected_feed_reason_rare ON rejected (feed_id, reason) "
    "WHERE reason <> 'duplicate'; "
    "CREATE TABLE collector_polls_v8 (LIKE collector_polls INCLUDING DEFAULTS); "
    "INSERT INTO collector_polls_v8 SELECT * FROM collector_polls; DROP TABLE collector_polls; "
    "ALTER TABLE collector_polls_v8 RENAME TO collector_polls; "
    "ALTER TABLE collector_polls ADD PRIMARY KEY (feed_id, polled_at); "
    "DELETE FROM frota_schema WHERE version >= 9";

class PostgresSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string server = testing::ServerDsn();
    ASSERT_FALSE(server.empty()) << testing::kNoServerMessage;
    db_ = std::make_unique<TestDatabase>(server, "sink");
    ASSERT_TRUE(db_->ok()) << db_->error();
  }
  PostgresSinkOptions Options(const std::string& run_id) const {
    PostgresSinkOptions o;
    o.dsn = db_->dsn();
    o.run_id = run_id;
    o.unavailable_wait = std::chrono::seconds(5);
    return o;
  }
  std::unique_ptr<TestDatabase> db_;
  frota::testing::TempDir tmp_{"postgres-sink"};
};

TEST_F(PostgresSinkTest, TheSameEpochsExportTheSameBytesAsDuckDb) {
  model::SourceCatalog catalog;
  auto pg = PostgresSink::Open(Options("run-a"), &catalog);
  ASSERT_TRUE(pg.ok()) << pg.error().message();
  auto duck = DuckDbSink::Open(tmp_.path() / "same.duckdb", &catalog, "run-a");
  ASSERT_TRUE(duck.ok()) << duck.error().message();
  for (int epoch = 1; epoch <= 3; ++epoch) {
    const auto rows = SampleRows(catalog, epoch, /*aircraft=*/true);
    const auto checkpoint = Checkpoint(epoch, "/data/gps/13.csv.gz", epoch * 100);
    ASSERT_TRUE((*duck)->Commit(rows, checkpoint).ok());
    const auto committed = (*pg)->Commit(rows, checkpoint);
    ASSERT_TRUE(committed.ok()) << committed.error().message();
  }
  PostgresCopySummary summary;
  auto copy = CopyPostgresToDuckDb(db_->dsn(), {}, &summary);
  ASSERT_TRUE(copy.ok()) << copy.error().message();
  ASSERT_TRUE(ExportDuckDb(**copy, tmp_.path() / "pg", ExportFormat::kCsv).ok());
  ASSERT_TRUE(ExportDuckDb((*duck)->connection(), tmp_.path() / "duck", ExportFormat::kCsv).ok());
  const auto expected = frota::testing::ReadTree(tmp_.path() / "duck");
  const auto actual = frota::testing::ReadTree(tmp_.path() / "pg");
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(expected[i].first, actual[i].first);
    EXPECT_EQ(expected[i].second, actual[i].second) << expected[i].first;
  }
  // PostgreSQL merged the repeated aggregate keys by adding; DuckDB kept two rows.
  std::map<std::string, std::int64_t> copied(summary.rows_per_table.begin(),
                                             summary.rows_per_table.end());
  EXPECT_EQ(copied["quality"], 1);
  EXPECT_EQ(copied["rejected"], 9);  // three per epoch, one a duplicate with its derived detail
  EXPECT_EQ(copied["positions"], 159);
  EXPECT_EQ(copied["aircraft_positions"], 9);
}

TEST_F(PostgresSinkTest, RecoverReturnsTheLastCommittedEpoch) {
  model::SourceCatalog catalog;
  {
    auto pg = PostgresSink::Open(Options("run-1"), &catalog);
    ASSERT_TRUE(pg.ok()) << pg.error().message();
    auto empty = (*pg)->Recover();
    ASSERT_TRUE(empty.ok()) << empty.error().message();
    EXPECT_EQ(empty->last_epoch.value(), 0);
    EXPECT_TRUE(empty->runner_state.empty());
    ASSERT_TRUE((*pg)->Commit(SampleRows(catalog, 1), Checkpoint(1, "a.csv", 10)).ok());
    ASSERT_TRUE((*pg)->Commit(SampleRows(catalog, 2), Checkpoint(2, "a.csv", 20)).ok());
  }
  auto pg = PostgresSink::Open(Options("run-2"), &catalog);
  ASSERT_TRUE(pg.ok());
  auto recovered = (*pg)->Recover();
  ASSERT_TRUE(recovered.ok()) << recovered.error().message();
  EXPECT_EQ(recovered->last_epoch.value(), 2);
  ASSERT_EQ(recovered->progress.size(), 1U);
  EXPECT_EQ(recovered->progress[0].source, "a.csv");
  EXPECT_EQ(recovered->progress[0].next_offset.value(), 20);
  ASSERT_EQ(recovered->states.size(), 1U);
  EXPECT_EQ(recovered->states[0].bytes, "state 2 \x01\x02\xff");
  EXPECT_EQ(recovered->runner_state, "runner 2");
  // The next run continues the numbering.
  EXPECT_TRUE((*pg)->Commit(SampleRows(catalog, 3), Checkpoint(3, "a.csv", 30)).ok());
}

TEST_F(PostgresSinkTest, PositionsAlreadyPresentAreRewrittenAndTheEpochStillCommits) {
  model::SourceCatalog catalog;
  auto pg = PostgresSink::Open(Options("run-a"), &catalog);
  ASSERT_TRUE(pg.ok()) << pg.error().message();
  ASSERT_TRUE((*pg)->Commit(SampleRows(catalog, 1), Checkpoint(1, "a.csv", 10)).ok());
  // The same 50 keys again with other values, and one new key: the direct COPY meets a
  // unique violation, rolls back to its savepoint and takes the upsert path.
  auto rows = SampleRows(catalog, 1);
  for (auto& p : rows.positions) {
    p.lat = 10.5;
  }
  auto extra = rows.positions.back();
  extra.event_time += std::chrono::hours(1);
  rows.positions.push_back(extra);
  const auto committed = (*pg)->Commit(rows, Checkpoint(2, "a.csv", 20));
  ASSERT_TRUE(committed.ok()) << committed.error().message();
  auto db = PgConnection::Open(db_->dsn());
  ASSERT_TRUE(db.ok()) << db.error().message();
  auto found = (*db)->Query(
      "SELECT (SELECT count(*) FROM positions), (SELECT count(*) FROM positions WHERE lat = "
      "10.5), (SELECT count(*) FROM batches), (SELECT next_offset FROM source_progress), "
      "(SELECT count(*) FROM rejected)");
  ASSERT_TRUE(found.ok()) << found.error().message();
  EXPECT_EQ(found->Int(0, 0), 51);
  EXPECT_EQ(found->Int(0, 1), 51);
  EXPECT_EQ(found->Int(0, 2), 2);
  EXPECT_EQ(found->Int(0, 3), 20);
  EXPECT_EQ(found->Int(0, 4), 6);  // refusals append: three per epoch
  // The next epoch takes the direct path again.
  ASSERT_TRUE((*pg)->Commit(SampleRows(catalog, 3), Checkpoint(3, "a.csv", 30)).ok());
  auto total = (*db)->Query("SELECT count(*) FROM positions");
  ASSERT_TRUE(total.ok());
  EXPECT_EQ(total->Int(0, 0), 101);
}

TEST_F(PostgresSinkTest, ASecondWriterOfAPartitionIsFencedAndWritesNothing) {
  model::SourceCatalog catalog;
  auto a = PostgresSink::Open(Options("consumer-a"), &catalog);
  auto b = PostgresSink::Open(Options("consumer-b"), &catalog);
  ASSERT_TRUE(a.ok() && b.ok());
  const std::vector<base::PartitionId> partition3 = {base::PartitionId(3)};
  // Both believe they own partition 3 (b joined; a was expelled and has not noticed).
  auto cp_a = (*a)->Acquire("positions", partition3);
  auto cp_b = (*b)->Acquire("positions", partition3);
  ASSERT_TRUE(cp_a.ok() && cp_b.ok());
  EXPECT_FALSE((*cp_a)[0].next_offset.has_value());
  engine::PartitionedEpoch epoch;
  epoch.epoch = base::EpochId(1);
  epoch.records = 10;
  epoch.progress = {{PostgresSink::PartitionSource("positions", base::PartitionId(3)),
                     base::PartitionId(3), base::Offset(10)}};
  epoch.states = {{base::PartitionId(3), "state-b"}};
  auto committed = (*b)->CommitPartitions(SampleRows(catalog, 1), epoch);
  ASSERT_TRUE(committed.ok()) << committed.error().message();
  EXPECT_EQ(*committed, engine::CommitOutcome::kCommitted);
  epoch.states = {{base::PartitionId(3), "state-a"}};
  auto fenced = (*a)->CommitPartitions(SampleRows(catalog, 2), epoch);
  ASSERT_TRUE(fenced.ok()) << fenced.error().message();
  EXPECT_EQ(*fenced, engine::CommitOutcome::kFenced);
  // a re-acquires and sees b's commit; b's next commit still goes through.
  auto again = (*a)->Acquire("positions", partition3);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)[0].next_offset->value(), 10);
  EXPECT_EQ((*again)[0].state, "state-b");
  epoch.epoch = base::EpochId(2);
  epoch.progress[0].next_offset = base::Offset(20);
  epoch.finished = {base::PartitionId(3)};
  auto second = (*b)->CommitPartitions(SampleRows(catalog, 3), epoch);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, engine::CommitOutcome::kCommitted);
  auto finished = (*a)->FinishedPartitions("positions");
  ASSERT_TRUE(finished.ok());
  EXPECT_EQ(*finished, 1);
  // Only b's two epochs are in the tables.
  PostgresCopySummary summary;
  ASSERT_TRUE(CopyPostgresToDuckDb(db_->dsn(), {}, &summary).ok());
  EXPECT_EQ(summary.rows_per_table[0], (std::pair<std::string, std::int64_t>("positions", 100)));
}

// What a follower of two partitions reads: the frontier is the smallest committed
// watermark (none while a partition has none; the end once both committed their end
// marker); the positions come back as they went in, by event time; one process leads.
TEST_F(PostgresSinkTest, AFollowerSeesTheSmallestCommittedWatermarkAndThePositions) {
  model::SourceCatalog catalog;
  auto sink = PostgresSink::Open(Options("member"), &catalog);
  ASSERT_TRUE(sink.ok()) << sink.error().message();
  PostgresFollowedStream follower(db_->dsn());
  const auto frontier = [&](std::int32_t partitions) {
    auto f = follower.Frontier("positions", partitions);
    EXPECT_TRUE(f.ok()) << f.error().message();
    return f.ok() ? *f : base::Timestamp();
  };
  const base::Timestamp t0 = base::FromUnixMicros(1'656'570'000'000'000);
  const base::Timestamp none = base::Timestamp::min();
  const base::Timestamp end = base::Timestamp::max();
  EXPECT_EQ(frontier(2), none);
  const base::PartitionId p0(0);
  const base::PartitionId p1(1);
  ASSERT_TRUE((*sink)->Acquire("positions", {p0, p1}).ok());
  const auto commit = [&](base::PartitionId p, int salt, base::Timestamp watermark) {
    engine::PartitionedEpoch epoch;
    epoch.epoch = base::EpochId(salt);
    epoch.records = 50;
    epoch.progress = {{PostgresSink::PartitionSource("positions", p), p, base::Offset(salt * 50)}};
    epoch.states = {{p, "state", watermark}};
    if (watermark == end) {
      epoch.finished = {p};
    }
    auto outcome = (*sink)->CommitPartitions(SampleRows(catalog, salt), epoch);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message();
    EXPECT_EQ(*outcome, engine::CommitOutcome::kCommitted);
  };
  commit(p0, 1, t0 + std::chrono::seconds(30));
  EXPECT_EQ(frontier(2), none);  // partition 1 has committed nothing
  EXPECT_EQ(frontier(1), t0 + std::chrono::seconds(30));
  commit(p1, 2, t0 + std::chrono::seconds(20));
  EXPECT_EQ(frontier(2), t0 + std::chrono::seconds(20));
  EXPECT_EQ(frontier(3), none);
  commit(p1, 3, end);
  EXPECT_EQ(frontier(2), t0 + std::chrono::seconds(30));  // partition 1 is finished
  commit(p0, 4, end);
  EXPECT_EQ(frontier(2), end);

  // Positions: salts 1-4, 50 each, i-th at t0 + i x 1.000001 s + 7 x salt microseconds.
  std::vector<model::Position> read;
  const auto keep = [&](const model::Position& p) { read.push_back(p); };
  ASSERT_TRUE(follower.Read(none, t0 + std::chrono::seconds(20), keep).ok());
  ASSERT_EQ(read.size(), 80U);  // i = 0..19 of each salt
  EXPECT_EQ(read[0].event_time, t0 + std::chrono::microseconds(7));
  EXPECT_EQ(read[0].feed_id, "rio-brt");
  EXPECT_EQ(read[0].vehicle_id, "v0");
  EXPECT_EQ(read[0].route_id, "");
  EXPECT_EQ(read[0].trip_id, "trip \"quoted\", with\ttab");
  EXPECT_EQ(read[0].trip_start_date, "20220630");
  EXPECT_EQ(read[0].lat, -22.9 + 1);  // bit for bit
  EXPECT_EQ(read[0].lon, -43.123456789012345);
  for (std::size_t i = 1; i < read.size(); ++i) {
    EXPECT_LE(read[i - 1].event_time, read[i].event_time) << i;
  }
  read.clear();
  ASSERT_TRUE(follower.Read(t0 + std::chrono::seconds(20), end, keep).ok());
  EXPECT_EQ(read.size(), 120U);
  auto next = follower.NextEventTime(t0 + std::chrono::seconds(20));
  ASSERT_TRUE(next.ok() && next->has_value());
  EXPECT_EQ(**next, t0 + std::chrono::microseconds(20 * 1'000'001 + 7));
  next = follower.NextEventTime(t0 + std::chrono::hours(1));
  ASSERT_TRUE(next.ok());
  EXPECT_FALSE(next->has_value());

  // The lead: one holder per name, until its session ends.
  PostgresFollowedStream other(db_->dsn());
  auto lead = follower.Lead("positions#regularity");
  ASSERT_TRUE(lead.ok()) << lead.error().message();
  EXPECT_TRUE(*lead);
  EXPECT_TRUE(*follower.Lead("positions#regularity"));  // still
  EXPECT_FALSE(*other.Lead("positions#regularity"));
  EXPECT_TRUE(*other.Lead("another#regularity"));
  follower.Release();
  // The server frees the lock once it has seen the session end: soon, not at once.
  bool took_over = false;
  for (int attempt = 0; attempt < 100 && !took_over; ++attempt) {
    auto again = other.Lead("positions#regularity");
    ASSERT_TRUE(again.ok()) << again.error().message();
    took_over = *again;
    if (!took_over) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  EXPECT_TRUE(took_over);
}

// A follower's read finds its stretch of event time through the BRIN index, which
// matches every query on pages it has not summarized: so each read first summarizes the
// pages the members added. Should VACUUM hold the table, the read goes on without.
TEST_F(PostgresSinkTest, AFollowersReadSummarizesTheNewPagesOfTheTimeIndex) {
  model::SourceCatalog catalog;
  auto sink = PostgresSink::Open(Options("member"), &catalog);
  ASSERT_TRUE(sink.ok()) << sink.error().message();
  const base::PartitionId p0(0);
  ASSERT_TRUE((*sink)->Acquire("positions", {p0}).ok());
  const auto commit = [&](int salt) {
    engine::PartitionedEpoch epoch;
    epoch.epoch = base::EpochId(salt);
    epoch.records = 50;
    epoch.progress = {
        {PostgresSink::PartitionSource("positions", p0), p0, base::Offset(salt * 50)}};
    epoch.states = {{p0, "state", base::FromUnixMicros(1'656'570'000'000'000)}};
    auto outcome = (*sink)->CommitPartitions(SampleRows(catalog, salt), epoch);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message();
  };
  auto admin = PgConnection::Open(db_->dsn());
  ASSERT_TRUE(admin.ok()) << admin.error().message();
  const auto unsummarized = [&] {  // summarizes them, saying how many there were
    // positions is partitioned by day: each partition's BRIN index, summed.
    auto left = (*admin)->Query(
        "SELECT coalesce(sum(brin_summarize_new_values(i.inhrelid::regclass)), 0)::bigint "
        "FROM pg_inherits i WHERE i.inhparent = 'positions_event_time_brin'::regclass");
    EXPECT_TRUE(left.ok()) << left.error().message();
    return left.ok() ? left->Int(0, 0) : -1;
  };
  PostgresFollowedStream follower(db_->dsn());
  std::int64_t rows = 0;
  const auto count = [&](const model::Position& /*p*/) { ++rows; };

  // The index summarizes its first range of 128 pages from the start: the members'
  // positions fill several (20,050 rows of some 200 bytes).
  commit(1);
  ASSERT_TRUE((*admin)
                  ->Execute("INSERT INTO positions SELECT feed_id, 'w' || g, mode, route_id, "
                            "trip_id, trip_start_date, trip_start_time, direction_id, lat, lon, "
                            "reported_speed_kmh, bearing_deg, altitude_m, on_ground, "
                            "event_time + g * interval '1 second', ingest_time, "
                            "event_time_from_header, source, source_offset "
                            "FROM positions, generate_series(1, 400) AS g")
                  .ok());
  ASSERT_TRUE(follower.Read(base::Timestamp::min(), base::Timestamp::max(), count).ok());
  EXPECT_EQ(rows, 20'050);
  EXPECT_EQ(unsummarized(), 0);  // the read summarized every range of them

  // VACUUM's lock (SHARE UPDATE EXCLUSIVE, which summarizing takes too) is not waited for
  // long: the read goes on without summarizing (waiting for the lock, it would never end).
  commit(2);
  ASSERT_TRUE((*admin)->Execute("BEGIN; LOCK TABLE positions IN SHARE UPDATE EXCLUSIVE MODE").ok());
  rows = 0;
  ASSERT_TRUE(follower.Read(base::Timestamp::min(), base::Timestamp::max(), count).ok());
  EXPECT_EQ(rows, 20'100);
  auto next = follower.NextEventTime(base::Timestamp::min());
  ASSERT_TRUE(next.ok()) << next.error().message();
  EXPECT_TRUE(next->has_value());
  ASSERT_TRUE((*admin)->Execute("COMMIT").ok());
}

TEST_F(PostgresSinkTest, AVersionOneDatabaseIsMigratedToThePartialRejectedIndex) {
  model::SourceCatalog catalog;
  {
    auto pg = PostgresSink::Open(Options("run"), &catalog);
    ASSERT_TRUE(pg.ok());
    ASSERT_TRUE((*pg)->Commit(SampleRows(catalog, 1), Checkpoint(1, "a.csv", 10)).ok());
  }
  auto admin = PgConnection::Open(db_->dsn());
  ASSERT_TRUE(admin.ok());
  // Back to what version 1 left.
  ASSERT_TRUE((*admin)->Execute(std::string(kUnpartitioned)).ok());
  ASSERT_TRUE(
      (*admin)
          ->Execute("DROP INDEX rejected_feed_reason_rare; CREATE INDEX "
                    "rejected_feed_reason ON rejected (feed_id, reason); DROP TABLE "
                    "collector_polls; DROP TABLE rules; DROP TABLE departures, headways, alerts; "
                    "DROP TABLE aircraft_positions; ALTER TABLE engine_state DROP COLUMN "
                    "watermark; ALTER TABLE engine_state ALTER COLUMN state SET STORAGE "
                    "EXTENDED; DELETE FROM frota_schema WHERE version >= 2")
          .ok());
  {
    auto pg = PostgresSink::Open(Options("run-2"), &catalog);
    ASSERT_TRUE(pg.ok()) << pg.error().message();
  }
  auto found = (*admin)->Query(
      "SELECT (SELECT max(version) FROM frota_schema), (SELECT string_agg(indexdef, '; ') "
      "FROM pg_indexes WHERE tablename = 'rejected'), (SELECT count(*) FROM rejected), "
      "(SELECT attstorage FROM pg_attribute WHERE attrelid = 'engine_state'::regclass "
      "AND attname = 'state')");
  ASSERT_TRUE(found.ok()) << found.error().message();
  EXPECT_EQ(found->Int(0, 0), kPostgresSchemaVersion);
  EXPECT_EQ(found->Value(0, 1),
            "CREATE INDEX rejected_feed_reason_rare ON ONLY public.rejected USING btree "
            "(feed_id, reason) WHERE (reason <> 'duplicate'::text)");  // partitioned: version 9
  EXPECT_EQ(found->Int(0, 2), 3);
  // Version 8: states stored without compression ('e', external; the default is 'x').
  EXPECT_EQ(found->Value(0, 3), "e");
  // It held results: version 4 records the rules frota had compiled in then.
  auto rules = (*admin)->Query(
      "SELECT count(*), max(value) FILTER (WHERE key = 'stale_after_s') FROM rules");
  ASSERT_TRUE(rules.ok()) << rules.error().message();
  EXPECT_EQ(rules->Int(0, 0), 16);  // with version 10's segment speeds, as rule 6's
  EXPECT_EQ(rules->Value(0, 1), "300");
}

TEST_F(PostgresSinkTest, TheRulesAreRecordedOnceAndOthersRefused) {
  model::SourceCatalog catalog;
  auto options = Options("run");
  options.rules = {{"stale_after_s", 600}, {"max_speed_kmh.bus", 90}};
  {
    auto pg = PostgresSink::Open(options, &catalog);
    ASSERT_TRUE(pg.ok()) << pg.error().message();
  }
  {
    auto again = PostgresSink::Open(options, &catalog);
    ASSERT_TRUE(again.ok()) << again.error().message();
  }
  options.rules = {{"stale_after_s", 300}, {"max_speed_kmh.bus", 90}};
  auto other = PostgresSink::Open(options, &catalog);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message().find("stale_after_s=600, this run has stale_after_s=300"),
            std::string::npos)
      << other.error().message();
}

// Garages recorded at open place a stop inside them at a depot, as in DuckDB; a second
// opening with the same garages keeps the one set, one without leaves it.
TEST_F(PostgresSinkTest, AStopInsideAGarageIsAtADepot) {
  model::SourceCatalog catalog;
  auto garages = geo::Area::FromRings(
      {{{-43.3935, -22.9665}, {-43.3895, -22.9665}, {-43.3915, -22.9625}}}, "garage");
  ASSERT_TRUE(garages.ok());
  auto options = Options("run");
  options.garages = GarageEdges(garages->rings());
  for (int i = 0; i < 2; ++i) {
    auto pg = PostgresSink::Open(options, &catalog);
    ASSERT_TRUE(pg.ok()) << pg.error().message();
  }
  ASSERT_TRUE(PostgresSink::Open(Options("run-2"), &catalog).ok());
  auto admin = PgConnection::Open(db_->dsn());
  ASSERT_TRUE(admin.ok());
  for (const auto& [vehicle, lat, near] :
       {std::tuple{"in", -22.9645, "true"}, std::tuple{"way", -22.9700, "false"}}) {
    ASSERT_TRUE((*admin)
                    ->Execute(fmt::format(
                        "INSERT INTO stops (feed_id, vehicle_id, start_time, mode, route_id, "
                        "end_time, anchor_lat, anchor_lon, positions, near_terminal) VALUES "
                        "('f', '{}', '2022-01-03 02:00', 'brt', 'R', '2022-01-03 02:30', {}, "
                        "-43.3915, 10, {})",
                        vehicle, lat, near))
                    .ok());
  }
  auto places = (*admin)->Query(
      "SELECT (SELECT count(*) FROM garage_edges), string_agg(vehicle_id || ' ' || place, ', ' "
      "ORDER BY vehicle_id) FROM stop_rows");
  ASSERT_TRUE(places.ok()) << places.error().message();
  EXPECT_EQ(places->Int(0, 0), 2);  // the triangle's base is horizontal
  EXPECT_EQ(places->Value(0, 1), "in depot, way en_route");
}

TEST_F(PostgresSinkTest, ADatabaseWithANewerSchemaIsRefused) {
  model::SourceCatalog catalog;
  {
    auto pg = PostgresSink::Open(Options("run"), &catalog);
    ASSERT_TRUE(pg.ok());
  }
  auto admin = PgConnection::Open(db_->dsn());
  ASSERT_TRUE(admin.ok());
  ASSERT_TRUE(
      (*admin)->Execute("INSERT INTO frota_schema VALUES (99, now(), 'from the future')").ok());
  auto refused = PostgresSink::Open(Options("run"), &catalog);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("schema version 99, newer than this frota"),
            std::string::npos)
      << refused.error().message();
  auto reader = CopyPostgresToDuckDb(db_->dsn());
  ASSERT_FALSE(reader.ok());
}

TEST_F(PostgresSinkTest, AForeignDatabaseIsRefusedAndAPasswordNeverShows) {
  auto admin = PgConnection::Open(db_->dsn());
  ASSERT_TRUE(admin.ok());
  ASSERT_TRUE((*admin)->Execute("CREATE TABLE customers (id int)").ok());
  model::SourceCatalog catalog;
  auto refused = PostgresSink::Open(Options("run"), &catalog);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("not a frota database"), std::string::npos);

  // A DSN with a password, to a port where nothing listens: the error names host and port,
  // never the password.
  PostgresSinkOptions o;
  o.dsn = "host=127.0.0.1 port=1 dbname=x user=u password=s3cr3t-pw connect_timeout=1";
  o.unavailable_wait = std::chrono::seconds(1);
  auto unreachable = PostgresSink::Open(o, &catalog);
  ASSERT_FALSE(unreachable.ok());
  EXPECT_EQ(unreachable.error().message().find("s3cr3t-pw"), std::string::npos)
      << unreachable.error().message();
  EXPECT_NE(unreachable.error().message().find("port=1"), std::string::npos)
      << unreachable.error().message();
  EXPECT_EQ(PgConnection::Describe("postgresql://u:s3cr3t@h:5/db").find("s3cr3t"),
            std::string::npos);
}

// The schema that migrations build is the one the catalog describes (model/tables.h):
// each catalog table has the columns, types, nullability and primary key of the
// catalog's PostgreSQL DDL, run here in a schema of its own.
TEST_F(PostgresSinkTest, MigratedSchemaMatchesTheCatalogsDdl) {
  model::SourceCatalog catalog;
  {
    auto pg = PostgresSink::Open(Options("run"), &catalog);
    ASSERT_TRUE(pg.ok());
  }
  auto admin = PgConnection::Open(db_->dsn());
  ASSERT_TRUE(admin.ok());
  ASSERT_TRUE((*admin)->Execute("CREATE SCHEMA catalog_ddl").ok());
  const auto columns = [&](std::string_view schema, std::string_view table) {
    std::vector<std::string> out;
    auto r = (*admin)->Query(
        fmt::format("SELECT column_name, data_type, is_nullable FROM information_schema.columns "
                    "WHERE table_schema = '{0}' AND table_name = '{1}' ORDER BY ordinal_position",
                    schema, table));
    EXPECT_TRUE(r.ok());
    for (int i = 0; r.ok() && i < r->rows(); ++i) {
      out.push_back(fmt::format("{} {} {}", r->Value(i, 0), r->Value(i, 1), r->Value(i, 2)));
    }
    auto key = (*admin)->Query(
        fmt::format("SELECT string_agg(a.attname, ', ' ORDER BY k.ord) FROM pg_index i "
                    "CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) "
                    "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum "
                    "WHERE i.indisprimary AND i.indrelid = '{0}.{1}'::regclass",
                    schema, table));
    EXPECT_TRUE(key.ok());
    out.push_back(fmt::format("key {}", key.ok() && key->rows() > 0 ? key->Value(0, 0) : ""));
    return out;
  };
  for (const model::TableSpec* table : model::CatalogTables()) {
    ASSERT_TRUE((*admin)
                    ->Execute("SET search_path = catalog_ddl; " +
                              CreateTableSql(*table, SqlDialect::kPostgres) +
                              " SET search_path = public;")
                    .ok());
    const auto expected = columns("catalog_ddl", table->name);
    EXPECT_GT(expected.size(), 1U) << table->name;
    EXPECT_EQ(columns("public", table->name), expected) << table->name;
  }
}

// A database of the schema before the raw tables were partitioned moves every row into
// day partitions: none lost, none doubled, one partition per day of each table.
TEST_F(PostgresSinkTest, AnUnpartitionedDatabaseMovesEveryRowIntoDayPartitions) {
  model::SourceCatalog catalog;
  {
    auto pg = PostgresSink::Open(Options("run"), &catalog);
    ASSERT_TRUE(pg.ok());
    ASSERT_TRUE((*pg)->Commit(SampleRows(catalog, 1), Checkpoint(1, "a.csv", 10)).ok());
  }
  auto admin = PgConnection::Open(db_->dsn());
  ASSERT_TRUE(admin.ok());
  ASSERT_TRUE((*admin)->Execute(std::string(kUnpartitioned)).ok());
  // Rows of three more days, as a version 8 frota stored them, a refused duplicate among.
  ASSERT_TRUE((*admin)
                  ->Execute("INSERT INTO positions SELECT feed_id, vehicle_id || d, mode, "
                            "route_id, trip_id, trip_start_date, trip_start_time, direction_id, "
                            "lat, lon, reported_speed_kmh, bearing_deg, altitude_m, on_ground, "
                            "event_time + d * interval '1 day', ingest_time, "
                            "event_time_from_header, source, source_offset "
                            "FROM positions, generate_series(1, 3) d; "
                            "INSERT INTO rejected SELECT feed_id, vehicle_id, reason, "
                            "event_time + interval '2 days', ingest_time + interval '2 days', "
                            "source, source_offset, detail FROM rejected")
                  .ok());
  const auto counts = [&] {
    auto found = (*admin)->Query(
        "SELECT (SELECT count(*) FROM positions), (SELECT count(*) FROM rejected), "
        "(SELECT count(*) FROM rejected WHERE reason = 'duplicate'), "
        "(SELECT count(*) FROM collector_polls), (SELECT sum(lat) FROM positions)");
    EXPECT_TRUE(found.ok()) << found.error().message();
    return found.ok() ? std::string(found->Value(0, 0)) + " " + std::string(found->Value(0, 1)) +
                            " " + std::string(found->Value(0, 2)) + " " +
                            std::string(found->Value(0, 3)) + " " + std::string(found->Value(0, 4))
                      : std::string();
  };
  const std::string before = counts();
  {
    auto pg = PostgresSink::Open(Options("run-2"), &catalog);
    ASSERT_TRUE(pg.ok()) << pg.error().message();
  }
  EXPECT_EQ(counts(), before);
  auto layout = (*admin)->Query(
      "SELECT (SELECT relkind::text FROM pg_class WHERE relname = 'positions'), "
      "(SELECT count(*) FROM pg_inherits WHERE inhparent = 'positions'::regclass), "
      "(SELECT count(*) FROM pg_inherits WHERE inhparent = 'rejected'::regclass), "
      "(SELECT max(version) FROM frota_schema)");
  ASSERT_TRUE(layout.ok()) << layout.error().message();
  EXPECT_EQ(layout->Value(0, 0), "p");
  EXPECT_EQ(layout->Int(0, 1), 4);  // the sample's day and three more
  EXPECT_EQ(layout->Int(0, 2), 2);  // the sample's refusals' day, and two days later
  EXPECT_EQ(layout->Int(0, 3), kPostgresSchemaVersion);
}

// Retention drops the day partitions wholly before the cut, deletes the rows before it
// in the partition the cut falls in, and leaves everything after; run again, it removes
// nothing more.
TEST_F(PostgresSinkTest, RetentionDropsWholeDaysAndDeletesTheRestBeforeTheCut) {
  model::SourceCatalog catalog;
  auto pg = PostgresSink::Open(Options("run"), &catalog);
  ASSERT_TRUE(pg.ok()) << pg.error().message();
  // Positions on four UTC days (the sample's, 2022-06-30, and the three after).
  for (int day = 0; day < 4; ++day) {
    auto rows = SampleRows(catalog, day);
    for (auto& p : rows.positions) {
      p.event_time += std::chrono::days(day);
    }
    rows.of<model::DuplicateCountRow>().push_back(
        {0, "rio-brt", "v1", base::LocalDateFromDays(19173 + day), 6, 2});
    ASSERT_TRUE((*pg)->Commit(rows, Checkpoint(day + 1, "a.csv", 10 * (day + 1))).ok());
  }
  auto admin = PgConnection::Open(db_->dsn());
  ASSERT_TRUE(admin.ok());
  const auto count = [&](std::string_view sql) {
    auto found = (*admin)->Query(std::string(sql));
    EXPECT_TRUE(found.ok()) << found.error().message();
    return found.ok() ? found->Int(0, 0) : -1;
  };
  ASSERT_EQ(count("SELECT count(*) FROM pg_inherits WHERE inhparent = 'positions'::regclass"), 4);
  // Keep from 2022-07-02 03:00 UTC (local midnight in Rio) on.
  engine::RetentionCut cut{base::LocalDateFromDays(19175),
                           base::FromUnixSeconds(19175LL * 86400 + 3 * 3600)};
  const std::int64_t kept_positions =
      count("SELECT count(*) FROM positions WHERE event_time >= '2022-07-02 03:00'");
  for (int again = 0; again < 2; ++again) {
    auto checkpoint = Checkpoint(5 + again, "a.csv", 50 + again);
    checkpoint.retention.raw = cut;
    ASSERT_TRUE((*pg)->Commit(model::EpochRows(), checkpoint).ok());
    EXPECT_EQ(count("SELECT count(*) FROM positions"), kept_positions);
    EXPECT_EQ(count("SELECT count(*) FROM positions WHERE event_time < '2022-07-02 03:00'"), 0);
    // 2022-06-30 and 07-01 dropped whole; 07-02 straddles the cut.
    EXPECT_EQ(count("SELECT count(*) FROM pg_inherits WHERE inhparent = 'positions'::regclass"), 2);
    EXPECT_EQ(count("SELECT count(*) FROM duplicate_counts WHERE local_date < '2022-07-02'"), 0);
    EXPECT_EQ(count("SELECT sum(records) FROM duplicate_counts"), 4);
    // Results are kept without --retain-results-days.
    EXPECT_EQ(count("SELECT count(*) FROM stops"), 4);
  }
}

}  // namespace
}  // namespace frota::sink
