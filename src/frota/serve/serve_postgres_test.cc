// frota serve on PostgreSQL: the same simulated day replayed into PostgreSQL and into
// DuckDB answers every API document identically, queried in place (no copy), and the
// alert stream delivers an alert committed to PostgreSQL while it runs.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "frota/codec/decode.h"
#include "frota/serve/server.h"
#include "frota/serve/store.h"
#include "frota/sim/sim_test_util.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/sink/pg_connection.h"
#include "frota/sink/testing/test_database.h"
#include "serve_day.h"

namespace frota::serve {
namespace {

using sim::testing_util::ScratchDir;

TEST(ServePostgres, AnswersAsDuckDbDoesAndStreamsAlerts) {
  const std::string server_dsn = sink::testing::ServerDsn();
  ASSERT_FALSE(server_dsn.empty()) << sink::testing::kNoServerMessage;
  sink::testing::TestDatabase pg_db(server_dsn, "serve");
  ASSERT_TRUE(pg_db.ok()) << pg_db.error();

  ScratchDir dir("serve-pg");
  auto day = testing_util::SimulateMorning(dir.path() / "day");
  ASSERT_TRUE(day.ok()) << day.error().message();
  const auto duck_path = dir.path() / "day.duckdb";
  ASSERT_TRUE(testing_util::ReplayIntoDuckDb(*day, duck_path).ok());
  const auto replayed = testing_util::ReplayIntoPostgres(*day, pg_db.dsn());
  ASSERT_TRUE(replayed.ok()) << replayed.error().message();

  auto duck = sink::OpenFrotaDuckDb(duck_path, /*must_exist=*/true);
  ASSERT_TRUE(duck.ok());
  auto pg = sink::PgConnection::Open(pg_db.dsn());
  ASSERT_TRUE(pg.ok()) << pg.error().message();
  ASSERT_TRUE((*duck)->Execute(testing_util::AlertsDdl(false)).ok());
  ASSERT_TRUE((*pg)->Execute(testing_util::AlertsDdl(true)).ok());
  const std::string alert = testing_util::InsertAlert(
      "a1", "bunching", "<b>101</b>", "2024-06-05 07:10:00", "2024-06-05 07:25:00", "v1,v2");
  ASSERT_TRUE((*duck)->Execute(alert).ok());
  ASSERT_TRUE((*pg)->Execute(alert).ok());

  auto duck_store = DuckDbStore(std::move(*duck));
  auto pg_store = OpenPostgresStore(pg_db.dsn());
  ASSERT_TRUE(pg_store.ok()) << pg_store.error().message();
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.alert_poll = std::chrono::milliseconds(50);
  Server duck_server(std::move(duck_store), options);
  Server pg_server(std::move(*pg_store), options);
  ASSERT_TRUE(duck_server.Start().ok());
  ASSERT_TRUE(pg_server.Start().ok());
  httplib::Client duck_client("127.0.0.1", duck_server.port());
  httplib::Client pg_client("127.0.0.1", pg_server.port());

  for (const char* path :
       {"/api/vehicles", "/api/lines", "/api/alerts", "/api/alerts?since=2024-06-05T07:20:00Z",
        "/gtfs-rt/vehicle-positions.pb"}) {
    const auto d = duck_client.Get(path);
    const auto p = pg_client.Get(path);
    ASSERT_TRUE(d && p) << path;
    ASSERT_EQ(d->status, 200) << path << d->body;
    ASSERT_EQ(p->status, 200) << path << p->body;
    EXPECT_EQ(d->body, p->body) << path;
  }
  const auto vehicles = nlohmann::json::parse(pg_client.Get("/api/vehicles")->body);
  EXPECT_GT(vehicles["vehicles"].size(), 5U);
  const auto lines = nlohmann::json::parse(pg_client.Get("/api/lines")->body);
  EXPECT_TRUE(lines["headways_computed"]);
  EXPECT_GE(lines["lines"].size(), 5U);
  codec::DecodedBatch batch;
  ASSERT_TRUE(codec::DecodeResponse(codec::Format::kGtfsRt,
                                    pg_client.Get("/gtfs-rt/vehicle-positions.pb")->body, {}, batch)
                  .ok());
  EXPECT_EQ(batch.positions.size(), vehicles["vehicles"].size());

  testing_util::StreamReader reader(pg_server.port(), "/api/alerts/stream");
  ASSERT_TRUE(reader.WaitFor("event: as_of", std::chrono::seconds(60)));
  ASSERT_TRUE((*pg)
                  ->Execute(testing_util::InsertAlert("a2", "gap", "102", "2024-06-05 07:40:00",
                                                      "2024-06-05 07:50:00", "v3"))
                  .ok());
  ASSERT_TRUE(reader.WaitFor("\"alert_id\":\"a2\"", std::chrono::seconds(60))) << reader.Received();
  EXPECT_EQ(reader.Received().find("\"alert_id\":\"a1\""), std::string::npos);
}

}  // namespace
}  // namespace frota::serve
