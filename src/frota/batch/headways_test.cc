#include "frota/batch/headways.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <random>

#include "frota/sink/duckdb_sink.h"
#include "frota/testing/subprocess.h"

namespace frota::batch {
namespace {

constexpr double kMetresPerDegree = 6'371'008.8 * std::numbers::pi / 180.0;
constexpr double kLat = -22.9;
constexpr double kLon = -43.4;
const double kLonMetres = kMetresPerDegree * std::cos(kLat * std::numbers::pi / 180.0);

// Route B53 runs east along a straight 5 km street from its west terminal W (trip B53I,
// shape SI); route B54 (not running that day) shares the feed 22 km away.
// Local time is UTC-3. Each test writes its own frequencies and positions.
class HeadwaysTest : public ::testing::Test {
 protected:
  void WriteGtfs(const std::string& frequencies) {
    const auto& d = dir_.path();
    std::ofstream(d / "agency.txt") << "agency_name,agency_url,agency_timezone\n"
                                       "A,http://a,America/Sao_Paulo\n";
    std::ofstream(d / "routes.txt") << "route_id,route_short_name,route_type\n"
                                       "R53,B53,3\nR54,B54,3\n";
    std::ofstream(d / "stops.txt") << fmt::format(
        "stop_id,stop_name,stop_lat,stop_lon\nW,West,{},{}\nE,East,{},{}\n"
        "X,Far,{},{}\nY,Farther,{},{}\n",
        kLat, kLon, kLat, kLon + 5000 / kLonMetres, kLat + 0.2, kLon, kLat + 0.25, kLon);
    std::ofstream(d / "trips.txt") << "route_id,service_id,trip_id,direction_id,shape_id\n"
                                      "R53,U,B53I,0,SI\nR54,S,B54I,0,\n";
    std::ofstream shapes(d / "shapes.txt");
    shapes << "shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence\n";
    for (int i = 0; i <= 50; ++i) {
      shapes << fmt::format("SI,{},{},{}\n", kLat, kLon + 100.0 * i / kLonMetres, i);
    }
    shapes.close();
    std::ofstream(d / "stop_times.txt")
        << "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
           "B53I,06:00:00,06:00:00,W,1\nB53I,06:20:00,06:20:00,E,2\n"
           "B54I,06:00:00,06:00:00,X,1\nB54I,06:20:00,06:20:00,Y,2\n";
    std::ofstream(d / "frequencies.txt") << "trip_id,start_time,end_time,headway_secs\n"
                                         << frequencies;
    std::ofstream(d / "calendar.txt")
        << "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,"
           "end_date\nU,1,1,1,1,1,0,0,20220801,20221231\n";
    auto feed = gtfs::StaticFeed::Load(d);
    ASSERT_TRUE(feed.ok()) << feed.error().message();
    feed_.emplace(std::move(feed).value());
  }

  // UTC text of a local time on 2022-08-03 (a Wednesday), minutes after midnight; past
  // 24 h it is the next day.
  static std::string Utc(int local_minutes, int seconds = 0) {
    const auto t = base::FromUnixSeconds(1'659'484'800 + (local_minutes + 180) * 60 + seconds);
    std::string iso = base::FormatIso8601(t);
    iso[10] = ' ';
    iso.pop_back();
    return iso;
  }

  void AddPosition(const std::string& vehicle, const std::string& route, double east_m,
                   double north_m, const std::string& utc, const std::string& trip = "") {
    rows_ += fmt::format(
        "{}('feed', '{}', 'bus', '{}', '{}', '{}', '', NULL, {}, {}, NULL, NULL, NULL, NULL, "
        "TIMESTAMP '{}', TIMESTAMP '{}' + INTERVAL 20 SECOND, false, 'x', {})",
        rows_.empty() ? "" : ",\n", vehicle, route, trip, trip.empty() ? "" : "20220803",
        kLat + north_m / kMetresPerDegree, kLon + east_m / kLonMetres, utc, utc, offset_++);
  }

  // A bus of B53 tagged `trip`, one position a minute from local minute `m` on: `east_m`
  // gives its place at each minute after `m`, for `minutes` minutes.
  template <typename Place>
  void Tagged(const std::string& vehicle, const std::string& trip, int m, int minutes,
              Place east_m) {
    for (int i = 0; i < minutes; ++i) {
      AddPosition(vehicle, "53B", east_m(i), 0, Utc(m + i), trip);
    }
  }

  // A bus of B53 stands at W for 4 minutes until local minute `m`, then is 1.2 km along
  // and drives east: it departs at `m` (its last position within 1 km of W).
  void Depart(int m, const std::string& vehicle) {
    for (int i = -4; i <= 0; ++i) {
      AddPosition(vehicle, "53B", (i % 2) * 5.0, 0, Utc(m + i));
    }
    for (int i = 1; i <= 6; ++i) {
      AddPosition(vehicle, "53B", 700.0 + 500 * i, 0, Utc(m + i));
    }
  }

  // A bus of B54, far away, reporting every minute of [from, to): the feed watching.
  void Watch(int from, int to, const std::string& route = "B54") {
    for (int m = from; m < to; ++m) {
      AddPosition("watcher-" + route, route, 0, 0.2 * kMetresPerDegree + 30 * (m % 3), Utc(m, 30));
    }
  }

  HeadwayReport Compute(HeadwayOptions options = {}) {
    if (!written_) {
      model::SourceCatalog catalog;
      auto sink = sink::DuckDbSink::Open(dir_.path() / "stream.duckdb", &catalog, "headways-test");
      EXPECT_TRUE(sink.ok()) << sink.error().message();
      auto& db = (*sink)->connection();
      const auto silver = sink::AddSilverText(
          db, [&] { return db.Execute("INSERT INTO positions_text VALUES " + rows_); });
      EXPECT_TRUE(silver.ok()) << silver.error().message();
      written_ = true;
    }
    auto db = sink::OpenFrotaDuckDb(dir_.path() / "stream.duckdb", true);
    EXPECT_TRUE(db.ok());
    auto report = ComputeHeadways(**db, *feed_, options);
    EXPECT_TRUE(report.ok()) << report.error().message();
    return std::move(report).value();
  }

  // (headway_s, exclusion) of every pair, in time order.
  std::vector<std::pair<std::optional<double>, std::string>> Pairs() {
    auto db = sink::OpenFrotaDuckDb(dir_.path() / "stream.duckdb", true);
    EXPECT_TRUE(db.ok());
    auto rows = (*db)->Query(
        "SELECT headway_s, coalesce(exclusion, '') FROM headways "
        "WHERE route_id = 'R53' ORDER BY departure_time");
    EXPECT_TRUE(rows.ok());
    std::vector<std::pair<std::optional<double>, std::string>> out;
    for (std::size_t i = 0; i < rows->rows(); ++i) {
      out.emplace_back(rows->IsNull(i, 0) ? std::nullopt : std::optional(rows->Double(i, 0)),
                       rows->String(i, 1));
    }
    return out;
  }

  static HeadwayOptions AnyCount() {
    HeadwayOptions o;
    o.min_headways = 1;
    return o;
  }

  testing::TempDir dir_{"headways_test"};
  std::optional<gtfs::StaticFeed> feed_;
  std::string rows_;
  int offset_ = 0;
  bool written_ = false;
};

// B53 plans a departure every 10 minutes from 06:00 to 08:00; six buses left at 06:00,
// 06:10, 06:12 (bunched), 06:40 (after a gap), 06:50 and 07:00, and the feed was watched
// from 05:50 to 08:10.
TEST_F(HeadwaysTest, FoundVersusPlannedWithBunchingGapsAndTheTcqsmBand) {
  WriteGtfs("B53I,06:00:00,08:00:00,600\n");
  int n = 0;
  for (const int m : {360, 370, 372, 400, 410, 420}) {
    Depart(m, fmt::format("bus-{}", n++));
  }
  Watch(350, 490);
  const auto report = Compute(AnyCount());
  ASSERT_EQ(report.routes.size(), 1U);
  const auto& r = report.routes[0];
  EXPECT_EQ(r.route_id, "R53");
  EXPECT_EQ(r.route_short_name, "B53");
  EXPECT_EQ(r.direction_id, 0);
  EXPECT_TRUE(r.inferred);  // no trip ids
  const auto& s = r.all;
  EXPECT_EQ(s.departures_found, 6);
  EXPECT_EQ(s.departures_planned, 12);
  EXPECT_EQ(s.departures_unobserved, 0);
  EXPECT_EQ(s.departures_unplanned, 0);
  EXPECT_DOUBLE_EQ(*s.found_ratio, 0.5);
  // Headways 600, 120, 1680, 600, 600 s against a planned 600 s.
  EXPECT_EQ(s.headways_measured, 5);
  EXPECT_EQ(s.excluded_service_break + s.excluded_coverage_gap, 0);
  EXPECT_DOUBLE_EQ(*s.median_headway_s, 600);
  EXPECT_DOUBLE_EQ(*s.p10_headway_s, 312);
  EXPECT_DOUBLE_EQ(*s.planned_headway_s, 600);
  EXPECT_DOUBLE_EQ(*s.bunching_share, 0.2);
  EXPECT_DOUBLE_EQ(*s.gap_share, 0.2);
  EXPECT_DOUBLE_EQ(*s.share_under_60s, 0);
  EXPECT_NEAR(*s.cv, std::sqrt(264960.0) / 600, 1e-12);
  EXPECT_EQ(s.los, "F");
  // AWT = sum(h^2) / 2 sum(h), SWT = sum(p^2) / 2 sum(p).
  EXPECT_NEAR(*s.excess_wait_s, 3916800.0 / 7200 - 1800000.0 / 6000, 1e-9);
  EXPECT_DOUBLE_EQ(*s.coverage_share, 1.0);
  // B53 reports only around its departures, while B54's bus keeps the feed watching:
  // 06:19-06:35 and 07:07-08:00 of planned service (to 07:50 + 10 min) are silent.
  EXPECT_EQ(s.silent_minutes, 17 + 53);
  EXPECT_EQ(s.service_dates, 1);

  ASSERT_EQ(r.by_hour.size(), 2U);
  EXPECT_EQ(r.by_hour[0].hour, 6);
  EXPECT_EQ(r.by_hour[0].departures_found, 5);
  EXPECT_EQ(r.by_hour[0].departures_planned, 6);
  EXPECT_EQ(r.by_hour[1].departures_found, 1);
  ASSERT_EQ(r.by_day_type.size(), 1U);
  EXPECT_EQ(r.by_day_type[0].day_type, "weekday");
  EXPECT_EQ(report.feed_coverage.at("feed").gaps.size(), 0U);
}

TEST_F(HeadwaysTest, FewerMeasuredHeadwaysThanTheMinimumGiveCountsButNoStatistics) {
  WriteGtfs("B53I,06:00:00,08:00:00,600\n");
  Depart(360, "a");
  Depart(370, "b");
  Depart(380, "c");
  Watch(350, 490);
  const auto s = Compute().routes.at(0).all;  // min_headways 10
  EXPECT_EQ(s.headways_measured, 2);
  EXPECT_EQ(s.departures_found, 3);
  EXPECT_FALSE(s.median_headway_s.has_value());
  EXPECT_FALSE(s.cv.has_value());
  EXPECT_FALSE(s.excess_wait_s.has_value());
  EXPECT_TRUE(s.los.empty());
}

// A peak-only line: two service periods, 06-08 and 16-18 h. The eight hours between are
// a planned break, not a headway.
TEST_F(HeadwaysTest, APairAcrossAPlannedBreakIsExcludedAsServiceBreak) {
  WriteGtfs("B53I,06:00:00,08:00:00,1200\nB53I,16:00:00,18:00:00,1200\n");
  Depart(440, "a");  // 07:20
  Depart(460, "b");  // 07:40
  Depart(960, "c");  // 16:00
  Depart(980, "d");  // 16:20
  Watch(350, 1100);
  const auto s = Compute(AnyCount()).routes.at(0).all;
  const auto pairs = Pairs();
  ASSERT_EQ(pairs.size(), 4U);
  EXPECT_FALSE(pairs[0].first.has_value());
  EXPECT_EQ(pairs[1].second, "");
  EXPECT_EQ(pairs[2].second, "service_break");
  EXPECT_DOUBLE_EQ(*pairs[2].first, 500 * 60.0);
  EXPECT_EQ(pairs[3].second, "");
  EXPECT_EQ(s.headways_measured, 2);
  EXPECT_EQ(s.excluded_service_break, 1);
  EXPECT_EQ(s.excluded_coverage_gap, 0);
  EXPECT_DOUBLE_EQ(*s.median_headway_s, 1200);
  EXPECT_DOUBLE_EQ(*s.excess_wait_s, 0);
  // Planned service: 06:00 to 07:40 + 20 min and 16:00 to 17:40 + 20 min, all watched.
  EXPECT_DOUBLE_EQ(*s.coverage_share, 1.0);
}

// The whole feed is blind from 06:20 to 06:35: the pair 06:12 -> 06:40 is not measured,
// and the departures planned at 06:20 and 06:30 could not have been seen.
TEST_F(HeadwaysTest, APairAcrossACoverageGapIsExcludedAndThePlannedDeparturesInItUnobserved) {
  WriteGtfs("B53I,06:00:00,08:00:00,600\n");
  for (const int m : {360, 370, 372, 400, 410, 420}) {
    Depart(m, fmt::format("bus-{}", m));
  }
  Watch(350, 378);
  Watch(395, 490);
  const auto report = Compute(AnyCount());
  const auto& s = report.routes.at(0).all;
  const auto pairs = Pairs();
  ASSERT_EQ(pairs.size(), 6U);
  EXPECT_EQ(pairs[3].second, "coverage_gap");
  EXPECT_EQ(s.headways_measured, 4);
  EXPECT_EQ(s.excluded_coverage_gap, 1);
  EXPECT_EQ(s.departures_unobserved, 2);
  EXPECT_EQ(s.departures_planned, 10);
  ASSERT_EQ(report.feed_coverage.at("feed").gaps.size(), 1U);
  const auto [from, to] = report.feed_coverage.at("feed").gaps[0];
  EXPECT_EQ(to - from, std::chrono::minutes(16));  // 06:19 to 06:35, nobody reporting
  EXPECT_LT(*s.coverage_share, 1.0);
  const auto json = nlohmann::json::parse(HeadwayJson(report));
  EXPECT_EQ(json["feed_coverage"]["feed"]["gaps"][0][0], "2022-08-03T06:19:00-03:00");
  EXPECT_EQ(json["routes"][0]["headways_excluded"]["coverage_gap"], 1);
  EXPECT_EQ(json["routes"][0]["headways_excluded"]["service_break"], 0);
}

TEST_F(HeadwaysTest, ADepartureOutsideEveryServicePeriodIsUnplannedAndNotAHeadway) {
  WriteGtfs("B53I,06:00:00,08:00:00,600\n");
  Depart(420, "a");
  Depart(430, "b");
  Depart(600, "c");  // 10:00, two hours after the last planned departure
  Watch(350, 620);
  const auto s = Compute(AnyCount()).routes.at(0).all;
  EXPECT_EQ(s.departures_found, 2);
  EXPECT_EQ(s.departures_unplanned, 1);
  EXPECT_EQ(Pairs().size(), 2U);
}

// A night line planned 22:00 to 25:00: a departure at 00:30 belongs to the service date
// before, in the same period as the one at 23:50.
TEST_F(HeadwaysTest, ANightDepartureAfterMidnightBelongsToTheServiceDateBefore) {
  WriteGtfs("B53I,22:00:00,25:00:00,2400\n");
  Depart(22 * 60 + 30, "a");
  Depart(23 * 60 + 10, "b");
  Depart(23 * 60 + 50, "c");
  Depart(24 * 60 + 30, "d");
  Watch(21 * 60 + 50, 25 * 60 + 10);
  const auto s = Compute(AnyCount()).routes.at(0).all;
  EXPECT_EQ(s.departures_unplanned, 0);
  EXPECT_EQ(s.departures_found, 4);
  EXPECT_EQ(s.headways_measured, 3);
  EXPECT_DOUBLE_EQ(*s.median_headway_s, 2400);
}

// One feed carries B53 and B54; B54 keeps reporting while B53 says nothing for 20 minutes
// of planned service (06:40 to 07:00): silent minutes, and a line_silences row.
TEST_F(HeadwaysTest, ALineSilentWhileItsFeedReportsCountsSilentMinutes) {
  WriteGtfs("B53I,06:00:00,08:00:00,600\n");
  Watch(350, 490);
  Watch(350, 400, "53B");  // a B53 bus parked 22 km away, reporting, then silent
  Watch(420, 490, "53B");
  Depart(360, "a");
  Depart(370, "b");
  Depart(430, "c");
  const auto s = Compute(AnyCount()).routes.at(0).all;
  EXPECT_EQ(s.silent_minutes, 20);  // 06:40 to 07:00: no B53 position at all
  auto db = sink::OpenFrotaDuckDb(dir_.path() / "stream.duckdb", true);
  ASSERT_TRUE(db.ok());
  auto rows = (*db)->Query("SELECT route_id, minutes FROM line_silences");
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->rows(), 1U);
  EXPECT_EQ(rows->String(0, 0), "R53");
  EXPECT_EQ(rows->Int64(0, 1), 20);
}

// On the second day the feed reports (B54) but not one B53 position: that line-day is not
// seen. Its planned departures are neither found nor missed, so the found ratio is the
// first day's, and the line-day is listed apart with them.
TEST_F(HeadwaysTest, ALineDayWithoutAnyPositionOfTheLineIsNotSeenAndOutOfThePlan) {
  WriteGtfs("B53I,06:00:00,08:00:00,600\n");
  Watch(350, 490);
  Depart(360, "a");
  Depart(370, "b");
  Watch(1440 + 350, 1440 + 490);
  const auto report = Compute(AnyCount());
  const auto& s = report.routes.at(0).all;
  EXPECT_EQ(s.departures_found, 2);
  EXPECT_EQ(s.departures_planned, 12);  // the first day's, 06:00 to 07:50
  EXPECT_EQ(s.line_days_not_seen, 1);
  EXPECT_EQ(s.departures_not_seen, 12);
  ASSERT_TRUE(s.found_ratio.has_value());
  EXPECT_DOUBLE_EQ(*s.found_ratio, 2.0 / 12);
  ASSERT_EQ(report.line_days_not_seen.size(), 1U);
  EXPECT_EQ(report.line_days_not_seen[0].route_id, "R53");
  EXPECT_EQ(report.line_days_not_seen[0].service_date, "2022-08-04");
  EXPECT_EQ(report.line_days_not_seen[0].departures_planned, 12);
  const auto json = nlohmann::json::parse(HeadwayJson(report));
  EXPECT_EQ(json["line_days_not_seen"].size(), 1U);
  EXPECT_EQ(json["routes"][0]["line_days_not_seen"].get<std::int64_t>(), 1);
}

// Property: whatever the departures and wherever an outage falls, no measured headway
// spans it, and every pair that spans it is excluded.
TEST_F(HeadwaysTest, AnOutageNeverYieldsAMeasuredHeadwayAcrossIt) {
  WriteGtfs("B53I,05:00:00,22:00:00,600\n");
  std::mt19937 random(20260805);
  std::set<int> starts;
  while (starts.size() < 40) {
    starts.insert(310 + static_cast<int>(random() % 900));
  }
  const int outage_from = 500 + static_cast<int>(random() % 300);
  const int outage_to = outage_from + 6 + static_cast<int>(random() % 90);
  int n = 0;
  for (const int m : starts) {
    if (m + 6 < outage_from || m - 4 >= outage_to) {  // nobody reports during the outage
      Depart(m, fmt::format("bus-{}", n++));
    }
  }
  Watch(300, outage_from);
  Watch(outage_to, 1300);
  Compute(AnyCount());
  auto db = sink::OpenFrotaDuckDb(dir_.path() / "stream.duckdb", true);
  ASSERT_TRUE(db.ok());
  auto rows = (*db)->Query(
      fmt::format("SELECT count(*) FILTER (WHERE exclusion IS NULL), "
                  "count(*) FILTER (WHERE exclusion = 'coverage_gap') FROM headways "
                  "WHERE headway_s IS NOT NULL AND departure_time > TIMESTAMP '{}' "
                  "AND departure_time - to_seconds(headway_s::BIGINT) < TIMESTAMP '{}'",
                  Utc(outage_from), Utc(outage_to)));
  ASSERT_TRUE(rows.ok()) << rows.error().message();
  EXPECT_EQ(rows->Int64(0, 0), 0);
  EXPECT_EQ(rows->Int64(0, 1), 1);
}

TEST_F(HeadwaysTest, TheJsonHasEveryFieldTheCliDocumentNames) {
  WriteGtfs("B53I,06:00:00,08:00:00,600\n");
  for (const int m : {360, 370, 372, 400, 410, 420}) {
    Depart(m, fmt::format("bus-{}", m));
  }
  Watch(350, 490);
  HeadwayOptions options = AnyCount();
  options.compare_inferred = true;
  const auto json = nlohmann::json::parse(HeadwayJson(Compute(options)));
  ASSERT_EQ(json["routes"].size(), 1U);
  const auto& route = json["routes"][0];
  for (const char* field : {"route_id",
                            "route_short_name",
                            "direction_id",
                            "inferred",
                            "departures_found",
                            "departures_planned",
                            "median_headway_s",
                            "p10_headway_s",
                            "p90_headway_s",
                            "planned_headway_s",
                            "bunching_share",
                            "gap_share",
                            "cv",
                            "los",
                            "excess_wait_s",
                            "by_hour",
                            "by_day_type",
                            "headways_measured",
                            "headways_excluded",
                            "coverage_share",
                            "share_under_60s",
                            "departures_unobserved",
                            "departures_unplanned",
                            "departures_tagged_late",
                            "silent_minutes",
                            "trips_completed",
                            "trips_conforming",
                            "inferred_check"}) {
    EXPECT_TRUE(route.contains(field)) << field;
  }
  EXPECT_EQ(route["by_hour"][0]["hour"], 6);
  EXPECT_TRUE(route["by_hour"][0]["headways_excluded"].contains("service_break"));
  EXPECT_EQ(route["los"], "F");
  EXPECT_EQ(route["inferred_check"]["departures"], 6);
  EXPECT_EQ(route["inferred_check"]["matched"], 6);
  EXPECT_TRUE(json["feed_coverage"]["feed"]["gaps"].is_array());
}

// A frequency trip's id kept on a bus for two runs is two trips, each completed; a bus
// that turns back 3 km short of E departed but did not complete its trip.
TEST_F(HeadwaysTest, TripsAsRunsCountCompletedAndConformingDepartures) {
  WriteGtfs("B53I,06:00:00,08:00:00,600\n");
  const auto there_and_back = [](int i) {
    // At W until minute 4, to E at 500 m a minute, 5 minutes there, back, 5 minutes at W,
    // out to E again.
    const int leg[] = {4, 14, 19, 29, 34, 44};
    if (i <= leg[0]) return 0.0;
    if (i <= leg[1]) return 500.0 * (i - leg[0]);
    if (i <= leg[2]) return 5000.0;
    if (i <= leg[3]) return 5000.0 - 500.0 * (i - leg[2]);
    if (i <= leg[4]) return 0.0;
    return std::min(5000.0, 500.0 * (i - leg[4]));
  };
  Tagged("bus-a", "B53I", 356, 45, there_and_back);
  Tagged("bus-b", "B53I", 361, 15, [](int i) {
    return i <= 4 ? 0.0 : i <= 8 ? 500.0 * (i - 4) : std::max(0.0, 2000.0 - 500.0 * (i - 8));
  });
  Watch(350, 420);
  const auto report = Compute(AnyCount());
  ASSERT_EQ(report.routes.size(), 1U);
  const HeadwayStats& s = report.routes[0].all;
  EXPECT_EQ(s.departures_found, 3);
  EXPECT_EQ(s.trips_completed, 2);
  EXPECT_EQ(s.trips_conforming, 3);
  auto db = sink::OpenFrotaDuckDb(dir_.path() / "stream.duckdb", true);
  ASSERT_TRUE(db.ok());
  auto runs = (*db)->Query(
      "SELECT vehicle_id, count(*), count(departure_time), count(*) FILTER (WHERE completed) "
      "FROM trip_runs GROUP BY ALL ORDER BY ALL");
  ASSERT_TRUE(runs.ok()) << runs.error().message();
  ASSERT_EQ(runs->rows(), 2U);
  EXPECT_EQ(runs->String(0, 0), "bus-a");
  EXPECT_EQ(runs->Int64(0, 1), 2);  // one tag, two runs
  EXPECT_EQ(runs->Int64(0, 2), 2);
  EXPECT_EQ(runs->Int64(0, 3), 2);
  EXPECT_EQ(runs->Int64(1, 1), 1);
  EXPECT_EQ(runs->Int64(1, 3), 0);
  const auto json = nlohmann::json::parse(HeadwayJson(report));
  EXPECT_EQ(json["routes"][0]["trips_completed"], 2);
  EXPECT_EQ(json["routes"][0]["trips_conforming"], 3);
}

TEST_F(HeadwaysTest, ARerunReplacesTheTablesInsteadOfAddingToThem) {
  WriteGtfs("B53I,06:00:00,08:00:00,600\n");
  for (const int m : {360, 370, 372, 400, 410, 420}) {
    Depart(m, fmt::format("bus-{}", m));
  }
  Watch(350, 490);
  Compute();
  Compute();
  auto db = sink::OpenFrotaDuckDb(dir_.path() / "stream.duckdb", true);
  ASSERT_TRUE(db.ok());
  auto rows = (*db)->Query(
      "SELECT (SELECT count(*) FROM departures), "
      "(SELECT count(*) FROM headway_summary WHERE day_type = 'all' "
      "AND hour = -1)");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->Int64(0, 0), 6);
  EXPECT_EQ(rows->Int64(0, 1), 1);
}

}  // namespace
}  // namespace frota::batch
