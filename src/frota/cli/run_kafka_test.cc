#include "frota/cli/run_kafka.h"

#include <gtest/gtest.h>

#include "frota/testing/subprocess.h"

namespace frota::cli {
namespace {

TEST(ParseFaults, EachKeyLandsInTheOptionsThatReadIt) {
  runner::KafkaRunFaults runner;
  sink::PostgresSinkOptions sink;
  ASSERT_TRUE(ParseFaults({}, runner, sink).ok());
  EXPECT_EQ(runner.rebalance_pause.count(), 0);
  EXPECT_EQ(runner.messages_per_second, 0);
  EXPECT_EQ(sink.pause_before_commit.count(), 0);

  const auto parsed = ParseFaults(
      {"pg-pause-before-commit-ms=250", "rebalance-pause-ms=300", "messages-per-second=4000"},
      runner, sink);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  EXPECT_EQ(sink.pause_before_commit, std::chrono::milliseconds(250));
  EXPECT_EQ(runner.rebalance_pause, std::chrono::milliseconds(300));
  EXPECT_EQ(runner.messages_per_second, 4000);
}

TEST(ParseFaults, AnUnknownKeyOrABadValueIsOneClearError) {
  const auto error = [](const std::string& fault) {
    runner::KafkaRunFaults runner;
    sink::PostgresSinkOptions sink;
    const auto status = ParseFaults({fault}, runner, sink);
    EXPECT_FALSE(status.ok()) << fault;
    EXPECT_EQ(status.error().kind(), base::Error::Kind::kInvalidInput) << fault;
    return status.error().message();
  };
  EXPECT_EQ(error("pause=1"),
            "--fault pause=1: unknown fault; known: pg-pause-before-commit-ms, "
            "rebalance-pause-ms, messages-per-second");
  EXPECT_EQ(error("rebalance-pause-ms"),
            "--fault rebalance-pause-ms: want rebalance-pause-ms=N, N milliseconds from 0 to "
            "3600000");
  EXPECT_EQ(error("pg-pause-before-commit-ms=soon"),
            "--fault pg-pause-before-commit-ms=soon: want pg-pause-before-commit-ms=N, N "
            "milliseconds from 0 to 3600000");
  EXPECT_EQ(error("pg-pause-before-commit-ms=-1").find("--fault pg-pause-before-commit-ms=-1"), 0U);
  EXPECT_EQ(error("rebalance-pause-ms=3600001").find("--fault rebalance-pause-ms=3600001"), 0U);
  EXPECT_EQ(error("messages-per-second=9"),
            "--fault messages-per-second=9: want messages-per-second=N, N at least 10");
  EXPECT_EQ(error("messages-per-second=10x").find("--fault messages-per-second=10x"), 0U);
}

// Through the binary: a bad fault stops `frota run --kafka` before it connects to
// anything (the brokers and the DSN here would only fail later), and --fault outside a
// consumer group member is refused rather than ignored.
TEST(FaultFlag, IsCheckedBeforeAnythingStartsAndOnlyForAGroupMember) {
  const auto member = testing::RunProcess(
      {testing::FrotaBinary().string(), "run", "--kafka", "127.0.0.1:1", "--topic", "t", "--group",
       "g", "--postgres", "host=127.0.0.1 port=1", "--fault", "pause=1"});
  EXPECT_EQ(member.exit_code, 2) << member.err;
  EXPECT_NE(member.err.find("frota: --fault pause=1: unknown fault"), std::string::npos)
      << member.err;
  const auto collector =
      testing::RunProcess({testing::FrotaBinary().string(), "run", "--feed",
                           "x=rio-sppo,http://127.0.0.1:1/", "--fault", "rebalance-pause-ms=1"});
  EXPECT_EQ(collector.exit_code, 2) << collector.err;
  EXPECT_NE(collector.err.find("frota: --fault is for a consumer group member"), std::string::npos)
      << collector.err;
}

}  // namespace
}  // namespace frota::cli
