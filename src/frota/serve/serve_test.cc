// frota serve on a simulated day replayed into DuckDB: the API's answers against SQL run
// here, the cleaned GTFS-Realtime feed decoded with the project's decoder, the alert
// stream delivering an alert inserted while it runs, and hostile strings kept as text.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "frota/codec/decode.h"
#include "frota/serve/server.h"
#include "frota/serve/store.h"
#include "frota/sim/sim_test_util.h"
#include "frota/sink/duckdb_sink.h"
#include "serve_day.h"

namespace frota::serve {
namespace {

using Json = nlohmann::json;
using sim::testing_util::ScratchDir;

constexpr const char* kHostileRoute = "<img src=x onerror=\"document.body.dataset.pwned=1\">";
constexpr const char* kHostileVehicles = "</script><script>document.body.dataset.pwned=2</script>";

class ServeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("serve");
    auto day = testing_util::SimulateMorning(dir_->path() / "day");
    ASSERT_TRUE(day.ok()) << day.error().message();
    const auto path = dir_->path() / "day.duckdb";
    const auto replayed = testing_util::ReplayIntoDuckDb(*day, path);
    ASSERT_TRUE(replayed.ok()) << replayed.error().message();
    auto db = sink::OpenFrotaDuckDb(path, /*must_exist=*/true);
    ASSERT_TRUE(db.ok()) << db.error().message();
    db_ = db->release();
    ASSERT_TRUE(db_->Execute(testing_util::AlertsDdl(false)).ok());
    ASSERT_TRUE(
        db_->Execute(testing_util::InsertAlert("a1", "bunching", "101", "2024-06-05 09:10:00",
                                               "2024-06-05 09:25:00", "v1,v2"))
            .ok());
    ASSERT_TRUE(
        db_->Execute(testing_util::InsertAlert("a2", "gap", kHostileRoute, "2024-06-05 10:00:00",
                                               "2024-06-05 10:30:00", kHostileVehicles))
            .ok());
  }
  static void TearDownTestSuite() {
    delete db_;
    db_ = nullptr;
    delete dir_;
    dir_ = nullptr;
  }

  static std::unique_ptr<Store> NewStore() {
    auto connection = db_->Connect();
    EXPECT_TRUE(connection.ok());
    return DuckDbStore(std::move(*connection));
  }
  static std::int64_t Scalar(const std::string& sql) {
    auto result = db_->Query(sql);
    EXPECT_TRUE(result.ok()) << result.error().message();
    return result->IsNull(0, 0) ? -1 : result->Int64(0, 0);
  }

  static ScratchDir* dir_;
  static sink::DuckDbConnection* db_;
};
ScratchDir* ServeTest::dir_ = nullptr;
sink::DuckDbConnection* ServeTest::db_ = nullptr;

// A started server on a free loopback port, with its client.
struct Running {
  explicit Running(std::unique_ptr<Store> store, ServerOptions options = {})
      : server(std::move(store), [&] {
          options.listen = "127.0.0.1:0";
          return options;
        }()) {
    const auto started = server.Start();
    EXPECT_TRUE(started.ok()) << started.error().message();
    client = std::make_unique<httplib::Client>("127.0.0.1", server.port());
  }
  Json GetJson(const std::string& path, int expect_status = 200) {
    const auto res = client->Get(path);
    EXPECT_TRUE(res) << path;
    if (!res) {
      return {};
    }
    EXPECT_EQ(res->status, expect_status) << path << ": " << res->body;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json; charset=utf-8");
    return Json::parse(res->body);
  }
  Server server;
  std::unique_ptr<httplib::Client> client;
};

TEST_F(ServeTest, AsOfIsTheLastEventTime) {
  auto store = NewStore();
  const auto as_of = store->AsOf();
  ASSERT_TRUE(as_of.ok()) << as_of.error().message();
  ASSERT_TRUE(as_of->has_value());
  EXPECT_EQ(base::ToUnixMicros(**as_of), Scalar("SELECT epoch_us(max(event_time)) FROM positions"));
}

TEST_F(ServeTest, VehiclesAreEachVehiclesLatestPositionInTheWindow) {
  Running running(NewStore());
  const Json doc = running.GetJson("/api/vehicles");
  const std::int64_t as_of = Scalar("SELECT epoch_us(max(event_time)) FROM positions");
  EXPECT_EQ(doc["as_of"], base::FormatIso8601(base::FromUnixMicros(as_of)));
  EXPECT_EQ(doc["window_s"], 300);
  const std::string window = fmt::format(
      "event_time > make_timestamp({}::BIGINT) AND event_time <= make_timestamp({}::BIGINT)",
      as_of - 300'000'000, as_of);
  const std::int64_t expected =
      Scalar("SELECT count(*) FROM (SELECT DISTINCT feed_id, vehicle_id FROM positions WHERE " +
             window + ")");
  ASSERT_GT(expected, 5);
  ASSERT_EQ(static_cast<std::int64_t>(doc["vehicles"].size()), expected);
  for (const Json& v : doc["vehicles"]) {
    const std::string vehicle = v["vehicle_id"];
    const std::int64_t latest =
        Scalar(fmt::format("SELECT epoch_us(max(event_time)) FROM positions WHERE vehicle_id = "
                           "'{}' AND feed_id = '{}'",
                           vehicle, v["feed_id"].get<std::string>()));
    EXPECT_EQ(v["event_time"], base::FormatIso8601(base::FromUnixMicros(latest))) << vehicle;
    const std::int64_t same_place = Scalar(fmt::format(
        "SELECT count(*) FROM positions WHERE vehicle_id = '{}' AND epoch_us(event_time) = {} "
        "AND abs(lat - ({})) < 1e-9 AND abs(lon - ({})) < 1e-9",
        vehicle, latest, v["lat"].get<double>(), v["lon"].get<double>()));
    EXPECT_EQ(same_place, 1) << vehicle;
  }
}

TEST_F(ServeTest, LinesCountTheLastHoursDepartures) {
  Running running(NewStore());
  const Json doc = running.GetJson("/api/lines");
  EXPECT_TRUE(doc["headways_computed"]);
  ASSERT_GE(doc["lines"].size(), 5U);
  const std::int64_t as_of = Scalar("SELECT epoch_us(max(event_time)) FROM positions");
  std::int64_t departures = 0;
  for (const Json& line : doc["lines"]) {
    const std::string route = line["route_id"];
    const std::string direction = line["direction_id"].is_null()
                                      ? "IS NULL"
                                      : fmt::format("= {}", line["direction_id"].get<int>());
    const std::int64_t expected = Scalar(
        fmt::format("SELECT count(*) FROM headways WHERE route_id = '{}' AND direction_id {} AND "
                    "epoch_us(departure_time) > {} AND epoch_us(departure_time) <= {}",
                    route, direction, as_of - 3'600'000'000LL, as_of));
    EXPECT_EQ(line["departures_last_hour"], expected) << route;
    departures += expected;
    const std::int64_t last = Scalar(
        fmt::format("SELECT epoch_us(max(departure_time)) FROM headways WHERE route_id = '{}' AND "
                    "direction_id {} AND epoch_us(departure_time) <= {}",
                    route, direction, as_of));
    EXPECT_EQ(line["last_departure"], base::FormatIso8601(base::FromUnixMicros(last))) << route;
    const std::set<std::string> statuses = {"bunching", "gap",       "gap_in_progress",
                                            "regular",  "unplanned", "unknown"};
    EXPECT_TRUE(statuses.count(line["status"].get<std::string>())) << line.dump();
  }
  EXPECT_GT(departures, 0);
}

TEST_F(ServeTest, AlertsAllAndSince) {
  Running running(NewStore());
  const Json all = running.GetJson("/api/alerts");
  EXPECT_TRUE(all["alerts_table"]);
  ASSERT_EQ(all["alerts"].size(), 2U);
  EXPECT_EQ(all["alerts"][0]["alert_id"], "a1");
  EXPECT_EQ(all["alerts"][0]["raised_at"], "2024-06-05T09:25:00Z");
  EXPECT_EQ(all["alerts"][0]["planned_headway_s"], 480.0);
  EXPECT_TRUE(all["alerts"][0]["end_time"].is_null());
  // Text stays exactly what the table holds: the page, not the API, keeps it text.
  EXPECT_EQ(all["alerts"][1]["route_id"], kHostileRoute);
  EXPECT_EQ(all["alerts"][1]["vehicles"], kHostileVehicles);
  const Json since = running.GetJson("/api/alerts?since=2024-06-05T10:00:00Z");
  ASSERT_EQ(since["alerts"].size(), 1U);
  EXPECT_EQ(since["alerts"][0]["alert_id"], "a2");
  EXPECT_EQ(since["since"], "2024-06-05T10:00:00Z");
  const Json bad = running.GetJson("/api/alerts?since=yesterday", 400);
  EXPECT_NE(bad["error"].get<std::string>().find("yesterday"), std::string::npos);
}

TEST_F(ServeTest, HealthzAndPageHeaders) {
  Running running(NewStore());
  const Json health = running.GetJson("/healthz");
  EXPECT_EQ(health["status"], "ok");
  EXPECT_FALSE(health["as_of"].is_null());
  const auto page = running.client->Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  const std::string csp = page->get_header_value("Content-Security-Policy");
  EXPECT_NE(csp.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(csp.find("script-src 'self'"), std::string::npos);
  EXPECT_EQ(csp.find("unsafe"), std::string::npos);
  EXPECT_EQ(page->get_header_value("X-Content-Type-Options"), "nosniff");
  for (const char* asset : {"/live.js", "/live.css"}) {
    const auto res = running.client->Get(asset);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << asset;
  }
  // The script builds every element from data with textContent or attributes.
  const auto script = running.client->Get("/live.js");
  for (const char* sink :
       {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("}) {
    EXPECT_EQ(script->body.find(sink), std::string::npos) << sink;
  }
  EXPECT_EQ(running.client->Get("/nothing-here")->status, 404);
  // Read-only: another method is refused as a method, not as a missing path.
  const auto posted = running.client->Post("/api/lines", "{}", "application/json");
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->status, 405);
  EXPECT_EQ(posted->get_header_value("Allow"), "GET, HEAD");
}

TEST_F(ServeTest, ServesTheOpenApiDescriptionOfEveryJsonRoute) {
  Running running(NewStore());
  const Json spec = running.GetJson("/openapi.json");
  EXPECT_EQ(spec["openapi"], "3.1.0");
  for (const char* path : {"/healthz", "/api/vehicles", "/api/lines", "/api/alerts"}) {
    EXPECT_TRUE(spec["paths"].contains(path)) << path;
  }
}

TEST_F(ServeTest, GtfsRealtimeFeedDecodesToTheVehiclesLatestPositions) {
  Running running(NewStore());
  const Json vehicles = running.GetJson("/api/vehicles");
  const auto res = running.client->Get("/gtfs-rt/vehicle-positions.pb");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/x-protobuf");
  codec::DecodeOptions options;
  options.feed_id = "frota-sim";
  codec::DecodedBatch batch;
  const auto info = codec::DecodeResponse(codec::Format::kGtfsRt, res->body, options, batch);
  ASSERT_TRUE(info.ok()) << info.error().message();
  EXPECT_TRUE(batch.rejections.empty());
  ASSERT_EQ(batch.positions.size(), vehicles["vehicles"].size());
  ASSERT_TRUE(info->header_time.has_value());
  const auto as_of = base::ParseIso8601(vehicles["as_of"].get<std::string>());
  EXPECT_EQ(base::ToUnixMicros(*info->header_time) / 1'000'000,
            base::ToUnixMicros(*as_of) / 1'000'000);
  for (std::size_t i = 0; i < batch.positions.size(); ++i) {
    const model::Position& p = batch.positions[i];
    const Json& v = vehicles["vehicles"][i];
    // Without a GTFS the feed's own ids; vehicle.id is unique across feeds.
    EXPECT_EQ(p.vehicle_id,
              v["feed_id"].get<std::string>() + "/" + v["vehicle_id"].get<std::string>());
    EXPECT_EQ(p.route_id, v["route_id"]);
    EXPECT_EQ(p.trip_id, v["trip_id"]);
    EXPECT_NEAR(p.lat, v["lat"].get<double>(), 1e-5);
    EXPECT_NEAR(p.lon, v["lon"].get<double>(), 1e-5);
    const auto t = base::ParseIso8601(v["event_time"].get<std::string>());
    EXPECT_EQ(base::ToUnixMicros(p.event_time), base::ToUnixMicros(*t) / 1'000'000 * 1'000'000);
    if (!v["direction_id"].is_null()) {
      EXPECT_EQ(p.direction_id, v["direction_id"].get<int>());
    }
  }
}

TEST_F(ServeTest, StreamDeliversANewlyInsertedAlert) {
  ServerOptions options;
  options.alert_poll = std::chrono::milliseconds(50);
  Running running(NewStore(), options);
  testing_util::StreamReader reader(running.server.port(), "/api/alerts/stream");
  ASSERT_TRUE(reader.WaitFor("event: as_of", std::chrono::seconds(60))) << reader.Received();
  ASSERT_TRUE(
      db_->Execute(testing_util::InsertAlert("a3", "gap_in_progress", "102", "2024-06-05 10:40:00",
                                             "2024-06-05 10:50:00", "v9"))
          .ok());
  ASSERT_TRUE(reader.WaitFor("\"alert_id\":\"a3\"", std::chrono::seconds(60))) << reader.Received();
  // The alerts there at start are not news; a closed alert is sent again.
  EXPECT_EQ(reader.Received().find("\"alert_id\":\"a1\""), std::string::npos);
  ASSERT_TRUE(db_->Execute("UPDATE alerts SET closed_at = TIMESTAMP '2024-06-05 10:55:00', "
                           "end_time = TIMESTAMP '2024-06-05 10:55:00' WHERE alert_id = 'a3'")
                  .ok());
  ASSERT_TRUE(reader.WaitFor("\"closed_at\":\"2024-06-05T10:55:00Z\"", std::chrono::seconds(60)))
      << reader.Received();
  ASSERT_TRUE(db_->Execute("DELETE FROM alerts WHERE alert_id = 'a3'").ok());
}

TEST(ServeStore, DatabaseWithoutHeadwaysOrAlerts) {
  ScratchDir dir("serve-empty");
  auto db = sink::OpenFrotaDuckDb(dir.path() / "empty.duckdb", /*must_exist=*/false);
  ASSERT_TRUE(db.ok()) << db.error().message();
  Running running(DuckDbStore(std::move(*db)));
  const Json vehicles = running.GetJson("/api/vehicles");
  EXPECT_TRUE(vehicles["as_of"].is_null());
  EXPECT_TRUE(vehicles["vehicles"].empty());
  const Json lines = running.GetJson("/api/lines");
  EXPECT_FALSE(lines["headways_computed"]);
  const Json alerts = running.GetJson("/api/alerts");
  // Schema 7 creates the streaming job's (empty) alerts table with the database.
  EXPECT_TRUE(alerts["alerts_table"]);
  EXPECT_TRUE(alerts["alerts"].empty());
  const auto feed = running.client->Get("/gtfs-rt/vehicle-positions.pb");
  ASSERT_TRUE(feed);
  codec::DecodedBatch batch;
  ASSERT_TRUE(codec::DecodeResponse(codec::Format::kGtfsRt, feed->body, {}, batch).ok());
  EXPECT_TRUE(batch.positions.empty());
}

TEST(ServeStore, RefusesABadListenAddress) {
  ScratchDir dir("serve-listen");
  auto db = sink::OpenFrotaDuckDb(dir.path() / "x.duckdb", /*must_exist=*/false);
  ASSERT_TRUE(db.ok());
  ServerOptions options;
  options.listen = "127.0.0.1:http";
  Server server(DuckDbStore(std::move(*db)), options);
  const auto started = server.Start();
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.error().message().find("bad port"), std::string::npos);
}

}  // namespace
}  // namespace frota::serve
