#include "frota/batch/departures.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>

#include "frota/testing/subprocess.h"

namespace frota::batch {
namespace {

using std::chrono::seconds;

constexpr double kMetresPerDegree = 6'371'008.8 * std::numbers::pi / 180.0;
constexpr double kLat = -22.9;
constexpr double kLon = -43.4;
const double kLonMetres = kMetresPerDegree * std::cos(kLat * std::numbers::pi / 180.0);

// A point `east_m` east and `north_m` north of (kLat, kLon).
std::pair<double, double> At(double east_m, double north_m = 0) {
  return {kLat + north_m / kMetresPerDegree, kLon + east_m / kLonMetres};
}

// Route B53 ("53B" in the feed) runs along a straight 5 km street: shape I eastwards
// (direction 0), shape V back westwards (direction 1); trip B53I has a shape, trip B53X
// none (its first stop is the west terminal).
class DeparturesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& d = dir_.path();
    std::ofstream(d / "agency.txt") << "agency_name,agency_url,agency_timezone\n"
                                       "A,http://a,America/Sao_Paulo\n";
    std::ofstream(d / "routes.txt") << "route_id,route_short_name,route_type\nR53,B53,3\n";
    const auto west = At(0);
    const auto east = At(5000);
    std::ofstream(d / "stops.txt") << fmt::format(
        "stop_id,stop_name,stop_lat,stop_lon\nW,West,{},{}\nE,East,{},{}\n", west.first,
        west.second, east.first, east.second);
    std::ofstream(d / "trips.txt") << "route_id,service_id,trip_id,direction_id,shape_id\n"
                                      "R53,U,B53I,0,SI\nR53,U,B53V,1,SV\nR53,U,B53X,0,\n";
    std::ofstream(d / "stop_times.txt")
        << "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
           "B53X,06:00:00,06:00:00,W,1\nB53X,06:20:00,06:20:00,E,2\n";
    std::ofstream shapes(d / "shapes.txt");
    shapes << "shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence\n";
    for (int i = 0; i <= 50; ++i) {
      const auto p = At(100.0 * i);
      shapes << fmt::format("SI,{},{},{}\n", p.first, p.second, i);
      const auto q = At(5000 - 100.0 * i);
      shapes << fmt::format("SV,{},{},{}\n", q.first, q.second, i);
    }
    shapes.close();
    auto feed = gtfs::StaticFeed::Load(d);
    ASSERT_TRUE(feed.ok()) << feed.error().message();
    feed_.emplace(std::move(feed).value());
    routes_.emplace(*feed_);
    zone_.emplace(*base::TimeZone::Load("America/Sao_Paulo"));
  }

  // Fixes every 30 s from `start`: `standing` fixes at `from_m` (a few metres of jitter),
  // then driving at 8 m/s towards `to_m`, `north_m` off the street.
  void Drive(std::vector<Fix>& fixes, base::Timestamp& t, double from_m, double to_m,
             int standing, double north_m = 0) {
    for (int i = 0; i < standing; ++i) {
      const auto p = At(from_m + (i % 3) * 4.0, north_m + (i % 2) * 3.0);
      fixes.push_back({t, p.first, p.second, "53B"});
      t += seconds(30);
    }
    const double step = (to_m > from_m ? 1 : -1) * 240.0;
    for (double x = from_m + step; (step > 0 ? x <= to_m : x >= to_m); x += step) {
      const auto p = At(x, north_m);
      fixes.push_back({t, p.first, p.second, "53B"});
      t += seconds(30);
    }
  }

  std::vector<Departure> Infer(const std::vector<Fix>& fixes) {
    DepartureInference inference(*feed_, *routes_, *zone_);
    std::vector<Departure> out;
    inference.AddVehicle("feed", "bus-1", fixes, out);
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
  const auto departures = Infer(fixes);
  ASSERT_EQ(departures.size(), 2U);
  EXPECT_EQ(departures[0].route_id, "R53");
  EXPECT_EQ(departures[0].feed_route_id, "53B");
  EXPECT_EQ(departures[0].direction_id, 0);
  EXPECT_EQ(departures[0].shape_id, "SI");
  EXPECT_TRUE(departures[0].inferred);
  // The last fix inside the zone is the one 240 m along, the first outside 480 m along:
  // the edge (250 m) was crossed 10/240 of the 30 s between them after the first.
  const auto inside = start_ + seconds(30 * 10);  // the 240 m fix
  const auto crossed = departures[0].departure_time;
  EXPECT_GT(crossed, inside);
  EXPECT_LT(crossed, inside + seconds(3));
  EXPECT_EQ(departures[1].direction_id, 1);
  EXPECT_EQ(departures[1].shape_id, "SV");
  EXPECT_EQ(base::FormatDate(departures[0].service_date), "2022-08-03");
}

TEST_F(DeparturesTest, JitterAtTheZoneEdgeAfterLeavingIsNotASecondDeparture) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 0, 0, 6);
  for (const double x : {260.0, 245.0, 262.0, 248.0, 270.0}) {  // in and out at the edge
    const auto p = At(x);
    fixes.push_back({t, p.first, p.second, "53B"});
    t += seconds(30);
  }
  Drive(fixes, t, 270, 5000, 0);
  EXPECT_EQ(Infer(fixes).size(), 1U);
}

TEST_F(DeparturesTest, LeavingTheZoneAwayFromTheShapeIsNoDeparture) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 0, 0, 6);
  for (int i = 1; i <= 12; ++i) {  // due north, off the street
    const auto p = At(0, 200.0 * i);
    fixes.push_back({t, p.first, p.second, "53B"});
    t += seconds(30);
  }
  EXPECT_TRUE(Infer(fixes).empty());
}

TEST_F(DeparturesTest, AVehicleNeverSeenAtTheTerminalHasNoDeparture) {
  std::vector<Fix> fixes;
  base::Timestamp t = start_;
  Drive(fixes, t, 600, 5000, 0);
  EXPECT_TRUE(Infer(fixes).empty());
}

TEST_F(DeparturesTest, ARouteNameThatResolvesNowhereCannotBeInferred) {
  DepartureInference inference(*feed_, *routes_, *zone_);
  EXPECT_TRUE(inference.CanInfer("53B"));
  EXPECT_TRUE(inference.CanInfer("B53"));
  EXPECT_FALSE(inference.CanInfer("99"));
}

TEST_F(DeparturesTest, TripsDepartWhenTheyStartNearTheShapeOrFirstStop) {
  const auto near = At(400);
  const auto far = At(1500);
  std::vector<model::TripRow> trips(4);
  trips[0].trip_id = "B53I";
  std::tie(trips[0].first_lat, trips[0].first_lon) = near;
  trips[1].trip_id = "B53I";
  std::tie(trips[1].first_lat, trips[1].first_lon) = far;
  trips[2].trip_id = "B53X";  // no shape: its first stop, the west terminal
  std::tie(trips[2].first_lat, trips[2].first_lon) = near;
  trips[3].trip_id = "unknown";
  std::tie(trips[3].first_lat, trips[3].first_lon) = near;
  for (auto& t : trips) {
    t.feed_id = "feed";
    t.vehicle_id = "bus";
    t.trip_start_date = "20220803";
    t.first_time = start_;
  }
  const auto departures = DeparturesFromTrips(trips, *feed_, *zone_);
  ASSERT_EQ(departures.size(), 2U);
  EXPECT_EQ(departures[0].trip_id, "B53I");
  EXPECT_NEAR(departures[0].distance_m, 400, 1);
  EXPECT_FALSE(departures[0].inferred);
  EXPECT_EQ(departures[0].direction_id, 0);
  EXPECT_EQ(departures[1].trip_id, "B53X");
  EXPECT_EQ(departures[0].departure_time, start_);
}

}  // namespace
}  // namespace frota::batch
