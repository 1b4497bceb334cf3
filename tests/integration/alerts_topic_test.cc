// `frota replay --gtfs --alerts-topic` against a real Kafka broker: every alert of the
// `alerts` table reaches the topic, keyed by its alert_id, and the last message of each
// key is the table's row; a second replay of the same input publishes the same alerts
// again (a consumer keeping the last message per key sees no change), never others. So does
// `frota run --kafka --gtfs --alerts-topic`, a consumer group's regularity follower.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "frota/base/time.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/sink/postgres_to_duckdb.h"
#include "frota/sink/testing/test_database.h"
#include "frota/testing/subprocess.h"
#include "frota/transport/consumer.h"
#include "services.h"

namespace frota::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Every partition from its beginning.
class FromTheStart : public transport::RebalanceListener {
 public:
  base::Result<std::vector<std::optional<std::int64_t>>> OnAssigned(
      const std::vector<base::PartitionId>& partitions) override {
    return std::vector<std::optional<std::int64_t>>(partitions.size());
  }
  base::Status OnRevoked(const std::vector<base::PartitionId>& /*partitions*/,
                         bool /*lost*/) override {
    return base::Status::Ok();
  }
};

struct Published {
  std::int64_t messages = 0;
  std::map<std::string, nlohmann::json> last;  // per key, the last message
};

// Reads the whole topic: until nothing new came for 10 seconds (at most 3 minutes).
Published ReadTopic(const std::string& brokers, const std::string& topic,
                    const std::string& group) {
  Published out;
  FromTheStart listener;
  transport::ConsumerOptions options;
  options.brokers = brokers;
  options.topic = topic;
  options.group = group;
  auto consumer = transport::Consumer::Create(options, &listener);
  EXPECT_TRUE(consumer.ok()) << consumer.error().message();
  if (!consumer.ok()) {
    return out;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  auto quiet_since = std::chrono::steady_clock::now();
  std::vector<transport::Message> messages;
  while (std::chrono::steady_clock::now() < deadline &&
         std::chrono::steady_clock::now() - quiet_since < seconds(10)) {
    const auto polled = (*consumer)->Poll(messages, 1000, milliseconds(500));
    EXPECT_TRUE(polled.ok()) << polled.error().message();
    if (!polled.ok()) {
      break;
    }
    for (const auto& m : messages) {
      ++out.messages;
      out.last[std::string(m.key)] = nlohmann::json::parse(m.payload);
    }
    if (!messages.empty()) {
      quiet_since = std::chrono::steady_clock::now();
    }
  }
  EXPECT_TRUE((*consumer)->Close().ok());
  return out;
}

// An optional time of a message as microseconds (null: nullopt).
std::optional<std::int64_t> MicrosOf(const nlohmann::json& value) {
  if (value.is_null()) {
    return std::nullopt;
  }
  const auto t = base::ParseIso8601(value.get<std::string>());
  EXPECT_TRUE(t.has_value()) << value;
  return t ? std::optional(base::ToUnixMicros(*t)) : std::nullopt;
}

// A simulated morning that raises alerts of every kind, as a bronze archive in dir/day;
// empty if the simulation failed.
std::filesystem::path SimulatedMorning(const TempDir& dir) {
  const auto day = dir.path() / "day";
  const auto simulated =
      RunProcess({FrotaBinary().string(), "-q", "simulate", "--date", "2026-03-04", "--vehicles",
                  "80", "--hours", "6-9", "--seed", "3", "--out", day.string()});
  EXPECT_EQ(simulated.exit_code, 0) << simulated.err;
  return simulated.exit_code == 0 ? day : std::filesystem::path();
}

// The last message of each key on the topic is the `alerts` row of that id, for every row;
// and the rows hold every kind.
void ExpectTheTopicHoldsTheTable(const Published& first, sink::DuckDbConnection& db) {
  // The table's alerts, by id.
  auto rows = db.Query(
      "SELECT alert_id, kind, epoch_us(start_time), epoch_us(end_time), epoch_us(closed_at), "
      "actual_headway_s FROM alerts ORDER BY alert_id");
  ASSERT_TRUE(rows.ok()) << rows.error().message();
  // This morning raises 10 (1 bunching, 2 gap, 6 gap_in_progress, 1 feed_blind).
  ASSERT_GE(rows->rows(), 5U) << "a simulated morning raises alerts of every kind";
  std::map<std::string, std::int64_t> kinds;
  EXPECT_EQ(first.last.size(), rows->rows());
  EXPECT_GE(first.messages, static_cast<std::int64_t>(rows->rows()));
  for (std::size_t r = 0; r < rows->rows(); ++r) {
    const std::string id = rows->String(r, 0);
    ++kinds[rows->String(r, 1)];
    const auto it = first.last.find(id);
    ASSERT_NE(it, first.last.end()) << "not on the topic: " << id;
    const nlohmann::json& m = it->second;
    EXPECT_EQ(m.at("alert_id"), id);
    EXPECT_EQ(m.at("kind"), rows->String(r, 1)) << id;
    EXPECT_EQ(MicrosOf(m.at("start_time")), rows->Int64(r, 2)) << id;
    const auto nullable = [&](std::size_t column) -> std::optional<std::int64_t> {
      return rows->IsNull(r, column) ? std::nullopt : std::optional(rows->Int64(r, column));
    };
    EXPECT_EQ(MicrosOf(m.at("end_time")), nullable(3)) << id;
    EXPECT_EQ(MicrosOf(m.at("closed_at")), nullable(4)) << id;
    if (rows->IsNull(r, 5)) {
      EXPECT_TRUE(m.at("actual_headway_s").is_null()) << id;
    } else {
      EXPECT_DOUBLE_EQ(m.at("actual_headway_s").get<double>(), rows->Double(r, 5)) << id;
    }
  }
  EXPECT_GT(kinds["bunching"], 0);
  EXPECT_GT(kinds["gap"], 0);
  EXPECT_GT(kinds["gap_in_progress"], 0);
  EXPECT_GT(kinds["feed_blind"], 0);
}

TEST(AlertsTopic, EveryAlertOnceAsTheTableHoldsItAndTheSameAgainOnAReplay) {
  const auto env = ReadServiceEnv();
  ASSERT_TRUE(env.has_value()) << kNoServices;
  TempDir dir("alerts-topic");
  const auto day = SimulatedMorning(dir);
  ASSERT_FALSE(day.empty());
  const std::string topic = "alerts-" + std::to_string(::getpid());
  std::string error;
  ASSERT_TRUE(CreateTopic(*env, env->kafka_dir, topic, 1, &error)) << error;

  const auto replay = [&](const std::string& name) {
    const auto db = dir.path() / (name + ".duckdb");
    const auto r = RunProcess(
        {FrotaBinary().string(), "-q", "replay", "archive:" + day.string(), "--gtfs",
         (day / "gtfs").string(), "--area", (day / "area.geojson").string(), "--db", db.string(),
         "--epoch-records", "20000", "--alerts-topic", topic, "--alerts-brokers", env->brokers});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return db;
  };
  const auto first_db = replay("first");
  const Published first = ReadTopic(env->brokers, topic, "alerts-first");

  auto db = sink::OpenFrotaDuckDb(first_db, /*must_exist=*/true);
  ASSERT_TRUE(db.ok()) << db.error().message();
  ExpectTheTopicHoldsTheTable(first, **db);

  // The same input again: the same alerts, the last message of each the same.
  replay("second");
  const Published both = ReadTopic(env->brokers, topic, "alerts-both");
  EXPECT_EQ(both.messages, 2 * first.messages);
  EXPECT_EQ(both.last, first.last);
}

// `frota run --kafka --gtfs --alerts-topic`: a consumer group's regularity follower
// publishes every alert it commits to `alerts`, as the table holds it.
TEST(AlertsTopic, AGroupsFollowerPublishesEveryAlertOfItsTable) {
  const auto env = ReadServiceEnv();
  ASSERT_TRUE(env.has_value()) << kNoServices;
  TempDir dir("alerts-topic-group");
  const auto day = SimulatedMorning(dir);
  ASSERT_FALSE(day.empty());
  const std::string positions = "alerts-positions-" + std::to_string(::getpid());
  const std::string alerts = "alerts-group-" + std::to_string(::getpid());
  std::string error;
  ASSERT_TRUE(CreateTopic(*env, env->kafka_dir, positions, 3, &error)) << error;
  ASSERT_TRUE(CreateTopic(*env, env->kafka_dir, alerts, 1, &error)) << error;
  const std::vector<std::string> job = {"--gtfs", (day / "gtfs").string(), "--area",
                                        (day / "area.geojson").string()};
  auto publish = std::vector<std::string>{
      FrotaBinary().string(), "-q",         "replay",  "archive:" + day.string(),
      "--to-kafka",           env->brokers, "--topic", positions};
  publish.insert(publish.end(), job.begin(), job.end());
  const auto published = RunProcess(publish);
  ASSERT_EQ(published.exit_code, 0) << published.err;

  sink::testing::TestDatabase pg(env->pg_dsn, "alerts_group");
  ASSERT_TRUE(pg.ok()) << pg.error();
  auto member = std::vector<std::string>{FrotaBinary().string(),
                                         "run",
                                         "--kafka",
                                         env->brokers,
                                         "--topic",
                                         positions,
                                         "--group",
                                         "g",
                                         "--postgres",
                                         pg.dsn(),
                                         "--until-end",
                                         "--epoch-seconds",
                                         "1",
                                         "--alerts-topic",
                                         alerts};
  member.insert(member.end(), job.begin(), job.end());
  const auto run = RunProcess(member);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("regularity follower done led=true finished=true"), std::string::npos)
      << run.err;

  const Published topic = ReadTopic(env->brokers, alerts, "alerts-group-reader");
  auto copy = sink::CopyPostgresToDuckDb(pg.dsn());
  ASSERT_TRUE(copy.ok()) << copy.error().message();
  ExpectTheTopicHoldsTheTable(topic, **copy);
}

}  // namespace
}  // namespace frota::testing
