// The readers on PostgreSQL: `headways`, `reconcile`, `dashboard`, `evaluate` (and
// `export`) given `--postgres` answer as they do on an embedded database holding the same
// rows; `dashboard --every` keeps rewriting its page until SIGTERM.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "frota/base/file.h"
#include "frota/base/time_zone.h"
#include "frota/dashboard/data_model.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/sink/pg_connection.h"
#include "frota/sink/postgres_to_duckdb.h"
#include "frota/sink/testing/test_database.h"
#include "frota/testing/child_process.h"
#include "frota/testing/exports.h"
#include "frota/testing/shared_data.h"
#include "frota/testing/subprocess.h"

namespace frota::testing {
namespace {

std::vector<std::string> With(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class PostgresReaders : public ::testing::Test {
 protected:
  void SetUp() override {
    if (sink::testing::ServerDsn().empty()) {
      GTEST_FAIL() << sink::testing::kNoServerMessage;
    }
    archive_ = FindBrtArchive({"19.csv.gz"});
    if (!archive_) {
      FROTA_SHARED_MISSING("the Rio BRT archive (line 19) is not under " << SharedDataDir());
    }
    pg_.emplace(sink::testing::ServerDsn(), "readers");
    ASSERT_TRUE(pg_->ok()) << pg_->error();
    db_ = (dir_.path() / "embedded.duckdb").string();
    const std::vector<std::string> args = {"--gtfs", archive_->gtfs, "--area", archive_->area};
    for (const auto& sink :
         std::vector<std::vector<std::string>>{{"--db", db_}, {"--postgres", pg_->dsn()}}) {
      const auto replay = RunProcess(
          With(With(With({FrotaBinary().string(), "-q", "replay"}, archive_->files), args), sink));
      ASSERT_EQ(replay.exit_code, 0) << replay.err;
    }
  }

  ProcessResult Frota(const std::vector<std::string>& args) {
    return RunProcess(With({FrotaBinary().string(), "-q"}, args));
  }

  TempDir dir_{"postgres_readers"};
  std::optional<BrtArchive> archive_;
  std::optional<sink::testing::TestDatabase> pg_;
  std::string db_;
};

TEST_F(PostgresReaders, HeadwaysGiveTheSameReportAndKeepTheirTablesInPostgres) {
  const std::vector<std::string> headways = {"headways", "--gtfs", archive_->gtfs,
                                             "--compare-inferred", "--json"};
  const auto embedded = Frota(With(headways, {"--db", db_}));
  ASSERT_EQ(embedded.exit_code, 0) << embedded.err;
  const auto postgres = Frota(With(headways, {"--postgres", pg_->dsn()}));
  ASSERT_EQ(postgres.exit_code, 0) << postgres.err;
  EXPECT_GT(embedded.out.size(), 1000U);
  EXPECT_EQ(postgres.out, embedded.out);
  // Run again on a database that already holds the tables: replaced, not added to.
  const auto again = Frota(With(headways, {"--postgres", pg_->dsn()}));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, embedded.out);

  // Its tables are in PostgreSQL with the rows the embedded run wrote into DuckDB.
  auto pg = sink::PgConnection::Open(pg_->dsn());
  ASSERT_TRUE(pg.ok()) << pg.error().message();
  auto duck = sink::OpenFrotaDuckDb(db_, /*must_exist=*/true);
  ASSERT_TRUE(duck.ok()) << duck.error().message();
  for (const char* table : {"departures", "headways", "headway_summary", "coverage_gaps",
                            "service_minutes", "planned_departures"}) {
    const std::string sql =
        std::string("SELECT count(*), count(DISTINCT departure_time) FROM ") + table;
    const bool timed = std::string(table) == "departures" || std::string(table) == "headways";
    const std::string count_sql = timed ? sql : std::string("SELECT count(*), 0 FROM ") + table;
    auto in_pg = (*pg)->Query(count_sql);
    ASSERT_TRUE(in_pg.ok()) << table << ": " << in_pg.error().message();
    auto in_duck = (*duck)->Query(count_sql);
    ASSERT_TRUE(in_duck.ok()) << table << ": " << in_duck.error().message();
    EXPECT_EQ(in_pg->Int(0, 0), in_duck->Int64(0, 0)) << table;
    EXPECT_EQ(in_pg->Int(0, 1), in_duck->Int64(0, 1)) << table;
    EXPECT_GT(in_pg->Int(0, 0), 0) << table;
  }
}

// A database Kafka members wrote has no alerts (they do not run the regularity jobs):
// `headways --postgres` computes them as the stream would, and the schema's tables keep
// their keys, on which the sinks upsert.
TEST_F(PostgresReaders, HeadwaysFillTheAlertsAndKeepTheSchemasKeys) {
  auto pg = sink::PgConnection::Open(pg_->dsn());
  ASSERT_TRUE(pg.ok()) << pg.error().message();
  ASSERT_TRUE((*pg)->Execute("DELETE FROM alerts").ok());
  const auto h = Frota({"headways", "--gtfs", archive_->gtfs, "--postgres", pg_->dsn()});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  auto duck = sink::OpenFrotaDuckDb(db_, /*must_exist=*/true);
  ASSERT_TRUE(duck.ok()) << duck.error().message();
  const std::string alerts =
      "SELECT count(*), count(DISTINCT alert_id), count(closed_at) FROM alerts";
  auto in_pg = (*pg)->Query(alerts);
  ASSERT_TRUE(in_pg.ok()) << in_pg.error().message();
  auto in_duck = (*duck)->Query(alerts);
  ASSERT_TRUE(in_duck.ok()) << in_duck.error().message();
  EXPECT_GT(in_pg->Int(0, 0), 0);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(in_pg->Int(0, c), in_duck->Int64(0, c)) << "column " << c;
  }
  for (const char* table : {"departures", "headways", "alerts"}) {
    auto keys =
        (*pg)->Query(std::string("SELECT count(*) FROM information_schema.table_constraints WHERE "
                                 "constraint_type = 'PRIMARY KEY' AND table_name = '") +
                     table + "'");
    ASSERT_TRUE(keys.ok()) << keys.error().message();
    EXPECT_EQ(keys->Int(0, 0), 1) << table;
  }
}

TEST_F(PostgresReaders, ReconcileFindsNoDifferenceInPostgres) {
  const auto r = Frota(With(
      With({"reconcile"}, archive_->files),
      {"--gtfs", archive_->gtfs, "--area", archive_->area, "--postgres", pg_->dsn(), "--json"}));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\"equal\": true"), std::string::npos) << r.out;
}

TEST_F(PostgresReaders, ExportEqualsTheEmbeddedDatabasesAfterHeadwaysWroteTheirTables) {
  const auto h = Frota({"headways", "--gtfs", archive_->gtfs, "--postgres", pg_->dsn()});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  ExpectSameTables(ExportDuckDb(db_, dir_.path() / "a"),
                   ExportTree({"--postgres", pg_->dsn()}, dir_.path() / "b"));
}

TEST_F(PostgresReaders, TheDashboardsDataIsTheEmbeddedDatabasesHeadwaysIncluded) {
  for (const auto& source :
       std::vector<std::vector<std::string>>{{"--db", db_}, {"--postgres", pg_->dsn()}}) {
    const auto h = Frota(With({"headways", "--gtfs", archive_->gtfs}, source));
    ASSERT_EQ(h.exit_code, 0) << h.err;
  }
  auto zone = base::TimeZone::Load("America/Sao_Paulo");
  ASSERT_TRUE(zone.ok());
  dashboard::DataModelOptions options;
  options.time_zone = *zone;
  options.db_name = "brt";
  auto embedded = sink::OpenFrotaDuckDb(db_, /*must_exist=*/true);
  ASSERT_TRUE(embedded.ok()) << embedded.error().message();
  auto copy = sink::CopyPostgresToDuckDb(pg_->dsn());
  ASSERT_TRUE(copy.ok()) << copy.error().message();
  const auto a = dashboard::BuildDataModel(**embedded, options);
  ASSERT_TRUE(a.ok()) << a.error().message();
  const auto b = dashboard::BuildDataModel(**copy, options);
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_EQ(b->json, a->json);
  EXPECT_NE(a->json.find("\"headways\""), std::string::npos);

  // The command itself, once, and then every second until SIGTERM.
  const auto page = dir_.path() / "page.html";
  const auto once = Frota(
      {"dashboard", "--postgres", pg_->dsn(), "--gtfs", archive_->gtfs, "--out", page.string()});
  ASSERT_EQ(once.exit_code, 0) << once.err;
  EXPECT_NE(base::ReadFile(page)->find("<html"), std::string::npos);
  const auto live = dir_.path() / "live.html";
  ChildProcess writer({FrotaBinary().string(), "dashboard", "--postgres", pg_->dsn(), "--out",
                       live.string(), "--every", "1"},
                      dir_.path() / "every.log");
  ASSERT_TRUE(writer.WaitForLog("dashboard written", std::chrono::seconds(60)));
  const auto first = std::filesystem::last_write_time(live);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::filesystem::last_write_time(live) == first &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(std::filesystem::last_write_time(live), first) << "written once only";
  writer.Signal(SIGTERM);
  ASSERT_TRUE(writer.Wait(std::chrono::seconds(60)));
  EXPECT_EQ(writer.exit_code(), 0) << writer.Log();
  EXPECT_NE(writer.Log().find("dashboard stopping signal=SIGTERM"), std::string::npos);
  EXPECT_NE(base::ReadFile(live)->find("</html>"), std::string::npos);
}

// A small simulated day in both databases: evaluate scores them alike.
TEST_F(PostgresReaders, EvaluateScoresPostgresAsTheEmbeddedDatabase) {
  const auto sim = dir_.path() / "sim";
  const auto simulate = Frota({"simulate", "--date", "2024-06-05", "--vehicles", "30", "--hours",
                               "6-9", "--out", sim.string()});
  ASSERT_EQ(simulate.exit_code, 0) << simulate.err;
  sink::testing::TestDatabase pg(sink::testing::ServerDsn(), "evaluate");
  ASSERT_TRUE(pg.ok()) << pg.error();
  const auto db = (dir_.path() / "sim.duckdb").string();
  std::vector<std::string> outputs;
  for (const auto& source :
       std::vector<std::vector<std::string>>{{"--db", db}, {"--postgres", pg.dsn()}}) {
    const auto replay =
        Frota(With({"replay", "archive:" + sim.string(), "--gtfs", (sim / "gtfs").string(),
                    "--area", (sim / "area.geojson").string()},
                   source));
    ASSERT_EQ(replay.exit_code, 0) << replay.err;
    const auto h = Frota(With({"headways", "--gtfs", (sim / "gtfs").string()}, source));
    ASSERT_EQ(h.exit_code, 0) << h.err;
    const auto e =
        Frota(With({"evaluate", "--truth", (sim / "truth.json").string(), "--json"}, source));
    ASSERT_EQ(e.exit_code, 0) << e.err;
    outputs.push_back(e.out);
  }
  EXPECT_EQ(outputs[1], outputs[0]);
  EXPECT_NE(outputs[0].find("\"found_ratio\""), std::string::npos);
}

}  // namespace
}  // namespace frota::testing

namespace frota::testing {
namespace {

TEST_F(PostgresReaders, StatusSaysTheSameOfBothDatabases) {
  // The same polls in both (a replay writes none).
  const std::string polls =
      "INSERT INTO collector_polls (feed_id, polled_at, attempt, http_status, failure, bytes, "
      "duration_ms, \"repeat\", records, body, run_id) VALUES "
      "('rio-brt', TIMESTAMP '2024-06-05 10:00:05.25', 1, 200, NULL, 1000, 120.5, false, 40, "
      "'b/1.json', 'r'), "
      "('rio-brt', TIMESTAMP '2024-06-05 10:00:35', 1, 200, NULL, 1000, 80, true, 40, "
      "'b/2.json', 'r'), "
      "('rio-brt', TIMESTAMP '2024-06-05 10:01:05', 1, 0, 'timeout', 0, 10000, false, NULL, "
      "NULL, 'r')";
  {
    auto duck = sink::OpenFrotaDuckDb(db_, /*must_exist=*/true);
    ASSERT_TRUE(duck.ok()) << duck.error().message();
    ASSERT_TRUE((*duck)->Execute(polls).ok());
    auto pg = sink::PgConnection::Open(pg_->dsn());
    ASSERT_TRUE(pg.ok()) << pg.error().message();
    // collector_polls is partitioned by day: the day's partition first, as the sink makes it.
    ASSERT_TRUE(
        (*pg)->Execute("SELECT frota_day_partition('collector_polls', DATE '2024-06-05')").ok());
    ASSERT_TRUE((*pg)->Execute(polls).ok());
  }
  const auto embedded = Frota({"status", "--db", db_, "--json"});
  ASSERT_EQ(embedded.exit_code, 0) << embedded.err;
  const auto postgres = Frota({"status", "--postgres", pg_->dsn(), "--json"});
  ASSERT_EQ(postgres.exit_code, 0) << postgres.err;
  auto a = nlohmann::json::parse(embedded.out);
  auto b = nlohmann::json::parse(postgres.out);
  EXPECT_EQ(a["feeds"], b["feeds"]);
  EXPECT_EQ(a["feeds"][0]["requests"], "3");
  EXPECT_EQ(a["feeds"][0]["failures"], "1");
  EXPECT_EQ(a["feeds"][0]["last_success"], "2024-06-05 10:00:35");
  EXPECT_EQ(a["source_partitions"], b["source_partitions"]);
  EXPECT_EQ(a["offsets_read"], b["offsets_read"]);
  EXPECT_NE(a["offsets_read"], "0");
  // One run each, with its own id and commit times; the same epochs and rows.
  ASSERT_EQ(a["runs"].size(), 1U);
  ASSERT_EQ(b["runs"].size(), 1U);
  for (const char* field : {"epochs", "watermark", "positions", "rejected"}) {
    EXPECT_EQ(a["runs"][0][field], b["runs"][0][field]) << field;
  }
  // The text form names the database and the feed.
  const auto text = Frota({"status", "--postgres", pg_->dsn()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("rio-brt"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("password"), std::string::npos);
}

}  // namespace
}  // namespace frota::testing
