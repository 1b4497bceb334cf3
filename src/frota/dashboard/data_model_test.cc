// The dashboard's data model against golden files built from a small database of known rows.
#include "frota/dashboard/data_model.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "frota/dashboard/data_model_internal.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/testing/shared_data.h"
#include "frota/testing/subprocess.h"

namespace frota::dashboard {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

fs::path FixtureDir() { return testing::SourceDir() / "tests" / "data" / "dashboard"; }

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Compares with tests/data/dashboard/NAME; FROTA_UPDATE_GOLDEN=1 rewrites it instead.
void ExpectGolden(const std::string& name, const std::string& actual) {
  const fs::path path = FixtureDir() / name;
  const char* update = std::getenv("FROTA_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << path;
  }
  ASSERT_TRUE(fs::exists(path)) << path << " is missing: run with FROTA_UPDATE_GOLDEN=1";
  const std::string expected = ReadText(path);
  if (expected != actual) {
    const fs::path got =
        fs::path(std::getenv("FROTA_BINARY_DIR") != nullptr ? std::getenv("FROTA_BINARY_DIR")
                                                            : ".") /
        ("actual-" + name);
    std::ofstream(got, std::ios::binary) << actual;
    FAIL() << "the data model differs from " << path << "; the new one is in " << got
           << " (diff them; if the change is intended, rerun with FROTA_UPDATE_GOLDEN=1)";
  }
}

// A SQL string literal.
std::string Q(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    out += c;
    if (c == '\'') {
      out += '\'';
    }
  }
  return out + "'";
}

// A vehicle id and a route name that try to break out of the page.
constexpr const char* kHostileVehicle = "V</script><script>alert(1)</script>";
constexpr const char* kEmojiVehicle = "\xF0\x9F\x9A\x8C \"quoted\" 'single' \xE2\x80\xA8";

class DataModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = sink::OpenFrotaDuckDb(tmp_.path() / "fixture.duckdb", /*must_exist=*/false);
    ASSERT_TRUE(db.ok()) << db.error().message();
    db_ = std::move(db).value();
    auto zone = base::TimeZone::Load("America/Sao_Paulo");
    ASSERT_TRUE(zone.ok());
    options_.time_zone = *zone;
    options_.db_name = "fixture.duckdb";
  }

  void Exec(const std::string& sql) {
    const auto status = db_->Execute(sql);
    ASSERT_TRUE(status.ok()) << status.error().message() << "\n" << sql;
  }

  // UTC instants; America/Sao_Paulo is UTC-3, so 10:00Z is 07h local on 2024-06-05.
  void Position(const std::string& feed, const std::string& vehicle, const std::string& mode,
                const std::string& route, const std::string& utc, double lat, double lon) {
    const std::string sql =
        "INSERT INTO positions_text VALUES (" + Q(feed) + ", " + Q(vehicle) + ", " + Q(mode) +
        ", " + Q(route) + ", '', '', '', NULL, " + std::to_string(lat) + ", " +
        std::to_string(lon) + ", NULL, NULL, NULL, NULL, TIMESTAMP '" + utc + "', TIMESTAMP '" +
        utc + "' + INTERVAL 20 SECOND, false, 'fixture', " + std::to_string(offset_++) + ")";
    const auto status = sink::AddSilverText(*db_, [&] { return db_->Execute(sql); });
    ASSERT_TRUE(status.ok()) << status.error().message() << "\n" << sql;
  }

  // An aircraft position as the OpenSky decoder stores it: icao24 as vehicle, callsign as
  // route, altitude, on ground, speed and track (NAN / -1: absent), and its row of
  // aircraft_positions (origin country; last contact, -1: none) unless `country` is
  // nullopt (a position written before schema version 8).
  void Aircraft(const std::string& icao24, const std::string& callsign, const std::string& utc,
                double lat, double lon, double altitude_m, int on_ground, double speed_kmh,
                double track_deg, std::optional<std::string> country = std::nullopt,
                int64_t last_contact = -1) {
    auto number = [](double v) { return std::isnan(v) ? std::string("NULL") : std::to_string(v); };
    const std::string ground =
        on_ground < 0 ? std::string("NULL") : (on_ground != 0 ? "true" : "false");
    const std::string sql =
        "INSERT INTO positions_text VALUES ('opensky', " + Q(icao24) + ", 'aircraft', " +
        Q(callsign) + ", '', '', '', NULL, " + std::to_string(lat) + ", " + std::to_string(lon) +
        ", " + number(speed_kmh) + ", " + number(track_deg) + ", " + number(altitude_m) + ", " +
        ground + ", TIMESTAMP '" + utc + "', TIMESTAMP '" + utc + "' + INTERVAL 5 SECOND, false, " +
        "'states.json', " + std::to_string(offset_++) + ")";
    const auto status = sink::AddSilverText(*db_, [&] { return db_->Execute(sql); });
    ASSERT_TRUE(status.ok()) << status.error().message() << "\n" << sql;
    if (country) {
      Exec("INSERT INTO aircraft_positions VALUES ('opensky', " + Q(icao24) + ", TIMESTAMP '" +
           utc + "', " + Q(*country) + ", " +
           (last_contact < 0 ? std::string("NULL") : std::to_string(last_contact)) + ")");
    }
  }

  void FillCoreTables() {
    Position("rio-sppo", "B1", "bus", "10", "2024-06-05 10:00:00", -22.90, -43.20);
    Position("rio-sppo", "B1", "bus", "10", "2024-06-05 10:05:00", -22.91, -43.205);
    Position("rio-sppo", "B1", "bus", "10", "2024-06-05 11:10:00", -22.92, -43.21);
    Position("rio-sppo", "B2", "bus", "10", "2024-06-05 10:30:00", -22.93, -43.215);
    Position("rio-sppo", "B3", "bus", "", "2024-06-05 10:40:00", -22.93, -43.215);
    Position("rio-brt", kHostileVehicle, "brt", "53B", "2024-06-05 10:00:00", -22.95, -43.25);
    Position("rio-brt", kHostileVehicle, "brt", "53B", "2024-06-05 11:00:00", -22.94, -43.23);
    Position("rio-brt", kEmojiVehicle, "brt", "53B", "2024-06-06 12:00:00", -22.94, -43.23);
    // Two partitions' partial sums of one hour: the model must add them.
    Exec(
        "INSERT INTO fleet_hours VALUES (0, 'bus', DATE '2024-06-05', 7, 1, 2), "
        "(1, 'bus', DATE '2024-06-05', 7, 1, 2), (0, 'bus', DATE '2024-06-05', 8, 1, 1), "
        "(0, 'brt', DATE '2024-06-05', 7, 1, 1), (0, 'brt', DATE '2024-06-05', 8, 1, 1), "
        "(0, 'brt', DATE '2024-06-06', 9, 1, 1)");
    Exec(
        "INSERT INTO speed_cells VALUES "
        "(0, 'bus', DATE '2024-06-05', 7, -8641, -4582, 2, 1000000, 300000000, 0), "
        "(1, 'bus', DATE '2024-06-05', 7, -8641, -4582, 1, 500000, 100000000, 0), "
        "(0, 'bus', DATE '2024-06-05', 8, -8642, -4584, 1, 300, 60000000, 0), "
        "(0, 'brt', DATE '2024-06-05', 8, -8647, -4588, 3, 8000000, 600000000, 0), "
        "(0, 'brt', DATE '2024-06-06', 8, -8647, -4588, 1, 1000000, 120000000, 0)");
    Exec(
        "INSERT INTO speed_lines VALUES "
        "(0, 'bus', '10', DATE '2024-06-05', 7, 3, 1500000, 400000000, 0), "
        "(0, 'bus', '10', DATE '2024-06-05', 8, 1, 300, 60000000, 0), "
        "(0, 'brt', '53B', DATE '2024-06-05', 8, 3, 8000000, 600000000, 0), "
        "(1, 'brt', '53B', DATE '2024-06-06', 8, 1, 1000000, 120000000, 0)");
    Exec(
        "INSERT INTO stops VALUES "
        "('rio-brt', " +
        Q(kHostileVehicle) +
        ", TIMESTAMP '2024-06-05 10:10:00', "
        "'brt', '53B', TIMESTAMP '2024-06-05 10:40:00', -22.9501, -43.2499, 12, true), "
        "('rio-sppo', 'B1', TIMESTAMP '2024-06-05 11:00:00', 'bus', '10', "
        "TIMESTAMP '2024-06-05 11:06:30', -22.92, -43.21, 7, false), "
        "('rio-sppo', 'B9', TIMESTAMP '2024-06-05 23:30:00', 'bus', 'X9', "
        "TIMESTAMP '2024-06-06 00:10:00', -22.97, -43.29, 9, NULL)");
    Exec(
        "INSERT INTO trips VALUES "
        "('rio-sppo', 'B1', 't10a', '20240605', TIMESTAMP '2024-06-05 10:00:00', '10', 0, '', "
        "-22.90, -43.20, TIMESTAMP '2024-06-05 10:50:00', -22.93, -43.215, 10, 5000000, NULL), "
        "('rio-brt', " +
        Q(kHostileVehicle) +
        ", 't53', '20240605', "
        "TIMESTAMP '2024-06-05 10:00:00', '53B', 0, '', -22.95, -43.25, "
        "TIMESTAMP '2024-06-05 11:00:00', -22.90, -43.20, 8, 9000000, NULL), "
        "('rio-brt', " +
        Q(kEmojiVehicle) +
        ", 't53', '20240605', "
        "TIMESTAMP '2024-06-05 11:30:00', '53B', 0, '', -22.95, -43.25, "
        "TIMESTAMP '2024-06-05 12:00:00', -22.90, -43.20, 4, 8000000, NULL)");
    const std::string zeros14 = "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0";
    // quality columns after hour: accepted, vehicles, then the 16 reasons in schema order
    // (... out_of_area, duplicate, jump, late).
    Exec(
        "INSERT INTO quality VALUES "
        "(0, 'rio-sppo', DATE '2024-06-05', 7, 4, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, "
        "0), "
        "(1, 'rio-sppo', DATE '2024-06-05', 7, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, "
        "0), "
        "(0, 'rio-sppo', DATE '2024-06-05', 8, 1, 1, " +
        zeros14 +
        ", 0, 0), "
        "(0, 'rio-brt', DATE '2024-06-05', 7, 1, 1, " +
        zeros14 +
        ", 0, 0), "
        "(0, 'rio-brt', DATE '2024-06-05', 8, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, "
        "0), "
        "(0, 'rio-brt', DATE '2024-06-06', 9, 1, 1, " +
        zeros14 + ", 0, 0)");
    Exec(
        "INSERT INTO quality_latency VALUES "
        "(0, 'rio-sppo', DATE '2024-06-05', 7, 20, 3), (1, 'rio-sppo', DATE '2024-06-05', 7, 20, "
        "1), "
        "(0, 'rio-sppo', DATE '2024-06-05', 7, 45, 1), (0, 'rio-brt', DATE '2024-06-05', 7, -2, "
        "1), "
        "(0, 'rio-brt', DATE '2024-06-05', 8, 120, 1)");
  }

  void FillOptionalTables() {
    // The columns `frota headways` writes (src/frota/batch/sql/headways.sql) that the
    // dashboard reads, and a collector's poll log.
    Exec(
        "CREATE OR REPLACE TABLE headways (route_id VARCHAR, direction_id TINYINT, service_date "
        "DATE, "
        "day_type VARCHAR, departure_time TIMESTAMP, local_date DATE, hour TINYINT, "
        "vehicle_id VARCHAR, inferred BOOLEAN, headway_s DOUBLE, planned_headway_s DOUBLE)");
    Exec(
        "INSERT INTO headways VALUES "
        "('RB53', 0, DATE '2024-06-05', 'weekday', TIMESTAMP '2024-06-05 10:00:00', "
        "DATE '2024-06-05', 7, 'x', false, NULL, 600), "
        "('RB53', 0, DATE '2024-06-05', 'weekday', TIMESTAMP '2024-06-05 10:02:00', "
        "DATE '2024-06-05', 7, 'y', false, 120, 600), "
        "('RB53', 0, DATE '2024-06-05', 'weekday', TIMESTAMP '2024-06-05 10:30:00', "
        "DATE '2024-06-05', 7, 'z', false, 1680, 600), "
        "('RB53', 0, DATE '2024-06-05', 'weekday', TIMESTAMP '2024-06-05 10:40:00', "
        "DATE '2024-06-05', 7, 'w', false, 600, 600), "
        "('R10', 1, DATE '2024-06-05', 'weekday', TIMESTAMP '2024-06-05 11:00:00', "
        "DATE '2024-06-05', 8, 'B1', false, 900, NULL), "
        "('RNEW', 0, DATE '2024-06-05', 'weekday', TIMESTAMP '2024-06-05 11:00:00', "
        "DATE '2024-06-05', 8, 'B1', true, 300, 300)");
    Exec(
        "CREATE TABLE planned_departures (route_id VARCHAR, direction_id TINYINT, "
        "service_date DATE, day_type VARCHAR, departure_time TIMESTAMP, local_date DATE, "
        "hour TINYINT)");
    Exec(
        "INSERT INTO planned_departures SELECT 'RB53', 0, DATE '2024-06-05', 'weekday', "
        "TIMESTAMP '2024-06-05 10:00:00' + i * INTERVAL 10 MINUTE, DATE '2024-06-05', "
        "7 + (i // 6)::TINYINT FROM range(8) t(i)");
    // collector_polls as frota's schema has it (version 5).
    Exec(
        "INSERT INTO collector_polls (feed_id, polled_at, attempt, http_status, failure, "
        "bytes, duration_ms, \"repeat\", run_id) VALUES "
        "('rio-brt', TIMESTAMP '2024-06-05 10:00:05', 1, 200, NULL, 1000, 120.5, false, 'r'), "
        "('rio-brt', TIMESTAMP '2024-06-05 10:00:35', 1, 200, NULL, 1000, 80, true, 'r'), "
        "('rio-brt', TIMESTAMP '2024-06-05 10:01:05', 1, 503, 'http_5xx', 0, 30, false, 'r'), "
        "('rio-new', TIMESTAMP '2024-06-05 11:01:05', 1, 200, NULL, 10, 10, false, 'r')");
  }

  // The regularity tables with exclusions as `frota headways` writes them: RB53
  // direction 0 has a planned break (10:40 → 16:00 local) and a feed outage between two
  // departures; its weekday and saturday rows give the day-type selector two types.
  void FillRegularityTables() {
    Exec(
        "CREATE OR REPLACE TABLE headways (route_id VARCHAR, direction_id TINYINT, service_date "
        "DATE, "
        "day_type VARCHAR, departure_time TIMESTAMP, local_date DATE, hour TINYINT, "
        "vehicle_id VARCHAR, inferred BOOLEAN, headway_s DOUBLE, planned_headway_s DOUBLE, "
        "exclusion VARCHAR)");
    // (local date, hour, minute, headway, planned, exclusion) for RB53 direction 0.
    Exec(
        "INSERT INTO headways VALUES "
        "('RB53', 0, DATE '2024-06-05', 'weekday', TIMESTAMP '2024-06-05 10:00:00', "
        "DATE '2024-06-05', 7, 'x', false, NULL, 600, NULL), "
        "('RB53', 0, DATE '2024-06-05', 'weekday', TIMESTAMP '2024-06-05 10:00:40', "
        "DATE '2024-06-05', 7, 'y', false, 40, 600, NULL), "
        "('RB53', 0, DATE '2024-06-05', 'weekday', TIMESTAMP '2024-06-05 10:10:40', "
        "DATE '2024-06-05', 7, 'z', false, 600, 600, NULL), "
        "('RB53', 0, DATE '2024-06-05', 'weekday', TIMESTAMP '2024-06-05 10:40:00', "
        "DATE '2024-06-05', 7, 'w', false, 1760, 600, 'coverage_gap'), "
        "('RB53', 0, DATE '2024-06-05', 'weekday', TIMESTAMP '2024-06-05 19:00:00', "
        "DATE '2024-06-05', 16, 'x', false, 30000, 600, 'service_break'), "
        "('RB53', 0, DATE '2024-06-05', 'weekday', TIMESTAMP '2024-06-05 19:12:00', "
        "DATE '2024-06-05', 16, 'y', false, 720, 600, NULL), "
        "('RB53', 1, DATE '2024-06-05', 'weekday', TIMESTAMP '2024-06-05 10:05:00', "
        "DATE '2024-06-05', 7, 'v', true, 300, 300, NULL), "
        "('RB53', 0, DATE '2024-06-08', 'saturday', TIMESTAMP '2024-06-08 12:00:00', "
        "DATE '2024-06-08', 9, 'x', false, 900, 900, NULL), "
        "('RB53', 0, DATE '2024-06-08', 'saturday', TIMESTAMP '2024-06-08 12:20:00', "
        "DATE '2024-06-08', 9, 'y', false, 1200, 900, NULL)");
    Exec(
        "CREATE TABLE headway_summary (route_id VARCHAR, direction_id TINYINT, "
        "day_type VARCHAR, hour TINYINT, departures_found BIGINT, departures_planned BIGINT, "
        "median_headway_s DOUBLE, headways_measured BIGINT, excluded_service_break BIGINT, "
        "excluded_coverage_gap BIGINT, share_under_60s DOUBLE, departures_unobserved BIGINT, "
        "departures_unplanned BIGINT, departures_tagged_late BIGINT, coverage_share DOUBLE, "
        "silent_minutes BIGINT)");
    Exec(
        "INSERT INTO headway_summary VALUES "
        "('RB53', 0, 'all', -1, 8, 9, 720, 5, 1, 1, 0.2, 3, 1, 2, 0.93333333, 12), "
        "('RB53', 0, 'weekday', -1, 6, 7, 600, 3, 1, 1, 0.33333333, 3, 1, 2, 0.9, 12), "
        "('RB53', 0, 'saturday', -1, 2, 2, 1050, 2, 0, 0, 0, 0, 0, 0, 1, 0), "
        "('RB53', 0, 'weekday', 7, 4, 4, 600, 2, 0, 1, 0.5, 3, 0, 2, 0.8, 12), "
        "('RB53', 0, 'weekday', 16, 2, 3, 720, 1, 1, 0, 0, 0, 1, 0, 1, 0), "
        "('RB53', 0, 'saturday', 9, 2, 2, 1050, 2, 0, 0, 0, 0, 0, 0, 1, 0), "
        "('RB53', 1, 'all', -1, 1, 1, 300, 1, 0, 0, 0, 0, 0, 0, NULL, 0), "
        "('RB53', 1, 'weekday', 7, 1, 1, 300, 1, 0, 0, 0, 0, 0, 0, NULL, 0)");
    // 10:15–10:35 local the feed was blind; 11:00–11:12 line RB53 was silent.
    Exec(
        "CREATE TABLE coverage_gaps (feed_id VARCHAR, start_time TIMESTAMP, "
        "end_time TIMESTAMP, minutes INTEGER)");
    Exec(
        "INSERT INTO coverage_gaps VALUES ('rio-brt', TIMESTAMP '2024-06-05 13:15:00', "
        "TIMESTAMP '2024-06-05 13:35:00', 20)");
    Exec(
        "CREATE TABLE line_silences (feed_id VARCHAR, route_id VARCHAR, start_time TIMESTAMP, "
        "end_time TIMESTAMP, minutes INTEGER)");
    Exec(
        "INSERT INTO line_silences VALUES ('rio-brt', 'RB53', TIMESTAMP '2024-06-05 14:00:00', "
        "TIMESTAMP '2024-06-05 14:12:00', 12)");
    Exec(
        "CREATE TABLE feed_coverage (feed_id VARCHAR, local_date DATE, hour TINYINT, "
        "covered_minutes SMALLINT)");
    Exec(
        "INSERT INTO feed_coverage VALUES ('rio-brt', DATE '2024-06-05', 7, 60), "
        "('rio-brt', DATE '2024-06-05', 10, 40), ('rio-brt', DATE '2024-06-05', 11, 60)");
  }

  DataModel Build() {
    auto model = BuildDataModel(*db_, options_);
    EXPECT_TRUE(model.ok()) << model.error().message();
    return model.ok() ? *model : DataModel{};
  }

  testing::TempDir tmp_{"dashboard-data-model"};
  std::unique_ptr<sink::DuckDbConnection> db_;
  DataModelOptions options_;
  std::int64_t offset_ = 0;
};

TEST_F(DataModelTest, SmallDatabaseMatchesTheGoldenFile) {
  FillCoreTables();
  auto feed = gtfs::StaticFeed::Load(FixtureDir() / "gtfs");
  ASSERT_TRUE(feed.ok()) << feed.error().message();
  auto area = geo::Area::LoadGeoJson(FixtureDir() / "area.geojson");
  ASSERT_TRUE(area.ok()) << area.error().message();
  options_.feed = &*feed;
  options_.area = &*area;
  options_.gtfs_name = "gtfs";
  options_.area_name = "area.geojson";
  ExpectGolden("small.golden.json", PrettyJson(Build().json));
}

TEST_F(DataModelTest, OptionalSectionsAppearWhenTheirTablesExist) {
  FillCoreTables();
  FillOptionalTables();
  auto feed = gtfs::StaticFeed::Load(FixtureDir() / "gtfs");
  ASSERT_TRUE(feed.ok()) << feed.error().message();
  options_.feed = &*feed;
  const fs::path report = tmp_.path() / "replay-report.json";
  std::ofstream(report) << R"({"records": 12, "rejected": {"jump": 3}, "inputs": ["a.csv", "b.csv"],
                              "unknown_routes": ["9999"], "nested": [{"x": 1}]})";
  options_.reports = {report};
  ExpectGolden("optional.golden.json", PrettyJson(Build().json));
}

TEST_F(DataModelTest, RegularityTablesMatchTheGoldenFile) {
  FillCoreTables();
  FillRegularityTables();
  auto feed = gtfs::StaticFeed::Load(FixtureDir() / "gtfs");
  ASSERT_TRUE(feed.ok()) << feed.error().message();
  options_.feed = &*feed;
  ExpectGolden("regularity.golden.json", PrettyJson(Build().json));
}

TEST_F(DataModelTest, ADatabaseWithoutAircraftHasNoAircraftSection) {
  FillCoreTables();
  EXPECT_FALSE(Json::parse(Build().json).contains("aircraft"));
}

TEST_F(DataModelTest, AircraftSectionHoldsEachAircraftsLatestPosition) {
  FillCoreTables();
  // a1: two positions, the later one is kept, with its own country and last contact; a0:
  // on ground, no track, written before aircraft_positions (country and contact unknown);
  // b2: no altitude and no on-ground flag, a callsign and a country that try to run script.
  Aircraft("a1", "TAM3054", "2024-06-05 10:00:00", -23.4321, -46.4699, 1234.56, 0, 800.04, 90.4,
           "Chile", 1717581601);
  Aircraft("a1", "TAM3054", "2024-06-05 10:01:00", -23.5, -46.6, 3048.7, 0, 812.37, 91.6, "Brazil",
           1717581664);
  Aircraft("a0", "", "2024-06-05 09:59:30", -22.81, -43.25, 10, 1, 20, NAN);
  Aircraft("b2", "<img src=x onerror=alert(1)>", "2024-06-05 10:00:10", 51.47, -0.4543, NAN, -1,
           NAN, NAN, "<script>alert(2)</script>", 1717581611);
  const Json doc = Json::parse(Build().json);
  ASSERT_TRUE(doc.contains("aircraft"));
  const Json& a = doc["aircraft"];
  const auto feeds = doc["feeds"].get<std::vector<std::string>>();
  const auto opensky = std::find(feeds.begin(), feeds.end(), "opensky") - feeds.begin();
  EXPECT_EQ(a["icao24"], Json({"a0", "a1", "b2"}));
  EXPECT_EQ(a["feed"], Json({opensky, opensky, opensky}));
  EXPECT_EQ(a["callsign"], Json({"", "TAM3054", "<img src=x onerror=alert(1)>"}));
  EXPECT_EQ(a["lat"], Json({-228100, -235000, 514700}));
  EXPECT_EQ(a["lon"], Json({-432500, -466000, -4543}));
  EXPECT_EQ(a["altitude_m"], Json({10, 3049, nullptr}));
  EXPECT_EQ(a["on_ground"], Json({1, 0, nullptr}));
  EXPECT_EQ(a["speed_kmh"], Json({20.0, 812.4, nullptr}));
  EXPECT_EQ(a["track_deg"], Json({nullptr, 92, nullptr}));
  EXPECT_EQ(a["time"], Json({1717581570, 1717581660, 1717581610}));
  EXPECT_EQ(a["positions"], Json({1, 2, 1}));
  // Country and last contact of the latest position, from the database.
  EXPECT_EQ(a["countries"], Json({"<script>alert(2)</script>", "Brazil"}));
  EXPECT_EQ(a["country"], Json({nullptr, 1, 0}));
  EXPECT_EQ(a["last_contact"], Json({nullptr, 1717581664, 1717581611}));
  EXPECT_EQ(a["step_deg"], 1e-4);
}

// A callsign names a flight, not a line: the aircraft are one line without a route, so the
// line filter and line_hours do not grow with every flight.
TEST_F(DataModelTest, AircraftAreOneLineWithoutRoute) {
  FillCoreTables();
  const Json before = Json::parse(Build().json);
  for (int i = 0; i < 30; ++i) {
    Aircraft(fmt::format("a{:02}", i), fmt::format("FL{}", i), "2024-06-05 10:00:00",
             -23.0 + i * 0.01, -46.0, 3000, 0, 700, 90, "Brazil", 1717581600);
  }
  Exec(
      "INSERT INTO speed_lines VALUES (0, 'aircraft', 'FL1', DATE '2024-06-05', 7, 1, "
      "1000000, 5000000, 0)");
  Exec("INSERT INTO fleet_hours VALUES (0, 'aircraft', DATE '2024-06-05', 7, 30, 30)");
  const Json doc = Json::parse(Build().json);
  const auto modes = doc["modes"].get<std::vector<std::string>>();
  const auto aircraft = std::find(modes.begin(), modes.end(), "aircraft") - modes.begin();
  ASSERT_LT(aircraft, static_cast<std::ptrdiff_t>(modes.size()));
  const auto& line_mode = doc["lines"]["mode"];
  std::vector<std::string> aircraft_routes;
  for (std::size_t i = 0; i < line_mode.size(); ++i) {
    if (line_mode[i] == aircraft) {
      aircraft_routes.push_back(doc["lines"]["route"][i]);
    }
  }
  EXPECT_EQ(aircraft_routes, std::vector<std::string>({""}));
  EXPECT_EQ(doc["lines"]["route"].size(), before["lines"]["route"].size() + 1);
  EXPECT_EQ(doc["aircraft"]["icao24"].size(), 30U);
  EXPECT_EQ(doc["aircraft"]["callsign"][1], "FL1");
  EXPECT_EQ(doc["totals"]["mode_vehicles"][aircraft], 30);
}

TEST_F(DataModelTest, ExcludedHeadwaysStayOutOfTheStatisticsAndAreCountedByReason) {
  FillCoreTables();
  FillRegularityTables();
  auto feed = gtfs::StaticFeed::Load(FixtureDir() / "gtfs");
  ASSERT_TRUE(feed.ok()) << feed.error().message();
  options_.feed = &*feed;
  const Json doc = Json::parse(Build().json);
  const auto& hw = doc["headways"];
  EXPECT_TRUE(hw["measured_only"].get<bool>());
  // The 30,000 s planned break and the 1,760 s pair across the outage are not headways.
  const auto values = hw["headways"]["headway_s"].get<std::vector<std::int64_t>>();
  EXPECT_EQ(values.size(), 6u);
  EXPECT_EQ(std::count(values.begin(), values.end(), 30000), 0);
  EXPECT_EQ(std::count(values.begin(), values.end(), 1760), 0);
  const auto& x = hw["excluded"];
  EXPECT_EQ(x["reasons"], Json({"service_break", "coverage_gap"}));
  ASSERT_EQ(x["n"].size(), 2u);
  std::map<std::string, std::int64_t> by_reason;
  for (std::size_t i = 0; i < x["n"].size(); ++i) {
    by_reason[x["reasons"][x["reason"][i].get<int>()]] += x["n"][i].get<std::int64_t>();
  }
  EXPECT_EQ(by_reason,
            (std::map<std::string, std::int64_t>{{"coverage_gap", 1}, {"service_break", 1}}));
  // Only the day types present, in a planner's order; each date knows its own.
  EXPECT_EQ(hw["day_types"], Json({"weekday", "saturday"}));
  const auto dates = doc["dates"].get<std::vector<std::string>>();
  const auto june8 = std::find(dates.begin(), dates.end(), "2024-06-08") - dates.begin();
  ASSERT_LT(static_cast<std::size_t>(june8), dates.size());
  EXPECT_EQ(hw["date_day_type"][june8], 1);
  // Departures per hour come from headway_summary (observable planned departures).
  EXPECT_EQ(hw["hours_table"], "headway_summary");
  // The summary's whole-day rows: 'all' is -1.
  const auto& sum = hw["summary"];
  EXPECT_EQ(sum["day_type"][0], -1);
  EXPECT_EQ(sum["silent_minutes"][0], 12);
  EXPECT_DOUBLE_EQ(sum["coverage_share"][0].get<double>(), 0.9333);
  EXPECT_TRUE(sum["coverage_share"][3].is_null());
  // 13:15Z is 10:15 local on the first date; the silence names the GTFS route's line.
  const auto& cov = doc["coverage"];
  EXPECT_EQ(cov["gaps"]["start_min"][0], 10 * 60 + 15);
  EXPECT_EQ(cov["gaps"]["minutes"][0], 20);
  EXPECT_EQ(cov["silences"]["minutes"][0], 12);
  const auto line = cov["silences"]["line"][0].get<int>();
  EXPECT_EQ(doc["lines"]["route"][line], "53B");
  EXPECT_EQ(cov["feed_hours"]["covered_minutes"], Json({60, 40, 60}));
}

TEST_F(DataModelTest, AnOlderHeadwaysTableWithoutExclusionCountsEveryHeadway) {
  FillCoreTables();
  FillOptionalTables();
  const Json doc = Json::parse(Build().json);
  const auto& hw = doc["headways"];
  EXPECT_FALSE(hw["measured_only"].get<bool>());
  EXPECT_TRUE(hw["excluded"].is_null());
  EXPECT_TRUE(hw["summary"].is_null());
  EXPECT_TRUE(doc["coverage"].is_null());
  // Every non-null headway, the one without a planned headway too (planned_s 0).
  EXPECT_EQ(hw["headways"]["headway_s"].size(), 5u);
  EXPECT_EQ(hw["hours_table"], "headways + planned_departures");
}

TEST_F(DataModelTest, CoverageHasOnlyThePartsWhoseTablesExist) {
  FillCoreTables();
  // Only the feed's gaps; `stops` has feed_id, route_id, start_time and end_time too, and
  // must not be read as line silences.
  Exec(
      "CREATE TABLE coverage_gaps (feed_id VARCHAR, start_time TIMESTAMP, end_time TIMESTAMP, "
      "minutes INTEGER)");
  Exec(
      "INSERT INTO coverage_gaps VALUES ('rio-new', TIMESTAMP '2024-06-05 23:50:00', "
      "TIMESTAMP '2024-06-06 00:20:00', 30)");
  const Json doc = Json::parse(Build().json);
  const auto& cov = doc["coverage"];
  ASSERT_TRUE(cov.is_object());
  EXPECT_TRUE(cov["silences"].is_null());
  EXPECT_TRUE(cov["feed_hours"].is_null());
  EXPECT_TRUE(doc["headways"].is_null());
  // A feed known only from its gaps joins the feeds; 23:50Z is 20:50 local on the first date.
  const auto feeds = doc["feeds"].get<std::vector<std::string>>();
  const auto feed = std::find(feeds.begin(), feeds.end(), "rio-new") - feeds.begin();
  ASSERT_LT(static_cast<std::size_t>(feed), feeds.size());
  EXPECT_EQ(cov["gaps"]["feed"][0], feed);
  EXPECT_EQ(cov["gaps"]["start_min"][0], 20 * 60 + 50);
  EXPECT_EQ(cov["gaps"]["minutes"][0], 30);
}

TEST_F(DataModelTest, OptionalSectionsAreNullWithoutTheirTables) {
  FillCoreTables();
  const Json doc = Json::parse(Build().json);
  EXPECT_TRUE(doc["headways"].is_null());
  EXPECT_TRUE(doc["coverage"].is_null());
  EXPECT_TRUE(doc["collector"].is_null());
  EXPECT_TRUE(doc["reports"].empty());
}

TEST_F(DataModelTest, HostileStringsSurviveAsData) {
  FillCoreTables();
  const Json doc = Json::parse(Build().json);
  const auto& ids = doc["stops"]["vehicle_id"];
  EXPECT_NE(std::find(ids.begin(), ids.end(), kHostileVehicle), ids.end());
  const auto& slots = doc["duplicate_slots"];
  EXPECT_EQ(slots["total"], 1);
  EXPECT_EQ(slots["trip_id"][0], "t53");
}

TEST_F(DataModelTest, SumsPartitionsAndDaysAndKeepsDistinctCountsDistinct) {
  FillCoreTables();
  const Json doc = Json::parse(Build().json);
  const auto modes = doc["modes"].get<std::vector<std::string>>();
  ASSERT_EQ(modes, (std::vector<std::string>{"bus", "brt"}));  // enum order, not alphabetical
  EXPECT_EQ(doc["fleet"]["vehicle_days"][0 * 24 + 7], 2);      // two partitions added
  EXPECT_EQ(doc["totals"]["vehicles"], 5);
  EXPECT_EQ(doc["totals"]["mode_vehicles"][1], 2);
  EXPECT_EQ(doc["totals"]["mode_days"][1], 2);
  // 53B across two dates: the speed sums are added before dividing.
  const auto lines = doc["lines"]["route"].get<std::vector<std::string>>();
  const auto line53 = std::find(lines.begin(), lines.end(), "53B") - lines.begin();
  EXPECT_EQ(doc["line_hours"]["distance_m"][line53 * 24 + 8], 9000);
  EXPECT_EQ(doc["line_hours"]["duration_s"][line53 * 24 + 8], 720);
  // The stop starting 23:30Z is 20:30 local on the 5th.
  EXPECT_EQ(doc["stops"]["start_min"][2], 0 * 1440 + 20 * 60 + 30);
}

TEST_F(DataModelTest, AnEmptyDatabaseGivesAnEmptyButValidDocument) {
  const Json doc = Json::parse(Build().json);
  EXPECT_EQ(doc["version"], kDataModelVersion);
  EXPECT_TRUE(doc["dates"].empty());
  EXPECT_TRUE(doc["lines"]["route"].empty());
  EXPECT_TRUE(doc["stops"]["line"].empty());
}

TEST_F(DataModelTest, SameDatabaseGivesTheSameBytes) {
  FillCoreTables();
  EXPECT_EQ(Build().json, Build().json);
}

TEST_F(DataModelTest, AReportThatIsNotAnObjectIsAnError) {
  const fs::path report = tmp_.path() / "bad.json";
  std::ofstream(report) << "[1, 2]";
  options_.reports = {report};
  auto model = BuildDataModel(*db_, options_);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message().find("bad.json"), std::string::npos);
}

TEST(DashboardHelpers, NaturalOrderComparesDigitRunsAsNumbers) {
  std::vector<std::string> routes = {"53B", "9999", "11N", "13", "", "2", "A35", "100", "010"};
  std::sort(routes.begin(), routes.end(), NaturalLess);
  EXPECT_EQ(routes,
            (std::vector<std::string>{"", "2", "010", "11N", "13", "53B", "100", "9999", "A35"}));
}

TEST(DashboardHelpers, RoundDivRoundsHalfAwayFromZero) {
  EXPECT_EQ(RoundDiv(1500, 1000), 2);
  EXPECT_EQ(RoundDiv(1499, 1000), 1);
  EXPECT_EQ(RoundDiv(-1500, 1000), -2);
  EXPECT_EQ(RoundDiv(0, 7), 0);
}

TEST(DashboardHelpers, SimplifyKeepsEndsAndCornersAndDropsCollinearPoints) {
  const std::vector<std::array<std::int64_t, 2>> line = {{0, 0},   {5, 0},   {5, 0},  {10, 0},
                                                         {10, 10}, {10, 11}, {10, 20}};
  const auto simple = SimplifyPolyline(line, 1.5);
  EXPECT_EQ(simple, (std::vector<std::array<std::int64_t, 2>>{{0, 0}, {10, 0}, {10, 20}}));
  EXPECT_EQ(DeltaEncode(simple), (std::vector<std::int64_t>{0, 0, 10, 0, 0, 20}));
}

TEST(DashboardHelpers, FindTablePrefersTheNamedTableThenTheFirstByName) {
  const std::map<std::string, std::set<std::string>> tables = {
      {"a_polls", {"feed_id", "http_status"}},
      {"collector_polls", {"feed_id", "http_status", "repeat"}},
      {"other", {"feed_id"}}};
  EXPECT_EQ(FindTable(tables, {"feed_id", "http_status"}, {"collector_polls"}), "collector_polls");
  EXPECT_EQ(FindTable(tables, {"feed_id", "http_status"}, {"missing"}), "a_polls");
  EXPECT_EQ(FindTable(tables, {"nothing"}, {}), std::nullopt);
}

}  // namespace
}  // namespace frota::dashboard
