// `frota run --feed ... --postgres DSN`: live feeds through the jobs into PostgreSQL,
// exactly once: the run, finished by a replay of its archive into the same database,
// equals one replay of that archive into DuckDB.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "frota/base/time.h"
#include "frota/collect/testing/fault_server.h"
#include "frota/sink/testing/test_database.h"
#include "frota/testing/exports.h"
#include "frota/testing/subprocess.h"

namespace frota::testing {
namespace {

TEST(LivePostgres, RunIntoPostgresEqualsAReplayOfItsBronzeArchive) {
  if (sink::testing::ServerDsn().empty()) {
    GTEST_FAIL() << sink::testing::kNoServerMessage;
  }
  sink::testing::TestDatabase pg(sink::testing::ServerDsn(), "live");
  ASSERT_TRUE(pg.ok()) << pg.error();
  TempDir dir("live_postgres");
  collect::testing::FaultServer server([] { return base::FromUnixMicros(0); });
  // Fresh positions at every poll (event times near now, so they pass rules 2 and 3),
  // with a 500, a repeat and an HTML page among them.
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  collect::testing::FeedScript script;
  for (int poll = 0; poll < 40; ++poll) {
    script.variants.push_back(
        collect::testing::SppoResponse(poll, 6, now_ms + 1000 * poll, 10000, 5000));
  }
  script.script = {collect::testing::Fault::kOk, collect::testing::Fault::kServerError,
                   collect::testing::Fault::kOk, collect::testing::Fault::kRepeat,
                   collect::testing::Fault::kHtml};
  server.SetScript("sppo", script);

  const auto bronze = dir.path() / "bronze";
  const auto run =
      RunProcess({FrotaBinary().string(), "-q", "run", "--feed",
                  "rio-sppo=rio-sppo," + server.Url("sppo"), "--interval", "1", "--for", "8",
                  "--archive", bronze.string(), "--reports", (dir.path() / "reports").string(),
                  "--no-medallion", "--postgres", pg.dsn(), "--epoch-seconds", "1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_GE(server.Served("sppo").size(), 5U);

  // A live run stops with its last positions still held back by the watermark, their
  // state committed; a replay of the same archive into the same database resumes after
  // the run's last epoch and finishes the input. Together they must equal one replay.
  const auto resume = RunProcess(
      {FrotaBinary().string(), "replay", "archive:" + bronze.string(), "--postgres", pg.dsn()});
  ASSERT_EQ(resume.exit_code, 0) << resume.err;
  EXPECT_NE(resume.err.find("resuming after epoch"), std::string::npos) << resume.err;

  const auto embedded = dir.path() / "embedded.duckdb";
  const auto replay = RunProcess({FrotaBinary().string(), "-q", "replay",
                                  "archive:" + bronze.string(), "--db", embedded.string()});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  Tree expected = ExportDuckDb(embedded, dir.path() / "a");
  Tree actual = ExportTree({"--postgres", pg.dsn()}, dir.path() / "b");
  // collector_polls: the run wrote every request it made, each once (a replay of bronze
  // has no polls: failed requests never reach it).
  const std::string no_polls = TakeFile(expected, "collector_polls.csv");
  const std::string polls = TakeFile(actual, "collector_polls.csv");
  EXPECT_EQ(Lines(no_polls), 1U) << no_polls;  // header
  EXPECT_EQ(Lines(polls), server.Served("sppo").size() + 1) << polls;
  EXPECT_NE(polls.find(",500,http_5xx,"), std::string::npos) << polls;
  ExpectSameTables(expected, actual);
  // The run accepted positions: the comparison is not of two empty tables.
  for (const auto& [name, text] : expected) {
    if (name == "positions.csv") {
      EXPECT_GT(std::count(text.begin(), text.end(), '\n'), 10) << text;
    }
  }
}

}  // namespace
}  // namespace frota::testing
