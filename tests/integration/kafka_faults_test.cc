// Bad things, handled with a clear message and no loss: a corrupt message (bad_payload,
// its offset recorded, processing goes on), a schema newer than the binary (refused),
// brokers unreachable at start (retried with backoff, said so), PostgreSQL down for 30 s
// in the middle of a run (waited out; the tables are the same as without the outage).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <thread>

#include "frota/sink/pg_connection.h"
#include "frota/sink/postgres_sink.h"
#include "frota/sink/testing/test_database.h"
#include "frota/transport/producer.h"
#include "scale_out_fixture.h"

namespace frota::testing {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

class ScaleOutFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto env = ReadServiceEnv();
    ASSERT_TRUE(env.has_value()) << kNoServices;
    env_ = *env;
  }
  std::string NewTopic(const std::string& label, int partitions) {
    const std::string topic = label + "-" + std::to_string(::getpid());
    std::string error;
    EXPECT_TRUE(CreateTopic(env_, env_.kafka_dir, topic, partitions, &error)) << error;
    return topic;
  }
  ServiceEnv env_;
  TempDir tmp_{"scale-out-faults"};
};

TEST_F(ScaleOutFaults, ACorruptMessageIsABadPayloadRejectionAndProcessingGoesOn) {
  const std::string topic = NewTopic("bad-payload", 2);
  transport::ProducerOptions options;
  options.brokers = env_.brokers;
  options.topic = topic;
  auto producer = transport::Producer::Create(options);
  ASSERT_TRUE(producer.ok()) << producer.error().message();
  model::SourceCatalog catalog;
  const auto source = catalog.Intern("feed.json");
  const auto t0 = base::FromUnixSeconds(1'656'570'000);
  for (int i = 0; i < 60; ++i) {
    if (i == 20) {
      ASSERT_TRUE((*producer)->PublishRaw("rio-brt/v1", "\xF5\x01\x01garbage").ok());
      ASSERT_TRUE((*producer)->PublishRaw("rio-brt/v1", "").ok());
      std::string newer;
      model::Position p;
      p.feed_id = "rio-brt";
      transport::EncodePosition(p, "x", transport::PayloadFormat::kBinary, newer);
      newer[1] = 2;  // a payload version this binary does not read
      ASSERT_TRUE((*producer)->PublishRaw("rio-brt/v1", newer).ok());
    }
    model::Position p;
    p.feed_id = "rio-brt";
    p.vehicle_id = "v1";
    p.lat = -22.9 + i * 1e-4;
    p.lon = -43.2;
    p.event_time = t0 + seconds(30 * i);
    p.ingest_time = p.event_time + seconds(20);
    p.source = {source, i};
    ASSERT_TRUE((*producer)->PublishPosition(p, "feed.json").ok());
  }
  ASSERT_TRUE((*producer)->PublishEndOfInput("test").ok());

  sink::testing::TestDatabase db(env_.pg_dsn, "badpayload");
  ASSERT_TRUE(db.ok()) << db.error();
  ChildProcess consumer({FrotaBinary().string(), "run", "--kafka", env_.brokers, "--topic", topic,
                         "--group", "g", "--postgres", db.dsn(), "--until-end"},
                        tmp_.path() / "bad-payload.log");
  ASSERT_TRUE(consumer.Wait(minutes(5))) << consumer.Log();
  ASSERT_EQ(consumer.exit_code(), 0) << consumer.Log();
  EXPECT_NE(consumer.Log().find("bad payload topic=" + topic), std::string::npos);

  auto pg = sink::PgConnection::Open(db.dsn());
  ASSERT_TRUE(pg.ok());
  auto rows = (*pg)->Query(
      "SELECT feed_id, vehicle_id, source, source_offset, detail, ingest_time IS NOT NULL "
      "FROM rejected WHERE reason = 'bad_payload' ORDER BY source_offset");
  ASSERT_TRUE(rows.ok()) << rows.error().message();
  ASSERT_EQ(rows->rows(), 3);
  // The messages of one key are consecutive in their partition: offsets 20, 21, 22.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(rows->Value(i, 0), "rio-brt");
    EXPECT_EQ(rows->Value(i, 1), "v1");
    EXPECT_TRUE(rows->Value(i, 2).starts_with(topic + "/")) << rows->Value(i, 2);
    EXPECT_EQ(rows->Int(i, 3), 20 + i);
    EXPECT_EQ(rows->Value(i, 5), "t");  // dated by the message's timestamp
  }
  EXPECT_NE(rows->Value(0, 4).find("truncated"), std::string::npos) << rows->Value(0, 4);
  EXPECT_NE(rows->Value(1, 4).find("empty payload"), std::string::npos) << rows->Value(1, 4);
  EXPECT_NE(rows->Value(2, 4).find("payload version 2, this frota reads version 1"),
            std::string::npos)
      << rows->Value(2, 4);
  auto positions = (*pg)->Query("SELECT count(*) FROM positions");
  ASSERT_TRUE(positions.ok());
  EXPECT_EQ(positions->Int(0, 0), 60);
  auto quality = (*pg)->Query("SELECT sum(bad_payload), sum(accepted) FROM quality_hours");
  ASSERT_TRUE(quality.ok());
  EXPECT_EQ(quality->Int(0, 0), 3);
  EXPECT_EQ(quality->Int(0, 1), 60);
}

TEST_F(ScaleOutFaults, ADatabaseWithANewerSchemaIsRefusedByEveryCommand) {
  sink::testing::TestDatabase db(env_.pg_dsn, "newer");
  ASSERT_TRUE(db.ok()) << db.error();
  {
    model::SourceCatalog catalog;
    sink::PostgresSinkOptions options;
    options.dsn = db.dsn();
    auto sink = sink::PostgresSink::Open(options, &catalog);
    ASSERT_TRUE(sink.ok()) << sink.error().message();
  }
  auto pg = sink::PgConnection::Open(db.dsn());
  ASSERT_TRUE(pg.ok());
  const int newer = sink::kPostgresSchemaVersion + 1;
  const auto insert =
      fmt::format("INSERT INTO frota_schema VALUES ({}, now(), 'a newer frota')", newer);
  ASSERT_TRUE((*pg)->Execute(insert).ok());
  const std::string topic = NewTopic("newer", 1);
  for (const auto& argv : std::vector<std::vector<std::string>>{
           {FrotaBinary().string(), "run", "--kafka", env_.brokers, "--topic", topic, "--group",
            "g", "--postgres", db.dsn()},
           {FrotaBinary().string(), "export", "--postgres", db.dsn(), "--out",
            (tmp_.path() / "newer-export").string()}}) {
    const auto r = RunProcess(argv);
    EXPECT_EQ(r.exit_code, 2) << argv[1] << ": " << r.err;
    EXPECT_NE(r.err.find(fmt::format("schema version {}, newer than this frota understands ({}); "
                                     "refusing",
                                     newer, sink::kPostgresSchemaVersion)),
              std::string::npos)
        << argv[1] << ": " << r.err;
  }
}

TEST_F(ScaleOutFaults, UnreachableBrokersAreRetriedWithBackoffAndReportedClearly) {
  sink::testing::TestDatabase db(env_.pg_dsn, "unreachable");
  ASSERT_TRUE(db.ok()) << db.error();
  const auto run = RunProcess({FrotaBinary().string(), "run", "--kafka", "127.0.0.1:1",
                               "--topic", "t", "--group", "g", "--postgres", db.dsn(),
                               "--kafka-wait", "4"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("kafka brokers unreachable, retrying brokers=127.0.0.1:1 attempt=1"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("frota: kafka brokers 127.0.0.1:1 unreachable for 4 s"),
            std::string::npos)
      << run.err;
  const auto archive = FindBrtArchive({"17.csv.gz"});
  if (!archive) {
    FROTA_SHARED_MISSING("real Rio BRT archive not found under " << SharedDataDir());
  }
  const auto publish = RunProcess(Concat(Concat({FrotaBinary().string(), "replay"}, archive->files),
                                         {"--to-kafka", "127.0.0.1:1", "--topic", "t",
                                          "--kafka-wait", "2"}));
  EXPECT_NE(publish.exit_code, 0);
  EXPECT_NE(publish.err.find("unreachable for 2 s"), std::string::npos) << publish.err;
}

TEST_F(ScaleOutFaults, PostgresDownForThirtySecondsIsWaitedOutWithoutLoss) {
  const auto archive = FindBrtArchive({"19.csv.gz"});
  if (!archive) {
    FROTA_SHARED_MISSING("real Rio BRT archive not found under " << SharedDataDir());
  }
  const Tree baseline = EmbeddedBaseline(*archive, tmp_.path());
  const std::string topic = NewTopic("pg-down", 3);
  ASSERT_EQ(Publish(*archive, env_.brokers, topic).exit_code, 0);
  OwnPostgres postgres(env_, tmp_.path() / "pg");
  ASSERT_TRUE(postgres.ok()) << postgres.error();
  sink::testing::TestDatabase db(postgres.dsn(), "pgdown");
  ASSERT_TRUE(db.ok()) << db.error();
  // Small epochs with a pause before each COMMIT: the run is still going when the
  // server goes away.
  ChildProcess consumer(ConsumerArgs(*archive, env_.brokers, topic, "g", db.dsn(),
                                     {"--epoch-records", "250", "--epoch-seconds", "0.5",
                                      "--fault", "pg-pause-before-commit-ms=300",
                                      // ~55 k messages at 2,000/s: still running when the
                                      // server goes.
                                      "--fault", "messages-per-second=2000"}),
                        tmp_.path() / "pg-down.log");
  ASSERT_TRUE(consumer.WaitForLog("test hook: rows copied", minutes(3))) << consumer.Log();
  std::this_thread::sleep_for(seconds(2));
  ASSERT_TRUE(consumer.Running()) << consumer.Log();
  const auto down_from = consumer.Log().size();
  ASSERT_TRUE(postgres.Pause());
  std::this_thread::sleep_for(seconds(30));
  ASSERT_TRUE(postgres.Resume());
  ASSERT_TRUE(consumer.Wait(minutes(10))) << consumer.Log();
  ASSERT_EQ(consumer.exit_code(), 0) << consumer.Log();
  const std::string log = consumer.Log().substr(down_from);
  EXPECT_NE(log.find("postgres unavailable, waiting"), std::string::npos) << log;
  EXPECT_NE(log.find("postgres available again"), std::string::npos) << log;
  ExpectSameTables(baseline, ExportPostgres(db.dsn(), tmp_.path() / "export"));
  ExpectSameRegularity(tmp_.path(), db.dsn());
}

}  // namespace
}  // namespace frota::testing
