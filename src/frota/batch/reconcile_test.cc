// The batch recomputation against the stream: random feeds with every fault through the
// stream pipeline into DuckDB, then reconciled; planted differences of every kind.
#include "frota/batch/reconcile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "frota/base/time_zone.h"
#include "frota/batch/sql_files.h"
#include "frota/geo/area.h"
#include "frota/geo/haversine.h"
#include "frota/job/pipeline.h"
#include "frota/job/rules.h"
#include "frota/job/testing/random_feed.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/testing/subprocess.h"

namespace frota::batch {
namespace {

namespace fs = std::filesystem;
using job::testing::OfferedRecord;

std::unique_ptr<runner::ReplayContext> RandomFeedContext() {
  auto context = std::make_unique<runner::ReplayContext>();
  auto area = geo::Area::ParseGeoJson(job::testing::RandomFeedAreaGeoJson(), "random-feed-area");
  EXPECT_TRUE(area.ok());
  context->area.emplace(std::move(area).value());
  context->job.area = &*context->area;
  context->job.time_zone =
      std::make_shared<const base::TimeZone>(*base::TimeZone::Load("America/Sao_Paulo"));
  return context;
}

// Appends records that arrive after the watermark passed them: each copies a record of
// the feed with its times moved back to `behind` before the feed's largest event time,
// ingest 200 s after the event (neither stale nor future), at the end of the arrival.
void AddLateArrivals(std::vector<OfferedRecord>& records, std::uint64_t seed) {
  base::Timestamp newest;
  for (const auto& r : records) {
    newest = std::max(newest, r.position.event_time);
  }
  std::mt19937_64 rng(seed);
  std::map<std::int32_t, std::int64_t> next_offset;
  for (const auto& r : records) {
    auto& o = next_offset[r.partition.value()];
    o = std::max(o, r.position.source.offset + 1);
  }
  // Copies of positions near the first one (inside the area), so that the late rule,
  // not out_of_area, is what decides them.
  std::vector<std::size_t> inside;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& p = records[i].position;
    if (std::abs(p.lat - records.front().position.lat) < 0.03 &&
        std::abs(p.lon - records.front().position.lon) < 0.03) {
      inside.push_back(i);
    }
  }
  ASSERT_FALSE(inside.empty());
  for (const int behind_s : {300, 359, 360, 361, 400, 900, 2000}) {
    OfferedRecord late = records[inside[rng() % inside.size()]];
    late.position.event_time = newest - std::chrono::seconds(behind_s);
    late.position.ingest_time = late.position.event_time + std::chrono::seconds(200);
    late.position.source.offset = next_offset[late.partition.value()]++;
    records.push_back(std::move(late));
  }
}

// The stream: the pipeline over `records` into a DuckDB file, committed in epochs.
// `record_rules`: the sink records the context's rules, as `frota replay` has it do.
void RunStream(const std::vector<OfferedRecord>& records, const runner::ReplayContext& context,
               model::SourceCatalog& catalog, int partitions, const fs::path& db,
               bool record_rules = false) {
  job::Pipeline pipeline(context.job, job::Routing::kByKeyHash, partitions, &catalog, 1);
  sink::DuckDbSinkOptions sink_options;
  if (record_rules) {
    sink_options.rules = job::RuleValues(context.job);
  }
  auto sink = sink::DuckDbSink::Open(db, &catalog, "reconcile-test", sink_options);
  ASSERT_TRUE(sink.ok()) << sink.error().message();
  std::int64_t epoch = 0;
  const auto commit = [&] {
    engine::EpochCheckpoint checkpoint;
    checkpoint.epoch = base::EpochId(++epoch);
    const auto status = (*sink)->Commit(pipeline.TakeRows(), checkpoint);
    ASSERT_TRUE(status.ok()) << status.error().message();
  };
  std::size_t n = 0;
  for (const auto& record : records) {
    model::Position p = record.position;
    pipeline.Offer(record.partition, std::move(p));
    if (++n % 500 == 0) {
      pipeline.Advance();
      commit();
    }
  }
  pipeline.Finish();
  commit();
}

std::unique_ptr<BatchRecomputation> Recompute(const std::vector<OfferedRecord>& records,
                                              const runner::ReplayContext& context,
                                              const model::SourceCatalog& catalog,
                                              bool exact_watermark) {
  BatchRecomputation::Options options;
  options.exact_watermark = exact_watermark;
  auto batch = BatchRecomputation::Create(context, catalog, options);
  EXPECT_TRUE(batch.ok()) << batch.error().message();
  for (const auto& r : records) {
    source::SourceRecord record;
    record.partition = r.partition;
    record.offset = r.position.source.offset;
    record.order_time = r.position.ingest_time;
    record.record = r.position;
    const auto status = (*batch)->Add(record);
    EXPECT_TRUE(status.ok()) << status.error().message();
  }
  return std::move(batch).value();
}

std::string Describe(const ReconcileReport& report) { return ReconcileText(report); }

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

class ReconcileRandomFeed : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(ReconcileRandomFeed, TheBatchRecomputationEqualsTheStreamRowForRow) {
  const std::uint64_t seed = GetParam();
  testing::TempDir dir("reconcile_random_" + std::to_string(seed));
  const auto context = RandomFeedContext();
  model::SourceCatalog catalog;
  job::testing::RandomFeedOptions options;
  options.seed = seed;
  options.vehicles = 8 + static_cast<int>(seed % 7);
  auto records = job::testing::GenerateRandomFeed(options, catalog);
  AddLateArrivals(records, seed);
  const auto db = dir.path() / "stream.duckdb";
  RunStream(records, *context, catalog, 1 + static_cast<int>(seed % 4), db);

  // Once the way reconcile runs (the cheap bound, then the exact watermark only if a
  // record could be late), once with the exact watermark for every record.
  for (const bool exact : {false, true}) {
    SCOPED_TRACE(exact ? "exact watermark" : "bounded watermark");
    auto batch = Recompute(records, *context, catalog, exact);
    const auto report = batch->CompareWith(db);
    ASSERT_TRUE(report.ok()) << report.error().message();
    EXPECT_TRUE(report->equal) << Describe(*report);
    EXPECT_GT(report->late_rounds, 0);
    // Every kind of outcome is there to compare.
    auto& conn = batch->connection();
    auto reasons = conn.Query("SELECT count(DISTINCT reason) FROM batch_rejected");
    ASSERT_TRUE(reasons.ok());
    EXPECT_EQ(reasons->Int64(0, 0), 6) << "future, stale, out_of_area, duplicate, jump, late";
    EXPECT_GT(Table(*report, "stops").batch_rows, 0);
    EXPECT_GT(Table(*report, "trips").batch_rows, 0);
    EXPECT_GT(Table(*report, "duplicate_slots").batch_rows, 0);
    // No aircraft: the report lists the tables it always did.
    for (const auto& t : report->tables) {
      EXPECT_NE(t.table, "aircraft_positions");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, ReconcileRandomFeed, ::testing::Range<std::uint64_t>(1, 9));

std::int64_t RejectedFor(sink::DuckDbConnection& db, const std::string& reason) {
  auto n = db.Query(fmt::format("SELECT count(*) FROM batch_rejected WHERE reason = '{}'", reason));
  EXPECT_TRUE(n.ok()) << n.error().message();
  return n.ok() ? n->Int64(0, 0) : -1;
}

// A stream made with loosened rules (and its database recording them) reconciles with
// them, although the batch is handed the default rules: reconcile reads the database's.
TEST(ReconcileRules, ADatabaseMadeWithOtherRulesIsRecomputedWithThem) {
  testing::TempDir dir("reconcile_rules");
  const auto defaults = RandomFeedContext();
  auto loosened = RandomFeedContext();
  ASSERT_TRUE(job::ApplyRuleFlags(loosened->job, {"stale_after_s=600", "future_tolerance_s=45",
                                                  "max_speed_kmh.bus=90", "idle_timeout_s=60",
                                                  "watermark_slack_s=10"})
                  .ok());
  ASSERT_EQ(loosened->job.max_lateness(), std::chrono::minutes(11));  // 655 s, rounded up
  model::SourceCatalog catalog;
  job::testing::RandomFeedOptions options;
  options.seed = 11;
  options.vehicles = 12;
  auto records = job::testing::GenerateRandomFeed(options, catalog);
  AddLateArrivals(records, options.seed);
  const auto recorded = dir.path() / "recorded.duckdb";
  const auto unrecorded = dir.path() / "unrecorded.duckdb";
  const auto plain = dir.path() / "defaults.duckdb";
  RunStream(records, *loosened, catalog, 2, recorded, /*record_rules=*/true);
  RunStream(records, *loosened, catalog, 2, unrecorded, /*record_rules=*/false);
  RunStream(records, *defaults, catalog, 2, plain, /*record_rules=*/true);

  auto batch = Recompute(records, *defaults, catalog, /*exact_watermark=*/false);
  const auto report = batch->CompareWith(recorded);
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_TRUE(report->equal) << Describe(*report);
  EXPECT_EQ(report->rules, job::RuleValues(loosened->job));
  const std::int64_t stale_loosened = RejectedFor(batch->connection(), "stale");
  const std::int64_t jump_loosened = RejectedFor(batch->connection(), "jump");

  auto with_defaults = Recompute(records, *defaults, catalog, false);
  const auto default_report = with_defaults->CompareWith(plain);
  ASSERT_TRUE(default_report.ok()) << default_report.error().message();
  EXPECT_TRUE(default_report->equal) << Describe(*default_report);
  // The loosened stale rule refuses fewer records as stale: exactly those whose age is
  // above the default's 300 s and within 600 s; the tighter bus speed refuses more as
  // jumps.
  std::int64_t aged = 0;
  for (const auto& r : records) {
    const auto age = r.position.ingest_time - r.position.event_time;
    aged += age > std::chrono::seconds(300) && age <= std::chrono::seconds(600) ? 1 : 0;
  }
  ASSERT_GT(aged, 0);
  EXPECT_EQ(RejectedFor(with_defaults->connection(), "stale") - stale_loosened, aged);
  EXPECT_GT(jump_loosened, RejectedFor(with_defaults->connection(), "jump"));

  // Without the recorded rules the same stream is not what the defaults give: the
  // comparison can fail, and it is the recorded rules that make it pass.
  auto unrecorded_batch = Recompute(records, *defaults, catalog, false);
  const auto mismatch = unrecorded_batch->CompareWith(unrecorded);
  ASSERT_TRUE(mismatch.ok()) << mismatch.error().message();
  EXPECT_FALSE(mismatch->equal);
}

TEST(ReconcileRules, ASinkRefusesADatabaseMadeWithOtherRules) {
  testing::TempDir dir("reconcile_rules_refused");
  const auto db = dir.path() / "stream.duckdb";
  model::SourceCatalog catalog;
  job::JobConfig loosened;
  ASSERT_TRUE(job::SetRule(loosened, "stale_after_s", 600.0).ok());
  sink::DuckDbSinkOptions first;
  first.rules = job::RuleValues(loosened);
  ASSERT_TRUE(sink::DuckDbSink::Open(db, &catalog, "first", first).ok());
  // The same rules again: accepted (a resume).
  ASSERT_TRUE(sink::DuckDbSink::Open(db, &catalog, "again", first).ok());
  sink::DuckDbSinkOptions other;
  other.rules = job::RuleValues(job::JobConfig{});
  const auto refused = sink::DuckDbSink::Open(db, &catalog, "other", other);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("stale_after_s=600"), std::string::npos)
      << refused.error().message();
  EXPECT_NE(refused.error().message().find("stale_after_s=300"), std::string::npos);
}

// One wrong row of each kind planted in a copy of the stream's database, in several
// tables: reconcile must count each one where it was planted and nowhere else.
TEST(ReconcilePlanted, EveryMissingExtraAndChangedRowIsCaught) {
  testing::TempDir dir("reconcile_planted");
  const auto context = RandomFeedContext();
  model::SourceCatalog catalog;
  job::testing::RandomFeedOptions options;
  options.seed = 42;
  const auto records = job::testing::GenerateRandomFeed(options, catalog);
  const auto db = dir.path() / "stream.duckdb";
  RunStream(records, *context, catalog, 2, db);

  {
    auto conn = sink::DuckDbConnection::Open(db);
    ASSERT_TRUE(conn.ok());
    // For each table: delete one row (missing), copy one row under a new key (extra),
    // change one value of another row (different).
    // Per table: change a value of the last row (different), copy that row under a new
    // key (extra), delete every row of the first row's key (missing).
    const char* plant = R"sql(
      UPDATE positions_data SET lat = lat + 0.000001
        WHERE rowid = (SELECT max(rowid) FROM positions_data);
      INSERT INTO positions_data SELECT * REPLACE (source_offset + 1000000 AS source_offset)
        FROM positions_data WHERE rowid = (SELECT max(rowid) FROM positions_data);
      DELETE FROM positions_data WHERE rowid = (SELECT min(rowid) FROM positions_data);

      -- Refusals are rows of rejected_data, duplicates counts (schema_v9.sql): one of each
      -- kind planted in both.
      UPDATE rejected_data SET detail = detail || ' (edited)'
        WHERE rowid = (SELECT max(rowid) FROM rejected_data);
      INSERT INTO rejected_data SELECT * REPLACE (source_offset + 1000000 AS source_offset)
        FROM rejected_data WHERE rowid = (SELECT max(rowid) FROM rejected_data);
      DELETE FROM rejected_data WHERE rowid = (SELECT min(rowid) FROM rejected_data);
      UPDATE duplicate_counts SET records = records + 1
        WHERE rowid = (SELECT max(rowid) FROM duplicate_counts);
      INSERT INTO duplicate_counts SELECT * REPLACE (vehicle_id || '-planted' AS vehicle_id)
        FROM duplicate_counts WHERE rowid = (SELECT max(rowid) FROM duplicate_counts);
      DELETE FROM duplicate_counts USING
        (SELECT feed_id AS f, vehicle_id AS v, local_date AS d, hour AS h
         FROM duplicate_counts WHERE rowid = (SELECT min(rowid) FROM duplicate_counts)) k
        WHERE feed_id = k.f AND vehicle_id = k.v AND local_date = k.d AND hour = k.h;

      UPDATE speed_cells SET duration_us = duration_us + 1
        WHERE rowid = (SELECT max(rowid) FROM speed_cells);
      INSERT INTO speed_cells SELECT * REPLACE (cell_x + 100000 AS cell_x)
        FROM speed_cells WHERE rowid = (SELECT max(rowid) FROM speed_cells);
      DELETE FROM speed_cells USING
        (SELECT mode AS m, local_date AS d, hour AS h, cell_x AS x, cell_y AS y
         FROM speed_cells WHERE rowid = (SELECT min(rowid) FROM speed_cells)) k
        WHERE mode = k.m AND local_date = k.d AND hour = k.h AND cell_x = k.x AND cell_y = k.y;

      UPDATE speed_lines SET distance_mm = distance_mm + 1000
        WHERE rowid = (SELECT max(rowid) FROM speed_lines);

      UPDATE stops SET near_terminal = NOT coalesce(near_terminal, false)
        WHERE rowid = (SELECT max(rowid) FROM stops);
      INSERT INTO stops SELECT * REPLACE (start_time + INTERVAL 1 SECOND AS start_time)
        FROM stops WHERE rowid = (SELECT max(rowid) FROM stops);
      DELETE FROM stops WHERE rowid = (SELECT min(rowid) FROM stops);

      UPDATE trips SET positions = positions + 1 WHERE rowid = (SELECT max(rowid) FROM trips);
      INSERT INTO trips SELECT * REPLACE (trip_id || '-planted' AS trip_id)
        FROM trips WHERE rowid = (SELECT max(rowid) FROM trips);
      DELETE FROM trips WHERE rowid = (SELECT min(rowid) FROM trips);

      UPDATE fleet_hours SET vehicles = vehicles + 1
        WHERE rowid = (SELECT min(rowid) FROM fleet_hours);
      UPDATE quality SET stale = stale + 1 WHERE rowid = (SELECT min(rowid) FROM quality);
    )sql";
    const auto status = (*conn)->Execute(plant);
    ASSERT_TRUE(status.ok()) << status.error().message();
  }

  auto batch = Recompute(records, *context, catalog, false);
  const auto report = batch->CompareWith(db);
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_FALSE(report->equal);
  struct Expected {
    const char* table;
    std::int64_t missing;
    std::int64_t extra;
    std::int64_t different;
  };
  const Expected expected[] = {
      {"positions", 1, 1, 1},   {"rejected", 1, 1, 1},    {"speed_cells", 1, 1, 1},
      {"speed_lines", 0, 0, 1}, {"fleet_hours", 0, 0, 1}, {"stops", 1, 1, 1},
      {"trips", 1, 1, 1},       {"quality", 0, 0, 1},     {"duplicate_counts", 1, 1, 1},
  };
  for (const auto& e : expected) {
    const auto& t = Table(*report, e.table);
    EXPECT_EQ(t.missing, e.missing) << e.table << "\n" << Describe(*report);
    EXPECT_EQ(t.extra, e.extra) << e.table;
    EXPECT_EQ(t.different, e.different) << e.table;
    EXPECT_EQ(static_cast<std::int64_t>(t.examples.size()), e.missing + e.extra + e.different)
        << e.table;
  }
  for (const char* untouched : {"quality_latency"}) {
    EXPECT_TRUE(Table(*report, untouched).equal()) << untouched << "\n" << Describe(*report);
  }
  // The JSON carries the same numbers and the examples.
  const std::string json = ReconcileJson(*report);
  EXPECT_NE(json.find("\"equal\": false"), std::string::npos);
  EXPECT_NE(json.find("(edited)"), std::string::npos);
}

TEST(ReconcilePlanted, ARepeatedStreamRowIsExtra) {
  testing::TempDir dir("reconcile_repeated");
  const auto context = RandomFeedContext();
  model::SourceCatalog catalog;
  job::testing::RandomFeedOptions options;
  options.seed = 7;
  options.vehicles = 4;
  const auto records = job::testing::GenerateRandomFeed(options, catalog);
  const auto db = dir.path() / "stream.duckdb";
  RunStream(records, *context, catalog, 1, db);
  {
    auto conn = sink::DuckDbConnection::Open(db);
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE(
        (*conn)->Execute("INSERT INTO positions_data SELECT * FROM positions_data LIMIT 2").ok());
  }
  auto batch = Recompute(records, *context, catalog, false);
  const auto report = batch->CompareWith(db);
  ASSERT_TRUE(report.ok()) << report.error().message();
  const auto& positions = Table(*report, "positions");
  EXPECT_EQ(positions.extra, 2);
  EXPECT_EQ(positions.missing + positions.different, 0);
}

// Some vehicles of a random feed as aircraft with their origin country and last contact
// (one without either, one with a country alone): the batch carries both from the input,
// the comparison finds the stream's equal, then each planted difference.
TEST(ReconcileAircraft, OriginCountryAndLastContactAreComparedRowByRow) {
  testing::TempDir dir("reconcile_aircraft");
  const auto context = RandomFeedContext();
  model::SourceCatalog catalog;
  job::testing::RandomFeedOptions options;
  options.seed = 5;
  options.vehicles = 6;
  auto records = job::testing::GenerateRandomFeed(options, catalog);
  std::set<std::string> aircraft;
  for (auto& r : records) {
    model::Position& p = r.position;
    const char last = p.vehicle_id.empty() ? '0' : p.vehicle_id.back();
    if (last % 2 == 0) {
      continue;
    }
    aircraft.insert(p.vehicle_id);
    p.mode = model::Mode::kAircraft;
    if (last != '1') {  // V005's country is blank, as a feed may send it
      p.origin_country = last == '3' ? "Brazil" : "";
      p.has_origin_country = true;
    }
    if (last != '1' && last != '3') {
      p.last_contact = base::ToUnixMicros(p.event_time) / 1'000'000 + (p.source.offset % 3);
    }
  }
  ASSERT_GE(aircraft.size(), 2U);
  const auto db = dir.path() / "stream.duckdb";
  RunStream(records, *context, catalog, 2, db);
  {
    auto batch = Recompute(records, *context, catalog, false);
    const auto report = batch->CompareWith(db);
    ASSERT_TRUE(report.ok()) << report.error().message();
    EXPECT_TRUE(report->equal) << Describe(*report);
    const auto& t = Table(*report, "aircraft_positions");
    EXPECT_GT(t.stream_rows, 10);
    EXPECT_EQ(t.stream_rows, t.batch_rows);
    EXPECT_EQ(report->tables.back().table, "aircraft_positions");
  }
  {
    auto conn = sink::DuckDbConnection::Open(db);
    ASSERT_TRUE(conn.ok());
    const auto status = (*conn)->Execute(R"sql(
      UPDATE aircraft_positions SET last_contact = coalesce(last_contact, 0) + 1
        WHERE rowid = (SELECT max(rowid) FROM aircraft_positions);
      INSERT INTO aircraft_positions SELECT * REPLACE (event_time + INTERVAL 1 DAY AS event_time)
        FROM aircraft_positions WHERE rowid = (SELECT max(rowid) FROM aircraft_positions);
      DELETE FROM aircraft_positions WHERE rowid = (SELECT min(rowid) FROM aircraft_positions);
    )sql");
    ASSERT_TRUE(status.ok()) << status.error().message();
  }
  auto batch = Recompute(records, *context, catalog, false);
  const auto report = batch->CompareWith(db);
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_FALSE(report->equal);
  const auto& t = Table(*report, "aircraft_positions");
  EXPECT_EQ(t.missing, 1) << Describe(*report);
  EXPECT_EQ(t.extra, 1);
  EXPECT_EQ(t.different, 1);
  EXPECT_TRUE(Table(*report, "positions").equal());
}

TEST(Reconcile, RefusesADatabaseThatIsNotFrotas) {
  testing::TempDir dir("reconcile_foreign");
  const auto context = RandomFeedContext();
  model::SourceCatalog catalog;
  {
    auto conn = sink::DuckDbConnection::Open(dir.path() / "foreign.duckdb");
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE((*conn)->Execute("CREATE TABLE t (x INTEGER)").ok());
  }
  auto batch = BatchRecomputation::Create(*context, catalog, {});
  ASSERT_TRUE(batch.ok());
  const auto report = (*batch)->CompareWith(dir.path() / "foreign.duckdb");
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().kind(), base::Error::Kind::kInvalidInput);
  EXPECT_NE(report.error().message().find("not a frota database"), std::string::npos);

  auto missing = BatchRecomputation::Create(*context, catalog, {});
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE((*missing)->CompareWith(dir.path() / "absent.duckdb").ok());
}

// The SQL haversine must give geo::HaversineM's bits, or distances, jumps and stop
// radii could disagree at their edges.
TEST(ReconcileSql, HaversineGivesTheStreamsBits) {
  const auto context = RandomFeedContext();
  model::SourceCatalog catalog;
  auto batch = BatchRecomputation::Create(*context, catalog, {});
  ASSERT_TRUE(batch.ok());
  auto& db = (*batch)->connection();
  ASSERT_TRUE(db.Execute(sql::kFunctionsSql).ok());
  ASSERT_TRUE(
      db.Execute("CREATE TABLE pairs (lat1 DOUBLE, lon1 DOUBLE, lat2 DOUBLE, lon2 DOUBLE)").ok());
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> lat(-89.9, 89.9);
  std::uniform_real_distribution<double> lon(-179.9, 179.9);
  std::uniform_real_distribution<double> near(-0.002, 0.002);
  std::vector<std::array<double, 4>> pairs;
  for (int i = 0; i < 20000; ++i) {
    const double a = lat(rng);
    const double b = lon(rng);
    pairs.push_back(i % 2 == 0 ? std::array<double, 4>{a, b, a + near(rng), b + near(rng)}
                               : std::array<double, 4>{a, b, lat(rng), lon(rng)});
  }
  {
    auto a = sink::ChunkAppender::Create(db, "pairs",
                                         {sink::ColumnType::kDouble, sink::ColumnType::kDouble,
                                          sink::ColumnType::kDouble, sink::ColumnType::kDouble});
    ASSERT_TRUE(a.ok());
    for (const auto& p : pairs) {
      for (std::size_t c = 0; c < 4; ++c) {
        (*a)->SetDouble(c, p[c]);
      }
      ASSERT_TRUE((*a)->EndRow().ok());
    }
    ASSERT_TRUE((*a)->Close().ok());
  }
  auto result =
      db.Query("SELECT lat1, lon1, lat2, lon2, haversine_m(lat1, lon1, lat2, lon2) FROM pairs");
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->rows(), pairs.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < result->rows(); ++i) {
    const double cpp = geo::HaversineM(result->Double(i, 0), result->Double(i, 1),
                                       result->Double(i, 2), result->Double(i, 3));
    differing += cpp == result->Double(i, 4) ? 0 : 1;
  }
  EXPECT_EQ(differing, 0U) << "of " << result->rows();
}

// Local hours come from ICU in SQL and from base::TimeZone (the system tz database) in
// the stream: they must agree, DST transitions included.
TEST(ReconcileSql, IcuLocalHoursAgreeWithTheStreamsTimeZone) {
  for (const char* name : {"America/Sao_Paulo", "America/Los_Angeles", "Europe/Berlin",
                           "Australia/Lord_Howe", "Asia/Kolkata", "UTC"}) {
    SCOPED_TRACE(name);
    const auto zone = base::TimeZone::Load(name);
    ASSERT_TRUE(zone.ok());
    auto db = sink::DuckDbConnection::Open("");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)
                    ->Execute(std::string("SET TimeZone = 'UTC'; CREATE TABLE t AS SELECT s, "
                                          "timezone('") +
                              name +
                              "', to_timestamp(s)) AS local_time FROM "
                              "range(946684800, 2082758400, 1799) r(s)")
                    .ok());
    auto rows = (*db)->Query("SELECT s, local_time::DATE, hour(local_time) FROM t ORDER BY s");
    ASSERT_TRUE(rows.ok());
    // (2082758400 - 946684800) / 1799, rounded up: every half hour less a second, 36 years.
    ASSERT_EQ(rows->rows(), 631503U);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < rows->rows(); ++i) {
      const auto local = zone->ToLocalHour(base::FromUnixSeconds(rows->Int64(i, 0)));
      if (base::DaysSinceEpoch(local.date) != rows->DateDays(i, 1) ||
          local.hour != rows->Int64(i, 2)) {
        ++differing;
      }
    }
    EXPECT_EQ(differing, 0U) << "of " << rows->rows() << " instants 2000-2036";
  }
}

}  // namespace
}  // namespace frota::batch
