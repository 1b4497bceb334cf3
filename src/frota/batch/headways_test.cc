#include "frota/batch/headways.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "frota/sink/duckdb_sink.h"
#include "frota/testing/subprocess.h"

namespace frota::batch {
namespace {

// Route B53 plans a departure every 10 minutes from 06:00 to 08:00 on weekdays; on
// Wednesday 2022-08-03 six trips left its terminal at 06:00, 06:10, 06:12 (bunched),
// 06:40 (after a gap), 06:50 and 07:00, and the feed was observed from 06:00 to 08:00.
class HeadwaysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& d = dir_.path();
    std::ofstream(d / "agency.txt") << "agency_name,agency_url,agency_timezone\n"
                                       "A,http://a,America/Sao_Paulo\n";
    std::ofstream(d / "routes.txt") << "route_id,route_short_name,route_type\nR53,B53,3\n";
    std::ofstream(d / "stops.txt") << "stop_id,stop_name,stop_lat,stop_lon\n"
                                      "W,West,-22.9,-43.4\nE,East,-22.9,-43.35\n";
    std::ofstream(d / "trips.txt") << "route_id,service_id,trip_id,direction_id\n"
                                      "R53,U,B53I,0\n";
    std::ofstream(d / "stop_times.txt")
        << "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
           "B53I,06:00:00,06:00:00,W,1\nB53I,06:20:00,06:20:00,E,2\n";
    std::ofstream(d / "frequencies.txt") << "trip_id,start_time,end_time,headway_secs\n"
                                            "B53I,06:00:00,08:00:00,600\n";
    std::ofstream(d / "calendar.txt")
        << "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,"
           "end_date\nU,1,1,1,1,1,0,0,20220801,20221231\n";
    auto feed = gtfs::StaticFeed::Load(d);
    ASSERT_TRUE(feed.ok()) << feed.error().message();
    feed_.emplace(std::move(feed).value());

    model::SourceCatalog catalog;
    auto sink = sink::DuckDbSink::Open(d / "stream.duckdb", &catalog, "headways-test");
    ASSERT_TRUE(sink.ok()) << sink.error().message();
    std::string sql;
    int n = 0;
    for (const char* local : {"06:00", "06:10", "06:12", "06:40", "06:50", "07:00"}) {
      // Local time is UTC-3.
      const int hour = std::stoi(std::string(local).substr(0, 2)) + 3;
      const std::string utc = fmt::format("2022-08-03 {:02d}:{}:00", hour, local + 3);
      sql += fmt::format(
          "INSERT INTO trips VALUES ('feed', 'bus-{}', 'B53I', '20220803', TIMESTAMP '{}', "
          "'53B', 0, '', -22.9001, -43.4, TIMESTAMP '{}' + INTERVAL 20 MINUTE, -22.9, -43.35, "
          "20, 5000000);\n",
          n++, utc, utc);
    }
    for (const int hour : {6, 7}) {
      sql += fmt::format(
          "INSERT INTO quality SELECT 0, 'feed', DATE '2022-08-03', {}, 100, 6, "
          "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0;\n",
          hour);
    }
    const auto status = (*sink)->connection().Execute(sql);
    ASSERT_TRUE(status.ok()) << status.error().message();
    auto& db = (*sink)->connection();
    const auto silver = sink::AddSilverText(db, [&] {
      return db.Execute(
          "INSERT INTO positions_text SELECT 'feed', 'bus-0', 'bus', '53B', 'B53I', '20220803', "
          "'', 0, -22.9, -43.4, NULL, NULL, NULL, NULL, TIMESTAMP '2022-08-03 09:00:00', "
          "TIMESTAMP '2022-08-03 09:00:20', false, 'x', 0");
    });
    ASSERT_TRUE(silver.ok()) << silver.error().message();
  }

  HeadwayReport Compute() {
    auto db = sink::OpenFrotaDuckDb(dir_.path() / "stream.duckdb", true);
    EXPECT_TRUE(db.ok());
    auto report = ComputeHeadways(**db, *feed_, {});
    EXPECT_TRUE(report.ok()) << report.error().message();
    return std::move(report).value();
  }

  testing::TempDir dir_{"headways_test"};
  std::optional<gtfs::StaticFeed> feed_;
};

TEST_F(HeadwaysTest, FoundVersusPlannedWithBunchingGapsAndTheTcqsmBand) {
  const auto report = Compute();
  ASSERT_EQ(report.routes.size(), 1U);
  const auto& r = report.routes[0];
  EXPECT_EQ(r.route_id, "R53");
  EXPECT_EQ(r.route_short_name, "B53");
  EXPECT_EQ(r.direction_id, 0);
  EXPECT_FALSE(r.inferred);
  const auto& s = r.all;
  EXPECT_EQ(s.departures_found, 6);
  EXPECT_EQ(s.departures_planned, 12);
  EXPECT_DOUBLE_EQ(*s.found_ratio, 0.5);
  // Headways 600, 120, 1680, 600, 600 s against a planned 600 s.
  EXPECT_DOUBLE_EQ(*s.median_headway_s, 600);
  EXPECT_DOUBLE_EQ(*s.p10_headway_s, 312);
  EXPECT_DOUBLE_EQ(*s.planned_headway_s, 600);
  EXPECT_DOUBLE_EQ(*s.bunching_share, 0.2);
  EXPECT_DOUBLE_EQ(*s.gap_share, 0.2);
  EXPECT_NEAR(*s.cv, std::sqrt(264960.0) / 600, 1e-12);
  EXPECT_EQ(s.los, "F");
  EXPECT_NEAR(*s.excess_wait_s, 3916800.0 / 7200 - 300, 1e-9);
  EXPECT_EQ(s.service_dates, 1);

  ASSERT_EQ(r.by_hour.size(), 2U);
  EXPECT_EQ(r.by_hour[0].hour, 6);
  EXPECT_EQ(r.by_hour[0].departures_found, 5);
  EXPECT_EQ(r.by_hour[0].departures_planned, 6);
  EXPECT_EQ(r.by_hour[1].departures_found, 1);
  ASSERT_EQ(r.by_day_type.size(), 1U);
  EXPECT_EQ(r.by_day_type[0].day_type, "weekday");
}

TEST_F(HeadwaysTest, TheJsonHasEveryFieldTheCliDocumentNames) {
  const auto json = nlohmann::json::parse(HeadwayJson(Compute()));
  ASSERT_EQ(json["routes"].size(), 1U);
  const auto& route = json["routes"][0];
  for (const char* field :
       {"route_id", "route_short_name", "direction_id", "inferred", "departures_found",
        "departures_planned", "median_headway_s", "p10_headway_s", "p90_headway_s",
        "planned_headway_s", "bunching_share", "gap_share", "cv", "los", "excess_wait_s",
        "by_hour"}) {
    EXPECT_TRUE(route.contains(field)) << field;
  }
  EXPECT_EQ(route["by_hour"][0]["hour"], 6);
  EXPECT_EQ(route["los"], "F");
}

TEST_F(HeadwaysTest, ARerunReplacesTheTablesInsteadOfAddingToThem) {
  Compute();
  Compute();
  auto db = sink::OpenFrotaDuckDb(dir_.path() / "stream.duckdb", true);
  ASSERT_TRUE(db.ok());
  auto rows = (*db)->Query("SELECT (SELECT count(*) FROM departures), "
                           "(SELECT count(*) FROM headway_summary WHERE day_type = 'all' "
                           "AND hour = -1)");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->Int64(0, 0), 6);
  EXPECT_EQ(rows->Int64(0, 1), 1);
}

}  // namespace
}  // namespace frota::batch
