#include "frota/sim/evaluate.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "frota/base/file.h"
#include "frota/sim/sim_test_util.h"
#include "frota/sim/truth.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::sim {
namespace {

// 2024-06-05 10:00:00 UTC, and minutes after it.
constexpr std::int64_t kTen = 1717581600LL * 1'000'000;
constexpr std::int64_t Minute(double m) { return kTen + static_cast<std::int64_t>(m * 60e6); }

std::string Sql(std::int64_t us) { return fmt::format("make_timestamp({}::BIGINT)", us); }

TruthDeparture Departure(const std::string& vehicle, const std::string& route,
                         std::int32_t direction, double minute) {
  TruthDeparture d;
  d.vehicle_id = vehicle;
  d.route_id = route;
  d.direction_id = direction;
  d.trip_id = route + "_" + vehicle;
  d.reported_trip_id = d.trip_id;
  d.start_date = "20240605";
  d.time_us = Minute(minute);
  d.scheduled_us = d.time_us;
  return d;
}

// An in-memory database holding the two tables of `frota headways` evaluate reads.
std::unique_ptr<sink::DuckDbConnection> Database() {
  auto db = sink::DuckDbConnection::Open("");
  EXPECT_TRUE(db.ok());
  EXPECT_TRUE((*db)
                  ->Execute("CREATE TABLE departures (feed_id VARCHAR, vehicle_id VARCHAR, "
                            "feed_route_id VARCHAR, route_id VARCHAR, "
                            "direction_id TINYINT, trip_id VARCHAR, shape_id VARCHAR, service_date "
                            "DATE, departure_time TIMESTAMP, "
                            "inferred BOOLEAN, distance_m DOUBLE, tagged_late BOOLEAN, unplanned "
                            "BOOLEAN, day_type VARCHAR, "
                            "local_date DATE, hour TINYINT);"
                            "CREATE TABLE headways (route_id VARCHAR, direction_id TINYINT, "
                            "service_date DATE, day_type VARCHAR, "
                            "departure_time TIMESTAMP, local_date DATE, hour TINYINT, vehicle_id "
                            "VARCHAR, inferred BOOLEAN, "
                            "headway_s DOUBLE, planned_headway_s DOUBLE, exclusion VARCHAR)")
                  .ok());
  return std::move(*db);
}

void AddFound(sink::DuckDbConnection& db, const std::string& vehicle, const std::string& route,
              std::int32_t direction, double minute) {
  ASSERT_TRUE(db.Execute(fmt::format("INSERT INTO departures VALUES ('frota-sim', '{0}', '{1}', "
                                     "'{1}', {2}, '', 's', DATE '2024-06-05', {3}, "
                                     "false, 100, false, false, 'weekday', DATE '2024-06-05', 7)",
                                     vehicle, route, direction, Sql(Minute(minute))))
                  .ok());
}

void AddHeadway(sink::DuckDbConnection& db, const std::string& route, double minute,
                std::optional<double> headway_s, const std::string& exclusion) {
  ASSERT_TRUE(db.Execute(fmt::format("INSERT INTO headways VALUES ('{}', 0, DATE '2024-06-05', "
                                     "'weekday', {}, DATE '2024-06-05', 7, 'A', false, "
                                     "{}, 600, {})",
                                     route, Sql(Minute(minute)),
                                     headway_s ? fmt::format("{}", *headway_s) : "NULL",
                                     exclusion.empty() ? "NULL" : "'" + exclusion + "'"))
                  .ok());
}

Truth BaseTruth() {
  Truth truth;
  truth.feed_id = "frota-sim";
  truth.date = "2024-06-05";
  return truth;
}

TEST(EvaluateDepartures, MatchesABusFromTenMinutesBeforeToTenAfterOnItsRouteAndDirection) {
  Truth truth = BaseTruth();
  truth.departures = {Departure("A", "100", 0, 0),    // found 9 min late: matched
                      Departure("A", "100", 1, 60),   // found 11.5 min early: missed
                      Departure("B", "100", 0, 10),   // found on another route: missed
                      Departure("C", "101", 0, 20)};  // found 8 min early: matched
  auto db = Database();
  AddFound(*db, "A", "100", 0, 9);
  AddFound(*db, "A", "100", 1, 48.5);
  AddFound(*db, "B", "101", 0, 10);
  AddFound(*db, "C", "101", 0, 12);
  Evaluation out;
  ASSERT_TRUE(ScoreDeparturesAndHeadways(*db, truth, EvaluateOptions{}, out).ok());
  EXPECT_TRUE(out.departures.computed);
  EXPECT_EQ(out.departures.true_departures, 4);
  EXPECT_EQ(out.departures.found, 2);
  EXPECT_DOUBLE_EQ(out.departures.found_ratio, 0.5);
  EXPECT_EQ(out.departures.left_out, 0);
  EXPECT_EQ(out.departures.found_rows, 4);
  EXPECT_EQ(out.departures.unmatched_rows, 2);
}

TEST(EvaluateDepartures, LeavesOutDeparturesHiddenByAnOutageOrASilenceOfTheirRoute) {
  Truth truth = BaseTruth();
  truth.departures = {Departure("A", "100", 0, 0), Departure("A", "100", 0, 30),
                      Departure("B", "101", 0, 30), Departure("B", "101", 0, 60),
                      Departure("C", "102", 0, 90)};
  truth.departures[4].tagged_late = true;
  truth.outages = {{"", Minute(25), Minute(35)}};                  // hides both at minute 30
  truth.line_silences = {{"101", Minute(55), Minute(65)}};         // hides B at 60
  truth.line_silences.push_back({"100", Minute(88), Minute(92)});  // another route's: C stays
  auto db = Database();
  AddFound(*db, "A", "100", 0, 1);
  AddFound(*db, "B", "101", 0, 61);  // found although hidden: counted apart
  Evaluation out;
  ASSERT_TRUE(ScoreDeparturesAndHeadways(*db, truth, EvaluateOptions{}, out).ok());
  EXPECT_EQ(out.departures.true_departures, 2);
  EXPECT_EQ(out.departures.found, 1);
  EXPECT_EQ(out.departures.left_out, 3);
  EXPECT_EQ(out.departures.left_out_found, 1);
  EXPECT_EQ(out.departures.true_reported_at_terminal, 1);  // C was tagged late
  EXPECT_EQ(out.departures.found_reported_at_terminal, 1);
}

TEST(EvaluateDepartures, SaysSoWhenHeadwaysHaveNotRun) {
  auto db = sink::DuckDbConnection::Open("");
  ASSERT_TRUE(db.ok());
  Truth truth = BaseTruth();
  truth.departures = {Departure("A", "100", 0, 0)};
  Evaluation out;
  ASSERT_TRUE(ScoreDeparturesAndHeadways(**db, truth, EvaluateOptions{}, out).ok());
  EXPECT_FALSE(out.departures.computed);
  EXPECT_FALSE(out.headways.computed);
  EXPECT_NE(EvaluationText(out).find("departures  not in the database"), std::string::npos);
  const auto json = nlohmann::json::parse(EvaluationJson(out));
  EXPECT_FALSE(json["departures"]["computed"].get<bool>());
  EXPECT_EQ(json["departures"]["true"].get<std::int64_t>(), 0);
}

TEST(EvaluateHeadways, ScoresMeasuredHeadwaysOnlyOnBothSides) {
  Truth truth = BaseTruth();
  // True: five 10-minute headways, one across a planned break and one across an outage.
  for (int i = 1; i <= 5; ++i) {
    truth.headways.push_back({"100", 0, "2024-06-05", Minute(10.0 * i), 600, ""});
  }
  truth.headways.push_back({"100", 0, "2024-06-05", Minute(480), 25000, "service_break"});
  truth.headways.push_back({"100", 0, "2024-06-05", Minute(520), 2400, "coverage_gap"});
  auto db = Database();
  for (int i = 1; i <= 5; ++i) {
    AddHeadway(*db, "100", 10.0 * i, 630, "");
  }
  AddHeadway(*db, "100", 0, std::nullopt, "");
  AddHeadway(*db, "100", 480, 25000, "service_break");
  AddHeadway(*db, "100", 520, 2400, "coverage_gap");
  Evaluation out;
  ASSERT_TRUE(ScoreDeparturesAndHeadways(*db, truth, EvaluateOptions{}, out).ok());
  ASSERT_TRUE(out.headways.computed);
  ASSERT_EQ(out.headways.lines.size(), 1U);
  const auto& line = out.headways.lines[0];
  EXPECT_EQ(line.true_headways, 5);
  EXPECT_DOUBLE_EQ(line.true_median_s, 600);
  EXPECT_EQ(line.found_headways, 5);
  ASSERT_TRUE(line.found_median_s.has_value());
  EXPECT_DOUBLE_EQ(*line.found_median_s, 630);
  ASSERT_TRUE(line.relative_error.has_value());
  EXPECT_NEAR(*line.relative_error, 0.05, 1e-12);
  ASSERT_TRUE(line.true_cv.has_value());
  EXPECT_DOUBLE_EQ(*line.true_cv, 0);
  EXPECT_EQ(out.headways.true_excluded.at("service_break"), 1);
  EXPECT_EQ(out.headways.true_excluded.at("coverage_gap"), 1);
  const auto json = nlohmann::json::parse(EvaluationJson(out));
  EXPECT_NEAR(json["headways"]["by_line"][0]["relative_error"].get<double>(), 0.05, 1e-9);
}

TEST(EvaluateHeadways, ReadsAVersionOneTruthAsHeadwaysWithoutExclusions) {
  testing_util::ScratchDir dir("truth-v1");
  Truth truth = BaseTruth();
  truth.time_zone = "America/Sao_Paulo";
  truth.departures = {Departure("A", "100", 0, 0), Departure("B", "100", 0, 12),
                      Departure("C", "100", 0, 20)};
  ASSERT_TRUE(WriteTruth(truth, dir.path() / "truth.json").ok());
  auto text = base::ReadFile(dir.path() / "truth.json");
  ASSERT_TRUE(text.ok());
  auto j = nlohmann::ordered_json::parse(*text);
  j["version"] = 1;
  for (const char* key : {"outages", "line_silences", "stale_plan", "headways"}) {
    j.erase(key);
  }
  for (auto& d : j["departures"]) {
    d.erase("tagged_late");
    d.erase("never_tagged");
    d["first_seen_far"] = true;
  }
  ASSERT_TRUE(base::WriteFileAtomic(dir.path() / "v1.json", j.dump()).ok());
  const auto read = ReadTruth(dir.path() / "v1.json");
  ASSERT_TRUE(read.ok()) << read.error().message();
  EXPECT_EQ(read->version, 1);
  EXPECT_TRUE(read->departures[0].tagged_late);
  ASSERT_EQ(read->headways.size(), 2U);
  EXPECT_DOUBLE_EQ(read->headways[0].headway_s, 720);
  EXPECT_EQ(read->headways[0].service_date, "2024-06-05");
  EXPECT_EQ(read->headways[1].exclusion, "");
}

// A `stops` table as the stream writes it (the columns evaluate reads), with `place`.
std::unique_ptr<sink::DuckDbConnection> StopsDatabase() {
  auto db = sink::DuckDbConnection::Open("");
  EXPECT_TRUE(db.ok());
  EXPECT_TRUE((*db)
                  ->Execute("CREATE TABLE stops (feed_id VARCHAR, vehicle_id VARCHAR, start_time "
                            "TIMESTAMP, end_time TIMESTAMP, near_terminal BOOLEAN, place VARCHAR);"
                            "CREATE VIEW stop_rows AS SELECT * FROM stops")
                  .ok());
  return std::move(*db);
}

void AddStop(sink::DuckDbConnection& db, const std::string& vehicle, double from, double to,
             const std::string& place) {
  ASSERT_TRUE(db.Execute(fmt::format("INSERT INTO stops VALUES ('frota-sim', '{}', {}, {}, {}, "
                                     "'{}')",
                                     vehicle, Sql(Minute(from)), Sql(Minute(to)),
                                     place == "terminal" ? "true" : "false", place))
                  .ok());
}

TruthStop Stop(const std::string& vehicle, double from, double to, const std::string& kind,
               bool near_terminal) {
  return {vehicle, "100", Minute(from), Minute(to), 0, 0, kind, near_terminal};
}

TEST(EvaluateStops, ASplitTrueStopIsOneMatchAndItsOtherPiecesFragments) {
  Truth truth = BaseTruth();
  truth.stops = {Stop("A", 0, 30, "layover", true), Stop("A", 100, 110, "incident", false)};
  auto db = StopsDatabase();
  // The layover, split in three by the terminal's drift: the longest piece matches.
  AddStop(*db, "A", 0, 8, "terminal");
  AddStop(*db, "A", 8, 20, "terminal");
  AddStop(*db, "A", 20, 30, "terminal");
  AddStop(*db, "A", 50, 60, "en_route");  // no true stop: not precise
  Evaluation::Stops out;
  ASSERT_TRUE(ScoreStops(*db, truth, EvaluateOptions{}, out).ok());
  EXPECT_EQ(out.true_stops, 2);
  EXPECT_EQ(out.recalled, 1);
  EXPECT_EQ(out.found, 4);
  EXPECT_EQ(out.precise, 1);
  EXPECT_EQ(out.fragments, 2);
  EXPECT_DOUBLE_EQ(out.precision, 0.5);  // 1 of the 2 found stops that are not fragments
  EXPECT_DOUBLE_EQ(out.recall, 0.5);
  EXPECT_EQ(out.by_place["terminal"].true_stops, 1);
  EXPECT_EQ(out.by_place["terminal"].recalled, 1);
  EXPECT_EQ(out.by_place["terminal"].fragments, 2);
  EXPECT_DOUBLE_EQ(out.by_place["terminal"].precision, 1);
  EXPECT_EQ(out.by_place["en_route"].true_stops, 1);
  EXPECT_EQ(out.by_place["en_route"].recalled, 0);
  EXPECT_EQ(out.by_place["en_route"].found, 1);
  EXPECT_EQ(out.by_place["en_route"].precise, 0);
  EXPECT_EQ(out.by_place["depot"].true_stops, 0);
}

TEST(EvaluateStops, LeavesOutTrueStopsOverlappingAnOutageOrASilenceOfTheirRoute) {
  Truth truth = BaseTruth();
  truth.stops = {Stop("A", 0, 10, "layover", true), Stop("A", 40, 50, "layover", true),
                 Stop("B", 60, 70, "incident", false), Stop("C", 80, 90, "depot", false)};
  truth.outages = {{"", Minute(45), Minute(47)}};                  // hides A's second stop
  truth.line_silences = {{"100", Minute(65), Minute(75)}};         // hides B's
  truth.line_silences.push_back({"101", Minute(85), Minute(86)});  // another route: C stays
  auto db = StopsDatabase();
  AddStop(*db, "A", 0, 10, "terminal");
  AddStop(*db, "B", 60, 66, "en_route");  // found although hidden: counted apart
  AddStop(*db, "C", 80, 90, "depot");
  Evaluation::Stops out;
  ASSERT_TRUE(ScoreStops(*db, truth, EvaluateOptions{}, out).ok());
  EXPECT_EQ(out.true_stops, 2);
  EXPECT_EQ(out.recalled, 2);
  EXPECT_EQ(out.left_out, 2);
  EXPECT_EQ(out.left_out_found, 1);
  EXPECT_EQ(out.found, 3);
  EXPECT_EQ(out.precise, 3);
  EXPECT_EQ(out.by_place["depot"].recalled, 1);
  EXPECT_EQ(out.by_place["depot"].precise, 1);
}

TEST(EvaluateFaults, ListsEveryFaultKindOfTheTruthAndScoresThoseTheTablesShow) {
  Truth truth = BaseTruth();
  truth.outages = {{"", Minute(10), Minute(30)}, {"", Minute(200), Minute(240)}};
  truth.line_silences = {{"100", Minute(60), Minute(80)}};
  truth.stale_plan = {{"101", 12, 240}};
  truth.departures = {Departure("A", "100", 0, 100), Departure("B", "100", 0, 300)};
  truth.departures[0].never_tagged = true;
  truth.departures[1].never_tagged = true;
  truth.faults.push_back({"headerless_response", "response", 7, 350, 0.02, 40, {}});
  auto db = Database();
  ASSERT_TRUE(db->Execute("CREATE TABLE coverage_gaps (feed_id VARCHAR, start_time TIMESTAMP, "
                          "end_time TIMESTAMP, minutes INTEGER);"
                          "CREATE TABLE line_silences (feed_id VARCHAR, route_id VARCHAR, "
                          "start_time TIMESTAMP, end_time TIMESTAMP, minutes INTEGER)")
                  .ok());
  ASSERT_TRUE(
      db->Execute(fmt::format("INSERT INTO coverage_gaps VALUES ('frota-sim', {}, {}, 18);"
                              "INSERT INTO line_silences VALUES ('frota-sim', '100', {}, "
                              "{}, 15)",
                              Sql(Minute(11)), Sql(Minute(29)), Sql(Minute(62)), Sql(Minute(77))))
          .ok());
  AddFound(*db, "A", "100", 0, 103);  // inferred below: the never-tagged run was found
  ASSERT_TRUE(db->Execute("UPDATE departures SET inferred = true").ok());
  std::map<std::string, FaultScore> faults;
  ASSERT_TRUE(ScoreDayFaults(*db, truth, EvaluateOptions{}, faults).ok());
  EXPECT_EQ(faults["feed_outage"].injected, 2);
  EXPECT_EQ(faults["feed_outage"].detected, 1);
  EXPECT_EQ(faults["line_silent"].injected, 1);
  EXPECT_EQ(faults["line_silent"].detected, 1);
  EXPECT_EQ(faults["never_tagged"].injected, 2);
  EXPECT_EQ(faults["never_tagged"].detected, 1);
  EXPECT_EQ(faults["stale_plan"].injected, 1);
  EXPECT_EQ(faults["stale_plan"].detected, -1);
  EXPECT_EQ(faults["headerless_response"].injected, 7);
  EXPECT_EQ(faults["headerless_response"].detected, -1);
  Evaluation e;
  e.faults = faults;
  const auto json = nlohmann::json::parse(EvaluationJson(e));
  for (const char* kind :
       {"feed_outage", "line_silent", "never_tagged", "stale_plan", "headerless_response"}) {
    EXPECT_TRUE(json["faults"].contains(kind)) << kind;
  }
  EXPECT_TRUE(json["faults"]["stale_plan"]["detected"].is_null());
}

}  // namespace
}  // namespace frota::sim
