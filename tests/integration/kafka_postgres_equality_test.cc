// The real Rio BRT archive through Kafka (6 partitions) into PostgreSQL with 1, 2 and 3
// consumer processes gives the same tables, byte for byte in `frota export`, as the
// embedded DuckDB replay of the same input; so does `frota replay --postgres`. The members'
// regularity follower commits the embedded replay's departures, headways and alerts.
#include <gtest/gtest.h>

#include <chrono>

#include "frota/sink/testing/test_database.h"
#include "scale_out_fixture.h"

namespace frota::testing {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

class KafkaPostgresEquality : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto env = ReadServiceEnv();
    ASSERT_TRUE(env.has_value()) << kNoServices;
    env_ = *env;
    const auto archive = FindBrtArchive();
    if (!archive) {
      FROTA_SHARED_MISSING("real Rio BRT archive not found under " << SharedDataDir());
    }
    archive_ = *archive;
  }

  // Runs `members` consumers of `topic` in a new group into a new database; returns the
  // export. Each member stops by itself once the whole topic is committed.
  Tree ConsumeAndExport(const std::string& topic, int members, const std::string& label) {
    sink::testing::TestDatabase db(env_.pg_dsn, label);
    EXPECT_TRUE(db.ok()) << db.error();
    std::vector<std::unique_ptr<ChildProcess>> consumers;
    for (int m = 0; m < members; ++m) {
      consumers.push_back(std::make_unique<ChildProcess>(
          ConsumerArgs(archive_, env_.brokers, topic, "group-" + label, db.dsn(),
                       {"--epoch-seconds", "1", "--session-timeout", "6", "--report",
                        (tmp_.path() / (label + "-" + std::to_string(m) + ".json")).string()}),
          tmp_.path() / (label + "-" + std::to_string(m) + ".log")));
    }
    for (auto& c : consumers) {
      EXPECT_TRUE(c->Wait(minutes(15))) << "a consumer did not finish:\n" << c->Log();
      EXPECT_EQ(c->exit_code(), 0) << c->Log();
    }
    // The departures, headways and alerts of one follower over all the members' output.
    ExpectSameRegularity(tmp_.path(), db.dsn());
    return ExportPostgres(db.dsn(), tmp_.path() / (label + "-export"));
  }

  ServiceEnv env_;
  BrtArchive archive_;
  TempDir tmp_{"kafka-postgres-equality"};
};

TEST_F(KafkaPostgresEquality, OneTwoAndThreeConsumersGiveTheEmbeddedTablesByteForByte) {
  const Tree baseline = EmbeddedBaseline(archive_, tmp_.path());
  ASSERT_FALSE(baseline.empty());
  for (const auto& [file, bytes] : baseline) {
    if (file == "positions.csv" || file == "stops.csv" || file == "trips.csv") {
      EXPECT_GT(Lines(bytes), 100U) << file;
    }
  }
  // The embedded run has no late records; a consumer's watermark is per partition, so a
  // late record there would make the runs differ (docs/scale-out.md, "Watermarks").
  EXPECT_EQ(LateCount(baseline), 0);

  const std::string topic = "brt-equality-" + std::to_string(::getpid());
  std::string error;
  ASSERT_TRUE(CreateTopic(env_, env_.kafka_dir, topic, 6, &error)) << error;
  const auto published = Publish(archive_, env_.brokers, topic,
                                 {"--report", (tmp_.path() / "publish.json").string()});
  ASSERT_EQ(published.exit_code, 0) << published.err;

  for (const int members : {1, 2, 3}) {
    SCOPED_TRACE(::testing::Message() << members << " consumers");
    const Tree tables = ConsumeAndExport(topic, members, "c" + std::to_string(members));
    ExpectSameTables(baseline, tables);
    EXPECT_EQ(LateCount(tables), 0);
  }

  SCOPED_TRACE("frota replay --postgres (embedded engine, PostgreSQL sink)");
  sink::testing::TestDatabase db(env_.pg_dsn, "replay");
  ASSERT_TRUE(db.ok()) << db.error();
  const auto replay = RunProcess(Concat(Concat({FrotaBinary().string(), "-q", "replay"},
                                               archive_.files),
                                        Concat(JobArgs(archive_), {"--postgres", db.dsn()})));
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  ExpectSameTables(baseline, ExportPostgres(db.dsn(), tmp_.path() / "replay-export"));
}

TEST_F(KafkaPostgresEquality, TheJsonPayloadGivesTheSameTables) {
  // One line of the archive keeps this one short; the binary test covers them all.
  const auto archive = FindBrtArchive({"19.csv.gz"});
  ASSERT_TRUE(archive.has_value());
  archive_ = *archive;
  const Tree baseline = EmbeddedBaseline(archive_, tmp_.path());
  const std::string topic = "brt-json-" + std::to_string(::getpid());
  std::string error;
  ASSERT_TRUE(CreateTopic(env_, env_.kafka_dir, topic, 3, &error)) << error;
  const auto published = Publish(archive_, env_.brokers, topic, {"--payload", "json"});
  ASSERT_EQ(published.exit_code, 0) << published.err;
  ExpectSameTables(baseline, ConsumeAndExport(topic, 2, "json"));
}

}  // namespace
}  // namespace frota::testing
