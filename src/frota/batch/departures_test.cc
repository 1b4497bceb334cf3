#include "frota/batch/departures.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "frota/testing/street_feed.h"
#include "frota/testing/subprocess.h"

namespace frota::batch {
namespace {

using std::chrono::seconds;

using testing::StreetPoint;

// Route B53 ("53B" in the feed) runs along a straight 5 km street: shape I eastwards
// (direction 0), shape V back westwards (direction 1); trip B53I has a shape, trip B53X
// none (its first stop is the west terminal).
class DeparturesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& d = dir_.path();
    std::ofstream(d / "agency.txt") << "agency_name,agency_url,agency_timezone\n"
                                       "A,http://a,America/Sao_Paulo\n";
    std::ofstream(d / "routes.txt")
        << "route_id,route_short_name,route_type\nR53,B53,3\nR60,60,3\n";
    const auto west = StreetPoint(0);
    const auto east = StreetPoint(5000);
    std::ofstream(d / "stops.txt")
        << fmt::format("stop_id,stop_name,stop_lat,stop_lon\nW,West,{},{}\nE,East,{},{}\n",
                       west.first, west.second, east.first, east.second);
    std::ofstream(d / "trips.txt") << "route_id,service_id,trip_id,direction_id,shape_id\n"
                                      "R53,U,B53I,0,SI\nR53,U,B53V,1,SV\nR53,U,B53X,0,\n"
                                      "R60,U,R60I,0,SL\n";
    std::ofstream(d / "stop_times.txt")
        << "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
           "B53X,06:00:00,06:00:00,W,1\nB53X,06:20:00,06:20:00,E,2\n";
    std::ofstream shapes(d / "shapes.txt");
    shapes << "shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence\n";
    // SL: 600 m north from 10 km east, then 3 km east: an L, as a block of streets makes.
    for (int i = 0; i <= 36; ++i) {
      const auto p =
          i <= 6 ? StreetPoint(10000, 100.0 * i) : StreetPoint(10000 + 100.0 * (i - 6), 600);
      shapes << fmt::format("SL,{},{},{}\n", p.first, p.second, i);
    }
    for (int i = 0; i <= 50; ++i) {
      const auto p = StreetPoint(100.0 * i);
      shapes << fmt::format("SI,{},{},{}\n", p.first, p.second, i);
      const auto q = StreetPoint(5000 - 100.0 * i);
      shapes << fmt::format("SV,{},{},{}\n", q.first, q.second, i);
    }
    shapes.close();
    auto feed = gtfs::StaticFeed::Load(d);
    ASSERT_TRUE(feed.ok()) << feed.error().message();
    feed_.emplace(std::move(feed).value());
    routes_.emplace(*feed_);
    zone_.emplace(*base::TimeZone::Load("America/Sao_Paulo"));
  }

  // Fixes every 30 s from `t`: `standing` fixes at `from_m` (a few metres of jitter),
  // then driving at 8 m/s towards `to_m`, `north_m` off the street, tagged `trip`.
  void Drive(std::vector<Fix>& fixes, base::Timestamp& t, double from_m, double to_m, int standing,
             double north_m = 0, std::string_view trip = {}) {
    for (int i = 0; i < standing; ++i) {
      Add(fixes, t, from_m + (i % 3) * 4.0, north_m + (i % 2) * 3.0, trip);
    }
    const double step = (to_m > from_m ? 1 : -1) * 240.0;
    for (double x = from_m + step; (step > 0 ? x <= to_m : x >= to_m); x += step) {
      Add(fixes, t, x, north_m, trip);
    }
  }
  void Add(std::vector<Fix>& fixes, base::Timestamp& t, double east_m, double north_m,
           std::string_view trip = {}) {
    const auto p = StreetPoint(east_m, north_m);
    fixes.push_back({t, p.first, p.second, "53B", trip, trip.empty() ? "" : "20220803"});
    t += seconds(30);
  }

  std::vector<Departure> Detect(const std::vector<Fix>& fixes, bool use_trip_ids = true) {
    DepartureOptions options;
    options.use_trip_ids = use_trip_ids;
    DepartureDetector detector(*feed_, *routes_, *zone_, options);
    std::vector<Departure> out;
    detector.AddVehicle("feed", "bus-1", fixes, out);
    return out;
  }

  testing::TempDir dir_{"departures_test"};
  std::optional<gtfs::StaticFeed> feed_;
  std::optional<gtfs::RouteResolver> routes_;
  std::optional<base::TimeZone> zone_;
  base::Timestamp start_ = base::FromUnixSeconds(1'659'510'000);  // 2022-08-03T07:00:00Z
};

TEST_F(DeparturesTest, AVehicleLeavingATerminalAlongTheShapeDepartsInThatDirection) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 0, 5000, 10);  // stands at the west end, drives east
  Drive(fixes, t, 5000, 0, 10);  // stands at the east end, drives back
  const auto departures = Detect(fixes);
  ASSERT_EQ(departures.size(), 2U);
  EXPECT_EQ(departures[0].route_id, "R53");
  EXPECT_EQ(departures[0].feed_route_id, "53B");
  EXPECT_EQ(departures[0].direction_id, 0);
  EXPECT_EQ(departures[0].shape_id, "SI");
  EXPECT_TRUE(departures[0].inferred);
  EXPECT_TRUE(departures[0].trip_id.empty());
  // The last fix within 1,000 m of the start (960 m along, the 4th moving fix) before
  // one 1,000 m or more along it (1,200 m).
  EXPECT_EQ(departures[0].departure_time, start_ + seconds(30 * 13));
  EXPECT_NEAR(departures[0].distance_m, 960, 1);
  EXPECT_EQ(departures[1].direction_id, 1);
  EXPECT_EQ(departures[1].shape_id, "SV");
  EXPECT_EQ(base::FormatDate(departures[0].service_date), "2022-08-03");
}

TEST_F(DeparturesTest, JitterAtTheCircleEdgeAfterLeavingIsNotASecondDeparture) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 0, 0, 6);
  for (const double x : {1010.0, 990.0, 1020.0, 995.0, 1100.0, 980.0}) {  // in and out
    Add(fixes, t, x, 0);
  }
  Drive(fixes, t, 1100, 5000, 0);
  EXPECT_EQ(Detect(fixes).size(), 1U);
}

TEST_F(DeparturesTest, LeavingTheTerminalAwayFromThePatternIsNoDeparture) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 0, 0, 6);
  for (int i = 1; i <= 12; ++i) {  // due north, off the street
    Add(fixes, t, 0, 200.0 * i);
  }
  EXPECT_TRUE(Detect(fixes).empty());
}

TEST_F(DeparturesTest, AVehicleNeverSeenAtTheTerminalHasNoDeparture) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 1200, 5000, 0);
  EXPECT_TRUE(Detect(fixes).empty());
}

TEST_F(DeparturesTest, ASilenceLongerThanTheExitGapHidesWhenItLeft) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 0, 0, 6);
  t += std::chrono::minutes(12);  // the feed says nothing while the bus leaves
  const base::Timestamp back = t;
  Drive(fixes, t, 2000, 5000, 0);  // first seen again 2,240 m along
  const auto departures = Detect(fixes);
  ASSERT_EQ(departures.size(), 1U);
  EXPECT_TRUE(departures[0].hidden);
  // Placed the exit gap before it was seen out again (it left in the silence).
  EXPECT_EQ(departures[0].departure_time, back - std::chrono::minutes(10));
  EXPECT_EQ(departures[0].direction_id, 0);
  // Within the exit gap the departure is an ordinary one, at the terminal.
  fixes.clear();
  t = start_;
  Drive(fixes, t, 0, 0, 6);
  t += std::chrono::minutes(8);
  Drive(fixes, t, 2000, 5000, 0);
  const auto seen = Detect(fixes);
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_FALSE(seen[0].hidden);
  EXPECT_EQ(seen[0].departure_time, start_ + seconds(150));
}

// Back beyond the pattern's first part (the detector keeps 3.7 km of it), where only the
// trip tag can say which pattern it is on.
TEST_F(DeparturesTest, ASilenceEndingBeyondThePatternsFirstPartIsHiddenByTheTag) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 0, 0, 6, 0, "B53I");
  t += std::chrono::minutes(15);
  const base::Timestamp back = t;
  Drive(fixes, t, 4500, 5000, 0, 0, "B53I");  // first seen again 4,740 m along
  const auto departures = Detect(fixes);
  ASSERT_EQ(departures.size(), 1U);
  EXPECT_TRUE(departures[0].hidden);
  EXPECT_EQ(departures[0].direction_id, 0);
  EXPECT_EQ(departures[0].departure_time, back - std::chrono::minutes(10));
  // Without the tag nothing places it out there: no departure.
  EXPECT_TRUE(Detect(fixes, /*use_trip_ids=*/false).empty());
}

// Silent from before it reached the west terminal, back out on a new trip of the way east:
// it left the terminal unseen. Back on the trip it ran before, it did not.
TEST_F(DeparturesTest, BackFromASilenceOnANewTripOutOnItsPatternItLeftUnseen) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 5000, 2000, 0, 0, "B53V");  // leaves the east terminal, westwards
  t += std::chrono::minutes(20);
  Drive(fixes, t, 4500, 5000, 0, 0, "B53I");
  const auto departures = Detect(fixes);
  ASSERT_EQ(departures.size(), 2U);
  EXPECT_EQ(departures[0].direction_id, 1);
  EXPECT_FALSE(departures[0].hidden);
  EXPECT_EQ(departures[1].direction_id, 0);
  EXPECT_TRUE(departures[1].hidden);
  EXPECT_EQ(departures[1].trip_id, "B53I");

  fixes.clear();
  t = start_;
  Drive(fixes, t, 5000, 2000, 0, 0, "B53V");
  t += std::chrono::minutes(20);
  Drive(fixes, t, 2000, 1000, 0, 0, "B53V");  // the same trip, on its way
  EXPECT_EQ(Detect(fixes).size(), 1U);
}

// Tagged for the next trip at a turnaround off the pattern after a silence: the geometry
// says it has not left; it leaves when it passes the terminal, as usual.
TEST_F(DeparturesTest, ATagShownOffThePatternAfterASilenceIsNoDeparture) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 0, 0, 6);
  t += std::chrono::minutes(15);
  for (const double north : {1900.0, 1900.0, 1000.0, 300.0}) {
    Add(fixes, t, 0, north, "B53I");
  }
  Drive(fixes, t, 0, 5000, 2, 0, "B53I");
  const auto departures = Detect(fixes);
  ASSERT_EQ(departures.size(), 1U);
  EXPECT_FALSE(departures[0].hidden);
  EXPECT_EQ(departures[0].trip_id, "B53I");
}

// A bus that left the west terminal, fell silent before it got far, and came back on the
// trip the other way has been away: it can leave the west terminal again.
TEST_F(DeparturesTest, BackFromASilenceOnAnotherPatternsTripItCanLeaveAgain) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 0, 1200, 3, 0, "B53I");
  t += std::chrono::minutes(20);
  Drive(fixes, t, 300, 300, 3, 0, "B53V");  // arrived on the way back, unseen
  Drive(fixes, t, 0, 5000, 3, 0, "B53I");
  const auto departures = Detect(fixes);
  ASSERT_EQ(departures.size(), 3U);
  EXPECT_EQ(departures[0].direction_id, 0);
  EXPECT_FALSE(departures[0].hidden);
  EXPECT_EQ(departures[1].direction_id, 1);  // it ran the way back unseen
  EXPECT_TRUE(departures[1].hidden);
  EXPECT_EQ(departures[2].direction_id, 0);
  EXPECT_FALSE(departures[2].hidden);
}

// Silent while it left the west terminal and ran east, back in sight on the way west: out
// on the first kilometres of the way east, but coming in. It left unseen, and when it
// leaves again after its layover, that is a departure too.
TEST_F(DeparturesTest, BackFromASilenceOnTheWayInItLeftUnseenAndLeavesAgain) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 0, 0, 6);
  t += std::chrono::minutes(20);
  const base::Timestamp back = t;
  Add(fixes, t, 1440, 0);  // seen again 1,440 m out, driving back west
  Drive(fixes, t, 1440, 0, 0);
  const base::Timestamp layover = t;
  Drive(fixes, t, 0, 5000, 12);
  const auto departures = Detect(fixes);
  ASSERT_EQ(departures.size(), 2U);
  EXPECT_TRUE(departures[0].hidden);
  EXPECT_EQ(departures[0].direction_id, 0);
  EXPECT_EQ(departures[0].departure_time, back - std::chrono::minutes(10));
  EXPECT_FALSE(departures[1].hidden);
  EXPECT_EQ(departures[1].direction_id, 0);
  // The last fix within 1,000 m (960 m) before the one past it.
  EXPECT_EQ(departures[1].departure_time, layover + seconds(30 * 15));
  // Back in sight out on the way east, driving on east: one departure, the hidden one,
  // and drift around 1,000 m afterwards is no second one.
  fixes.clear();
  t = start_;
  Drive(fixes, t, 0, 0, 6);
  t += std::chrono::minutes(20);
  for (const double x : {1100.0, 990.0, 1010.0, 985.0, 1200.0}) {
    Add(fixes, t, x, 0);
  }
  Drive(fixes, t, 1200, 5000, 0);
  const auto once = Detect(fixes);
  ASSERT_EQ(once.size(), 1U);
  EXPECT_TRUE(once[0].hidden);
}

TEST_F(DeparturesTest, ASilenceThatEndsAtTheTerminalIsNoHiddenDeparture) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 0, 0, 6);
  t += std::chrono::minutes(25);  // silent, but still there afterwards
  Drive(fixes, t, 0, 5000, 4);
  const auto departures = Detect(fixes);
  ASSERT_EQ(departures.size(), 1U);
  EXPECT_FALSE(departures[0].hidden);
}

TEST_F(DeparturesTest, ARouteNameThatResolvesNowhereCannotBeDetected) {
  DepartureDetector detector(*feed_, *routes_, *zone_);
  EXPECT_TRUE(detector.CanDetect("53B"));
  EXPECT_TRUE(detector.CanDetect("B53"));
  EXPECT_FALSE(detector.CanDetect("99"));
  EXPECT_TRUE(detector.CanDetect("99", "B53I"));  // its trip tag names the route
}

// The feed tags the trip only 1.5 km out (the Rio BRT feed does this on most trips): the
// tag still chooses the departure of the vehicle leaving the terminal before it.
TEST_F(DeparturesTest, ATripTaggedAfterLeavingKeepsTheDepartureAtTheTerminal) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 0, 1440, 6);  // untagged until 1,440 m
  Drive(fixes, t, 1440, 5000, 0, 0, "B53I");
  const auto departures = Detect(fixes);
  ASSERT_EQ(departures.size(), 1U);
  EXPECT_EQ(departures[0].trip_id, "B53I");
  EXPECT_EQ(departures[0].trip_start_date, "20220803");
  EXPECT_FALSE(departures[0].inferred);
  EXPECT_TRUE(departures[0].tagged_late);
  EXPECT_EQ(departures[0].departure_time, start_ + seconds(30 * 9));  // the 960 m fix
  const auto without_ids = Detect(fixes, /*use_trip_ids=*/false);
  ASSERT_EQ(without_ids.size(), 1U);
  EXPECT_EQ(without_ids[0].departure_time, departures[0].departure_time);
  EXPECT_TRUE(without_ids[0].inferred);
  EXPECT_TRUE(without_ids[0].trip_id.empty());
}

// A frequency-based trip id is the same for every run of the day: each run of the tag
// (its positions more than 15 minutes apart start a new one) names one departure.
TEST_F(DeparturesTest, ATripIdUsedAllDayTagsEachRunSeparately) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  for (int run = 0; run < 3; ++run) {
    Drive(fixes, t, 0, 5000, 20, 0, "B53I");
    Drive(fixes, t, 5000, 0, 20, 0, "B53V");
  }
  const auto departures = Detect(fixes);
  ASSERT_EQ(departures.size(), 6U);
  for (const auto& d : departures) {
    EXPECT_FALSE(d.inferred);
    EXPECT_FALSE(d.tagged_late);
    EXPECT_EQ(d.trip_id, d.direction_id == 0 ? "B53I" : "B53V");
  }
}

// Rio's BRT at Salvador Allende: the shapes meet 1.9 km before the real terminal, so a bus
// drives past the start, turns beyond it, is tagged for the way back out there, and then
// passes the start again on its way: one departure, at its last position near the start.
TEST_F(DeparturesTest, ATurnaroundBeyondThePatternsStartIsOneDeparture) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 3000, 5000, 0, 0, "B53I");
  Drive(fixes, t, 5000, 6900, 0, 0, "B53I");  // past the end of SI, off every shape
  Drive(fixes, t, 6900, 6900, 4, 0, "B53V");  // the turnaround, tagged for the way back
  Drive(fixes, t, 6900, 3000, 0, 0, "B53V");
  const auto departures = Detect(fixes);
  ASSERT_EQ(departures.size(), 1U);
  EXPECT_EQ(departures[0].direction_id, 1);
  EXPECT_EQ(departures[0].trip_id, "B53V");
  EXPECT_TRUE(departures[0].tagged_late);
  EXPECT_LE(departures[0].distance_m, 1000);
  EXPECT_EQ(Detect(fixes, false).size(), 1U);
}

TEST_F(DeparturesTest, ATripWithoutAShapeDepartsFromItsFirstStop) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 0, 3000, 6, 0, "B53X");
  const auto departures = Detect(fixes);
  ASSERT_EQ(departures.size(), 1U);
  EXPECT_EQ(departures[0].trip_id, "B53X");
  // B53I's shape leaves the same terminal the same way: the tag chose the trip's pattern.
  EXPECT_EQ(departures[0].shape_id, "stops:W");
  EXPECT_EQ(departures[0].direction_id, 0);
}

// On a curving pattern a position 1,000 m along can be within 1,000 m of its start: the
// progress decides. Coming in along the L backwards is not leaving.
TEST_F(DeparturesTest, ProgressAlongACurvingPatternDecidesNotTheDistanceFromItsStart) {
  const auto add = [](std::vector<Fix>& fixes, base::Timestamp& t, double east_m, double north_m) {
    const auto p = StreetPoint(10000 + east_m, north_m);
    fixes.push_back({t, p.first, p.second, "60", {}, {}});
    t += seconds(30);
  };
  std::vector<Fix> out;
  base::Timestamp t = start_;
  for (int i = 0; i < 6; ++i) {
    add(out, t, 0, 0);  // at the start
  }
  for (const double north : {200.0, 400.0, 600.0}) {
    add(out, t, 0, north);
  }
  for (const double east : {200.0, 450.0, 700.0, 1000.0, 1500.0, 2200.0}) {
    add(out, t, east, 600);  // 450 m east is 1,050 m along, 750 m from the start
  }
  const auto departures = Detect(out);
  ASSERT_EQ(departures.size(), 1U);
  EXPECT_EQ(departures[0].shape_id, "SL");
  EXPECT_EQ(departures[0].departure_time, start_ + seconds(30 * 9));  // the 200 m east fix

  std::vector<Fix> in;
  t = start_;
  for (const double east : {2200.0, 1500.0, 700.0, 450.0, 430.0, 200.0}) {
    add(in, t, east, 600);
  }
  for (const double north : {600.0, 300.0, 0.0, 0.0}) {
    add(in, t, 0, north);
  }
  EXPECT_TRUE(Detect(in).empty());
}

// On the same positions the paths with and without trip ids find the same departures.
TEST_F(DeparturesTest, TripIdsAndGeometryFindTheSameDepartures) {
  for (int seed = 1; seed <= 20; ++seed) {
    std::vector<Fix> fixes;
    base::Timestamp t = start_;
    std::uint32_t state = static_cast<std::uint32_t>(seed) * 2654435761U;
    const auto next = [&state] { return (state = state * 1664525U + 1013904223U) >> 8; };
    for (int run = 0; run < 6; ++run) {
      const bool east = run % 2 == 0;
      const std::string_view trip = next() % 4 == 0 ? "" : (east ? "B53I" : "B53V");
      const double tagged_from = (next() % 3) * 800.0;  // tagged at, or late
      const double from = east ? 0 : 5000;
      const double to = east ? 5000 : 0;
      Drive(fixes, t, from, from, static_cast<int>(4 + next() % 20));
      const double split = east ? tagged_from : 5000 - tagged_from;
      Drive(fixes, t, from, split, 0);
      Drive(fixes, t, split, to, 0, 0, trip);
    }
    const auto with_ids = Detect(fixes);
    const auto without = Detect(fixes, false);
    ASSERT_EQ(with_ids.size(), without.size()) << seed;
    for (std::size_t i = 0; i < with_ids.size(); ++i) {
      EXPECT_EQ(with_ids[i].departure_time, without[i].departure_time) << seed;
      EXPECT_EQ(with_ids[i].direction_id, without[i].direction_id) << seed;
    }
    EXPECT_EQ(with_ids.size(), 6U) << seed;
  }
}

}  // namespace
}  // namespace frota::batch
