// The live path at scale, end to end: a feed server with faults -> `frota collect --kafka`
// -> two `frota run --kafka --postgres` members -> PostgreSQL, with the collector and a
// member killed (SIGKILL) and restarted and the broker down for a while. At the end the
// tables equal a replay of the collector's bronze archive, byte for byte, and
// collector_polls holds every journaled request once. A member serves /metrics and /healthz.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "frota/base/time.h"
#include "frota/collect/testing/fault_server.h"
#include "frota/sink/testing/test_database.h"
#include "frota/testing/child_process.h"
#include "frota/testing/exports.h"
#include "frota/testing/subprocess.h"
#include "services.h"

namespace frota::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
// Lines of every poll journal of an archive.
std::size_t JournalLines(const std::filesystem::path& archive) {
  std::size_t n = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(archive / "_polls")) {
    if (entry.is_regular_file()) {
      std::ifstream in(entry.path());
      n += static_cast<std::size_t>(
          std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n'));
    }
  }
  return n;
}

// A member's `--metrics 127.0.0.1:0`: the port it logs, then /healthz and /metrics there.
void ExpectMemberMetrics(ChildProcess& member) {
  const std::string listening = "metrics endpoint listening address=127.0.0.1:";
  ASSERT_TRUE(member.WaitForLog(listening, seconds(10))) << member.Log();
  const std::string log = member.Log();
  const int port = std::stoi(log.substr(log.find(listening) + listening.size()));
  httplib::Client client("127.0.0.1", port);
  const auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200) << health->body;
  EXPECT_NE(health->body.find(R"("state":"consuming")"), std::string::npos) << health->body;
  const auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  for (const char* family : {"frota_member_epochs_total ", "frota_member_fenced_total ",
                             "frota_member_rebalances_total ", "frota_member_partitions ",
                             "frota_engine_watermark_lag_seconds "}) {
    EXPECT_NE(metrics->body.find(family), std::string::npos) << family << "\n" << metrics->body;
  }
  const std::string messages = "\nfrota_member_messages_total ";
  const auto at = metrics->body.find(messages);
  ASSERT_NE(at, std::string::npos) << metrics->body;
  EXPECT_GT(std::stod(metrics->body.substr(at + messages.size())), 0) << metrics->body;
}

TEST(LiveKafka, FaultyFeedsCrashesAndABrokerOutageGiveTheTablesOfAReplayOfBronze) {
  const auto env = ReadServiceEnv();
  if (!env) {
    GTEST_FAIL() << kNoServices;
  }
  TempDir dir("live_kafka");
  OwnKafka kafka(*env, dir.path() / "kafka");
  ASSERT_TRUE(kafka.ok()) << kafka.error();
  const std::string topic = "live";
  std::string error;
  ASSERT_TRUE(CreateTopic(*env, kafka.dir().string(), topic, 4, &error)) << error;
  sink::testing::TestDatabase pg(env->pg_dsn, "live_kafka");
  ASSERT_TRUE(pg.ok()) << pg.error();

  // Fresh positions at every 200, and every fault a real feed server shows: 500, 429 with
  // Retry-After, a timeout, a truncated body, an HTML page with status 200, a repeat.
  collect::testing::FaultServer server([] { return base::FromUnixMicros(0); });
  const auto now_ms =
      std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  collect::testing::FeedScript script;
  for (int poll = 0; poll < 120; ++poll) {
    script.variants.push_back(
        collect::testing::SppoResponse(poll, 8, now_ms + 1000 * poll, 20000, 3000));
  }
  using F = collect::testing::Fault;
  script.script = {F::kOk, F::kServerError, F::kOk, F::kRateLimitSeconds,
                   F::kOk, F::kSlow,        F::kOk, F::kTruncated,
                   F::kOk, F::kHtml,        F::kOk, F::kRepeat};
  script.retry_after_s = 1;
  script.slow_ms = 2500;  // past the 1 s timeout
  server.SetScript("sppo", script);

  const auto bronze = dir.path() / "bronze";
  const auto config = dir.path() / "collector.toml";
  {
    std::ofstream out(config);
    out << fmt::format(
        "[collector]\narchive = \"{}\"\nreports = \"{}\"\nmedallion = false\n\n"
        "[defaults]\ninterval_s = 1\ntimeout_s = 1\nbackoff_initial_s = 0.2\n\n"
        "[[feed]]\nid = \"rio-sppo\"\nformat = \"rio-sppo\"\nurl = \"{}\"\n",
        bronze.string(), (dir.path() / "reports").string(), server.Url("sppo"));
  }
  const auto collector_args = [&](bool end_marker) {
    std::vector<std::string> args = {
        FrotaBinary().string(), "collect", "--config", config.string(), "--kafka",
        kafka.brokers(),        "--topic", topic,      "--drain-wait",  "120"};
    if (end_marker) {
      args.push_back("--end-marker");
    }
    return args;
  };
  const auto member_args = [&] {
    return std::vector<std::string>{FrotaBinary().string(),
                                    "run",
                                    "--kafka",
                                    kafka.brokers(),
                                    "--topic",
                                    topic,
                                    "--group",
                                    "live-group",
                                    "--postgres",
                                    pg.dsn(),
                                    "--until-end",
                                    "--epoch-seconds",
                                    "0.5",
                                    "--session-timeout",
                                    "3",
                                    "--kafka-wait",
                                    "120"};
  };
  int logs = 0;
  const auto log = [&](const std::string& what) {
    return dir.path() / fmt::format("{}-{}.log", what, logs++);
  };

  auto collector = std::make_unique<ChildProcess>(collector_args(false), log("collector"));
  auto member1 = std::make_unique<ChildProcess>(member_args(), log("member"));
  // One member serves /metrics and /healthz (on a free port it logs).
  auto member2_args = member_args();
  member2_args.insert(member2_args.end(), {"--metrics", "127.0.0.1:0"});
  auto member2 = std::make_unique<ChildProcess>(member2_args, log("member"));
  ASSERT_TRUE(collector->WaitForLog("kafka publisher session started", seconds(60)))
      << collector->Log();
  ASSERT_TRUE(member1->WaitForLog("partition acquired", seconds(60))) << member1->Log();

  // A member dies and comes back.
  std::this_thread::sleep_for(seconds(3));
  member1->Signal(SIGKILL);
  member1->Wait(seconds(10));
  member1 = std::make_unique<ChildProcess>(member_args(), log("member"));

  // The collector dies in the middle of its work, and comes back on the same archive.
  std::this_thread::sleep_for(seconds(3));
  collector->Signal(SIGKILL);
  collector->Wait(seconds(10));
  collector = std::make_unique<ChildProcess>(collector_args(true), log("collector"));
  ASSERT_TRUE(collector->WaitForLog("kafka publisher session started", seconds(60)))
      << collector->Log();
  EXPECT_NE(collector->Log().find("resumed_sources="), std::string::npos);

  // Kafka goes away for a while: the collector polls and archives on, then publishes.
  std::this_thread::sleep_for(seconds(2));
  const std::size_t before_outage = JournalLines(bronze);
  ASSERT_TRUE(kafka.Stop());
  std::this_thread::sleep_for(seconds(8));
  // Polling and journaling went on without Kafka.
  EXPECT_GE(JournalLines(bronze), before_outage + 4);
  ASSERT_TRUE(kafka.Start()) << kafka.error();
  std::this_thread::sleep_for(seconds(4));

  // The member that lived through it all reports its progress, and is healthy.
  ExpectMemberMetrics(*member2);

  // A clean stop: what is archived is published, then the end markers; the group ends.
  collector->Signal(SIGTERM);
  ASSERT_TRUE(collector->Wait(seconds(180))) << collector->Log();
  EXPECT_EQ(collector->exit_code(), 0) << collector->Log();
  EXPECT_NE(collector->Log().find("published the end-of-input markers"), std::string::npos)
      << collector->Log();
  for (auto* member : {member1.get(), member2.get()}) {
    ASSERT_TRUE(member->Wait(seconds(240))) << member->Log();
    EXPECT_EQ(member->exit_code(), 0) << member->Log();
  }

  // Every fault happened.
  std::set<F> served;
  for (const auto& request : server.Served("sppo")) {
    served.insert(request.fault);
  }
  for (const F fault :
       {F::kServerError, F::kRateLimitSeconds, F::kSlow, F::kTruncated, F::kHtml, F::kRepeat}) {
    EXPECT_TRUE(served.count(fault) == 1) << collect::testing::FaultName(fault);
  }

  // The same tables as one replay of the bronze archive into DuckDB.
  const auto embedded = dir.path() / "embedded.duckdb";
  const auto replay = RunProcess({FrotaBinary().string(), "-q", "replay",
                                  "archive:" + bronze.string(), "--db", embedded.string()});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  Tree expected = ExportDuckDb(embedded, dir.path() / "a");
  Tree actual = ExportTree({"--postgres", pg.dsn()}, dir.path() / "b");
  const std::string replay_polls = TakeFile(expected, "collector_polls.csv");
  const std::string polls = TakeFile(actual, "collector_polls.csv");
  EXPECT_EQ(Lines(replay_polls), 1U) << replay_polls;  // a replay has no polls
  // Every request journaled (a request in flight at the SIGKILL never ended, so it is
  // not), each once; failures included.
  EXPECT_EQ(Lines(polls), JournalLines(bronze) + 1) << polls;
  EXPECT_NE(polls.find(",500,http_5xx,"), std::string::npos) << polls;
  EXPECT_NE(polls.find(",429,rate_limited,"), std::string::npos) << polls;
  EXPECT_NE(polls.find(",0,timeout,"), std::string::npos) << polls;
  ExpectSameTables(expected, actual);
  EXPECT_GT(Lines(TakeFile(expected, "positions.csv")), 40U);  // not two empty tables
}

}  // namespace
}  // namespace frota::testing
