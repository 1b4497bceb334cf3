// The readers on PostgreSQL: `headways`, `reconcile` (and `export`) given `--postgres`
// answer as they do on an embedded database holding the same rows.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frota/sink/duckdb_sink.h"
#include "frota/sink/pg_connection.h"
#include "frota/sink/testing/test_database.h"
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
    for (const auto& sink : std::vector<std::vector<std::string>>{{"--db", db_},
                                                                 {"--postgres", pg_->dsn()}}) {
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
    const std::string sql = std::string("SELECT count(*), count(DISTINCT departure_time) FROM ") +
                            table;
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

TEST_F(PostgresReaders, ReconcileFindsNoDifferenceInPostgres) {
  const auto r = Frota(With(With({"reconcile"}, archive_->files),
                            {"--gtfs", archive_->gtfs, "--area", archive_->area, "--postgres",
                             pg_->dsn(), "--json"}));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\"equal\": true"), std::string::npos) << r.out;
}

TEST_F(PostgresReaders, ExportEqualsTheEmbeddedDatabasesAfterHeadwaysWroteTheirTables) {
  const auto h = Frota({"headways", "--gtfs", archive_->gtfs, "--postgres", pg_->dsn()});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  const auto a = dir_.path() / "a";
  const auto b = dir_.path() / "b";
  ASSERT_EQ(Frota({"export", "--db", db_, "--out", a.string()}).exit_code, 0);
  ASSERT_EQ(Frota({"export", "--postgres", pg_->dsn(), "--out", b.string()}).exit_code, 0);
  EXPECT_EQ(ReadTree(b), ReadTree(a));
}

}  // namespace
}  // namespace frota::testing
