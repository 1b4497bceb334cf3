// A reader's window (`--from`, `--to`, docs/tables.md "Dates"): its output equals the
// same command's on a database that holds only the window's days, embedded and on
// PostgreSQL; `headways` over a day replaces only that day's rows; a window without data,
// or before what the database keeps, says so.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "frota/sink/duckdb_connection.h"
#include "frota/sink/pg_connection.h"
#include "frota/sink/testing/test_database.h"
#include "frota/testing/exports.h"
#include "frota/testing/subprocess.h"

namespace frota {
namespace {

namespace fs = std::filesystem;
using testing::ExpectSameTables;
using testing::FrotaBinary;
using testing::ProcessResult;
using testing::RunProcess;
using testing::Tree;

constexpr const char* kDates[] = {"2024-06-04", "2024-06-05", "2024-06-06"};

// Three simulated days that do not overlap in time (service from 6 to 9 local), replayed
// with their GTFS into one database, and the middle day alone into another.
class Windows : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir("windows");
    for (const std::string date : kDates) {
      const auto out = dir_->path() / date;
      const ProcessResult made =
          RunProcess({FrotaBinary().string(), "-q", "simulate", "--date", date, "--vehicles", "24",
                      "--hours", "6-9", "--seed", "7", "--out", out.string()});
      ASSERT_EQ(made.exit_code, 0) << made.err;
    }
    const ProcessResult all = RunProcess(Replay(Db(All()), AllDays(), {}));
    ASSERT_EQ(all.exit_code, 0) << all.err;
    const ProcessResult middle = RunProcess(Replay(Db(Middle()), {Archive(1)}, {}));
    ASSERT_EQ(middle.exit_code, 0) << middle.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static fs::path All() { return dir_->path() / "all.duckdb"; }
  static fs::path Middle() { return dir_->path() / "middle.duckdb"; }
  static fs::path Day(std::size_t day) { return dir_->path() / kDates[day]; }
  static std::string Archive(std::size_t day) { return "archive:" + Day(day).string(); }
  static std::string Gtfs() { return (Day(0) / "gtfs").string(); }
  static std::vector<std::string> AllDays() { return {Archive(0), Archive(1), Archive(2)}; }
  // The flags naming a store: an embedded database, or a PostgreSQL one.
  static std::vector<std::string> Db(const fs::path& db) { return {"--db", db.string()}; }
  static std::vector<std::string> Pg(const std::string& dsn) { return {"--postgres", dsn}; }

  static std::vector<std::string> Replay(const std::vector<std::string>& store,
                                         const std::vector<std::string>& inputs,
                                         const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {FrotaBinary().string(), "-q", "replay"};
    argv.insert(argv.end(), inputs.begin(), inputs.end());
    for (const std::string& a : {std::string("--area"), (Day(0) / "area.geojson").string(),
                                 std::string("--gtfs"), Gtfs()}) {
      argv.push_back(a);
    }
    argv.insert(argv.end(), store.begin(), store.end());
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }

  static ProcessResult Frota(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {FrotaBinary().string(), "-q"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(argv);
  }

  static Tree Export(const std::string& name, const std::vector<std::string>& store,
                     const std::vector<std::string>& window) {
    return testing::ExportTree(store, dir_->path() / (name + "-export"), window);
  }

  // The rows of `sql` over the database at `db`, as text, one line per row.
  static std::string Rows(const fs::path& db, const std::string& sql) {
    auto conn = sink::DuckDbConnection::Open(db, /*read_only=*/true);
    EXPECT_TRUE(conn.ok()) << conn.error().message();
    if (!conn.ok()) {
      return {};
    }
    auto rows = (*conn)->Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.error().message();
    if (!rows.ok()) {
      return {};
    }
    std::string out;
    for (std::size_t r = 0; r < rows->rows(); ++r) {
      for (std::size_t c = 0; c < rows->columns(); ++c) {
        out += (rows->IsNull(r, c) ? std::string("NULL") : rows->String(r, c)) + "|";
      }
      out += "\n";
    }
    return out;
  }

  static testing::TempDir* dir_;
};

testing::TempDir* Windows::dir_ = nullptr;

TEST_F(Windows, ExportOfAWindowEqualsTheExportOfADatabaseOfThatDayOnly) {
  const Tree expected = Export("middle", Db(Middle()), {});
  ASSERT_GT(expected.size(), 5U);
  ExpectSameTables(expected, Export("window", Db(All()), {"--from", kDates[1], "--to", kDates[1]}));
  SCOPED_TRACE("a window over every day is the whole database");
  ExpectSameTables(Export("whole", Db(All()), {}),
                   Export("wide", Db(All()), {"--from", "2024-06-01", "--to", "2024-06-30"}));
}

TEST_F(Windows, HeadwaysOverADayEqualsTheDayAloneAndReplacesOnlyItsRows) {
  const auto db = dir_->path() / "headways.duckdb";
  fs::copy_file(All(), db);
  const auto middle = dir_->path() / "headways-middle.duckdb";
  fs::copy_file(Middle(), middle);
  const ProcessResult whole = Frota({"headways", "--db", db.string(), "--gtfs", Gtfs(), "--json"});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const std::string departures =
      "SELECT * FROM departures WHERE service_date {} DATE '2024-06-05' ORDER BY ALL";
  const std::string others = Rows(db, fmt::format(fmt::runtime(departures), "<>"));
  ASSERT_NE(others, "");
  // The stream wrote each day's departures too: remove the middle day's, so that only
  // the windowed run can bring them back.
  {
    auto conn = sink::DuckDbConnection::Open(db);
    ASSERT_TRUE(conn.ok()) << conn.error().message();
    ASSERT_TRUE((*conn)
                    ->Execute("DELETE FROM departures WHERE service_date = "
                              "DATE '2024-06-05'")
                    .ok());
  }
  const ProcessResult day = Frota({"headways", "--db", db.string(), "--gtfs", Gtfs(), "--json",
                                   "--from", kDates[1], "--to", kDates[1]});
  ASSERT_EQ(day.exit_code, 0) << day.err;
  const ProcessResult alone =
      Frota({"headways", "--db", middle.string(), "--gtfs", Gtfs(), "--json"});
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(Rows(db, fmt::format(fmt::runtime(departures), "<>")), others);
  const std::string day_rows = Rows(db, fmt::format(fmt::runtime(departures), "="));
  ASSERT_NE(day_rows, "");
  EXPECT_EQ(day_rows, Rows(middle, fmt::format(fmt::runtime(departures), "=")));
  EXPECT_EQ(Rows(db, "SELECT * FROM headway_summary ORDER BY ALL"),
            Rows(middle, "SELECT * FROM headway_summary ORDER BY ALL"));
}

TEST_F(Windows, ReconcileOfADayComparesThatDay) {
  const ProcessResult all_inputs =
      Frota({"reconcile", Archive(0), Archive(1), Archive(2), "--db", All().string(), "--gtfs",
             Gtfs(), "--area", (Day(0) / "area.geojson").string(), "--from", kDates[1], "--to",
             kDates[1], "--json"});
  EXPECT_EQ(all_inputs.exit_code, 0) << all_inputs.out << all_inputs.err;
  EXPECT_NE(all_inputs.out.find("\"equal\": true"), std::string::npos) << all_inputs.out;
  SCOPED_TRACE("the newest day: its inputs and the day before's are enough");
  const ProcessResult two_days =
      Frota({"reconcile", Archive(1), Archive(2), "--db", All().string(), "--gtfs", Gtfs(),
             "--area", (Day(0) / "area.geojson").string(), "--from", kDates[2], "--to", kDates[2]});
  EXPECT_EQ(two_days.exit_code, 0) << two_days.out << two_days.err;
  SCOPED_TRACE("a middle day without the inputs after it: the alert they closed differs");
  const ProcessResult open_alert = Frota(
      {"reconcile", Archive(0), Archive(1), "--db", All().string(), "--gtfs", Gtfs(), "--area",
       (Day(0) / "area.geojson").string(), "--from", kDates[1], "--to", kDates[1], "--json"});
  EXPECT_EQ(open_alert.exit_code, 1) << open_alert.out << open_alert.err;
  EXPECT_NE(open_alert.out.find("feed_blind"), std::string::npos) << open_alert.out;
}

TEST_F(Windows, AWindowWithoutDataSaysSoAndExitsZero) {
  const auto out = dir_->path() / "empty-export";
  const ProcessResult empty = Frota({"export", "--db", All().string(), "--out", out.string(),
                                     "--from", "2024-07-01", "--to", "2024-07-02"});
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_NE(empty.err.find("no data 2024-07-01 to 2024-07-02 (the database holds 2024-06-04 to "
                           "2024-06-06)"),
            std::string::npos)
      << empty.err;
  const ProcessResult bad = Frota({"export", "--db", All().string(), "--out", out.string(),
                                   "--from", "2024-06-05", "--to", "2024-06-04"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--from 2024-06-05 is after --to 2024-06-04"), std::string::npos)
      << bad.err;
  const ProcessResult malformed =
      Frota({"headways", "--db", All().string(), "--gtfs", Gtfs(), "--from", "2024-6-5"});
  EXPECT_EQ(malformed.exit_code, 2) << malformed.err;
  EXPECT_NE(malformed.err.find("--from 2024-6-5: not a date YYYY-MM-DD"), std::string::npos)
      << malformed.err;
}

TEST_F(Windows, AWindowBeforeWhatRetentionKeptSaysWhichDatesAreGone) {
  const auto kept = dir_->path() / "kept.duckdb";
  for (std::size_t day = 0; day < 3; ++day) {
    const ProcessResult loaded =
        RunProcess(Replay(Db(kept), {Archive(day)}, {"--retain-days", "1"}));
    ASSERT_EQ(loaded.exit_code, 0) << loaded.err;
  }
  const auto out = dir_->path() / "kept-export";
  const ProcessResult exported = Frota({"export", "--db", kept.string(), "--out", out.string(),
                                        "--from", kDates[0], "--to", kDates[2]});
  EXPECT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_NE(exported.err.find("input (positions, rejections) of 2024-06-04 to 2024-06-05 are "
                              "gone: the database holds them from 2024-06-06 on"),
            std::string::npos)
      << exported.err;
}

TEST_F(Windows, TheDashboardOfTheLastDaySaysWhichDateItShows) {
  const auto page = dir_->path() / "last-day.html";
  const ProcessResult written = Frota({"dashboard", "--db", All().string(), "--gtfs", Gtfs(),
                                       "--out", page.string(), "--days", "1"});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_NE(written.err.find("window 2024-06-06: input 2024-06-06, results 2024-06-06"),
            std::string::npos)
      << written.err;
  EXPECT_GT(fs::file_size(page), 0U);
}

// The same days on PostgreSQL: every day in one database, the middle day alone in another.
// A window is copied out of PostgreSQL (only its rows) and `headways` writes its days back.
class PostgresWindows : public Windows {
 protected:
  void SetUp() override {
    if (sink::testing::ServerDsn().empty()) {
      GTEST_FAIL() << sink::testing::kNoServerMessage;
    }
    all_.emplace(sink::testing::ServerDsn(), "windows_all");
    ASSERT_TRUE(all_->ok()) << all_->error();
    middle_.emplace(sink::testing::ServerDsn(), "windows_middle");
    ASSERT_TRUE(middle_->ok()) << middle_->error();
    const ProcessResult all = RunProcess(Replay(Pg(all_->dsn()), AllDays(), {}));
    ASSERT_EQ(all.exit_code, 0) << all.err;
    const ProcessResult middle = RunProcess(Replay(Pg(middle_->dsn()), {Archive(1)}, {}));
    ASSERT_EQ(middle.exit_code, 0) << middle.err;
  }

  static std::vector<std::string> OneDay(std::size_t day) {
    return {"--from", kDates[day], "--to", kDates[day]};
  }

  std::optional<sink::testing::TestDatabase> all_;
  std::optional<sink::testing::TestDatabase> middle_;
};

TEST_F(PostgresWindows, ExportOfAWindowEqualsTheExportOfADatabaseOfThatDayOnly) {
  const Tree expected = Export("pg-middle", Pg(middle_->dsn()), {});
  ASSERT_GT(expected.size(), 5U);
  ExpectSameTables(expected, Export("pg-window", Pg(all_->dsn()), OneDay(1)));
  SCOPED_TRACE("the window's rows are those of the embedded database's window");
  ExpectSameTables(Export("pg-embedded-window", Db(All()), OneDay(1)),
                   Export("pg-window-again", Pg(all_->dsn()), OneDay(1)));
}

TEST_F(PostgresWindows, HeadwaysOverADayEqualsTheDayAloneAndReplacesOnlyItsRows) {
  const auto headways = [](const std::string& dsn, const std::vector<std::string>& window) {
    std::vector<std::string> args = {"headways", "--postgres", dsn, "--gtfs", Gtfs(), "--json"};
    args.insert(args.end(), window.begin(), window.end());
    return Frota(args);
  };
  const ProcessResult whole = headways(all_->dsn(), {});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const Tree first_day = Export("pg-first-day", Pg(all_->dsn()), OneDay(0));
  const Tree last_day = Export("pg-last-day", Pg(all_->dsn()), OneDay(2));
  // The stream wrote each day's departures too: remove the middle day's, so that only the
  // windowed run can bring them back.
  {
    auto pg = sink::PgConnection::Open(all_->dsn());
    ASSERT_TRUE(pg.ok()) << pg.error().message();
    ASSERT_TRUE(
        (*pg)->Execute("DELETE FROM departures WHERE service_date = DATE '2024-06-05'").ok());
  }
  const ProcessResult day = headways(all_->dsn(), OneDay(1));
  ASSERT_EQ(day.exit_code, 0) << day.err;
  const ProcessResult alone = headways(middle_->dsn(), {});
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  // The reports agree up to their stream_check: the day's stream departures were removed.
  const auto report = [](const std::string& out) {
    return out.substr(0, out.find("\"stream_check\""));
  };
  EXPECT_GT(report(day.out).size(), 1000U);
  EXPECT_EQ(report(day.out), report(alone.out));
  ExpectSameTables(Export("pg-headways-middle", Pg(middle_->dsn()), {}),
                   Export("pg-headways-window", Pg(all_->dsn()), OneDay(1)));
  SCOPED_TRACE("the other days' rows are as they were");
  ExpectSameTables(first_day, Export("pg-first-day-after", Pg(all_->dsn()), OneDay(0)));
  ExpectSameTables(last_day, Export("pg-last-day-after", Pg(all_->dsn()), OneDay(2)));
}

}  // namespace
}  // namespace frota
