// `collect --kafka` publishing an archive whose hours are packed while it publishes and
// between its runs: the topic holds every record once, so a consumer's tables equal a
// replay of the archive, byte for byte.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "frota/sink/testing/test_database.h"
#include "frota/testing/child_process.h"
#include "frota/testing/subprocess.h"
#include "scale_out_fixture.h"
#include "services.h"

namespace frota::testing {
namespace {

using std::chrono::seconds;

TEST(CompactionKafka, APublisherResumingAcrossCompactionsRepeatsAndSkipsNothing) {
  const auto env = ReadServiceEnv();
  if (!env) {
    GTEST_FAIL() << kNoServices;
  }
  TempDir dir("compaction_kafka");
  const auto sim = dir.path() / "sim";
  const auto bronze = sim.string();
  const auto simulated =
      RunProcess({FrotaBinary().string(), "-q", "simulate", "--date", "2024-06-05", "--vehicles",
                  "60", "--hours", "5-9", "--seed", "5", "--out", bronze});
  ASSERT_EQ(simulated.exit_code, 0) << simulated.err;
  const std::string topic = "compaction";
  std::string error;
  ASSERT_TRUE(CreateTopic(*env, env->kafka_dir, topic, 3, &error)) << error;

  // A collector whose one feed never answers: it publishes the archive as it stands.
  const auto collector_args = [&](bool end_marker) {
    std::vector<std::string> args = {FrotaBinary().string(),
                                     "collect",
                                     "--feed",
                                     fmt::format("dead=rio-sppo,http://127.0.0.1:{}/x", 9),
                                     "--interval",
                                     "1",
                                     "--archive",
                                     bronze,
                                     "--reports",
                                     (dir.path() / "reports").string(),
                                     "--no-medallion",
                                     "--kafka",
                                     env->brokers,
                                     "--topic",
                                     topic,
                                     "--publisher-id",
                                     "compaction-test",
                                     "--drain-wait",
                                     "120"};
    if (end_marker) {
      args.push_back("--end-marker");
    }
    return args;
  };
  const auto compact = [&](const std::string& name) {
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{FrotaBinary().string(), "compact", "--archive", bronze,
                                 "--closed"},
        dir.path() / (name + ".log"));
  };
  // First run: half of the hours packed while it publishes, killed part way.
  auto collector = std::make_unique<ChildProcess>(collector_args(false), dir.path() / "c1.log");
  ASSERT_TRUE(collector->WaitForLog("kafka publisher session started", seconds(60)))
      << collector->Log();
  auto compaction = compact("compact1");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  collector->Signal(SIGKILL);
  ASSERT_TRUE(collector->Wait(seconds(10)));
  ASSERT_TRUE(compaction->Wait(seconds(120))) << compaction->Log();
  EXPECT_EQ(compaction->exit_code(), 0) << compaction->Log();
  // Second run resumes from its committed progress, over a fully packed archive, and
  // drains with the end markers.
  collector = std::make_unique<ChildProcess>(collector_args(true), dir.path() / "c2.log");
  ASSERT_TRUE(collector->WaitForLog("kafka publisher session started", seconds(60)))
      << collector->Log();
  EXPECT_NE(collector->Log().find("resumed_sources="), std::string::npos);
  std::this_thread::sleep_for(seconds(2));
  collector->Signal(SIGTERM);
  ASSERT_TRUE(collector->Wait(seconds(180))) << collector->Log();
  EXPECT_EQ(collector->exit_code(), 0) << collector->Log();
  EXPECT_NE(collector->Log().find("published the end-of-input markers"), std::string::npos)
      << collector->Log();

  sink::testing::TestDatabase pg(env->pg_dsn, "compaction_kafka");
  ASSERT_TRUE(pg.ok()) << pg.error();
  const auto member =
      RunProcess({FrotaBinary().string(), "-q", "run", "--kafka", env->brokers, "--topic", topic,
                  "--group", "compaction-group", "--postgres", pg.dsn(), "--until-end", "--gtfs",
                  (sim / "gtfs").string(), "--area", (sim / "area.geojson").string()});
  ASSERT_EQ(member.exit_code, 0) << member.err;
  const auto replayed = dir.path() / "replayed.duckdb";
  const auto replay = RunProcess({FrotaBinary().string(), "-q", "replay", "archive:" + bronze,
                                  "--gtfs", (sim / "gtfs").string(), "--area",
                                  (sim / "area.geojson").string(), "--db", replayed.string()});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const auto exported = [&](const std::vector<std::string>& from, const std::string& name) {
    auto tree = ExportTree(from, dir.path() / name);
    // The collector's failed polls are the consumer's alone: a replay has none.
    TakeFile(tree, "collector_polls.csv");
    return tree;
  };
  const auto expected = exported({"--db", replayed.string()}, "export-replay");
  const auto actual = exported({"--postgres", pg.dsn()}, "export-kafka");
  ExpectSameTables(expected, actual);
}

}  // namespace
}  // namespace frota::testing
