#include "frota/gtfs/terminals.h"

#include <gtest/gtest.h>

#include "frota/geo/haversine.h"
#include "frota/testing/shared_data.h"

namespace frota::gtfs {
namespace {

StaticFeed MustLoad(const std::filesystem::path& path) {
  auto feed = StaticFeed::Load(path);
  EXPECT_TRUE(feed.ok()) << (feed.ok() ? "" : feed.error().message());
  return std::move(feed).value();
}

// A point `metres` north of (lat, lon).
std::pair<double, double> North(double lat, double lon, double metres) {
  return {lat + metres / geo::HaversineM(0, 0, 1, 0), lon};
}

TEST(TerminalIndexBrt2022, IsNearTheEndsOfEveryShapeOfTheRoute) {
  FROTA_REQUIRE_SHARED(path, "rio-brt-2022/gtfs");
  const StaticFeed feed = MustLoad(path);
  const RouteResolver resolver(feed);
  const TerminalIndex terminals(feed, resolver);

  // Route 13 has two shapes (one per direction); their ends are its terminals.
  const Route* route13 = feed.FindRoute("B0013AAF0A");
  ASSERT_NE(route13, nullptr);
  EXPECT_EQ(terminals.TerminalsOf(route13).size(), 4u);
  const Shape& outbound = *feed.FindShape("B0013AAF0AIDU01");
  const ShapePoint start = outbound.points.front();  // Mato Alto
  const ShapePoint end = outbound.points.back();     // Terminal Alvorada
  const ShapePoint middle = outbound.points[outbound.points.size() / 2];
  EXPECT_EQ(terminals.NearTerminal("13", start.lat, start.lon), true);
  EXPECT_EQ(terminals.NearTerminal("13", end.lat, end.lon), true);
  const auto [lat_240, lon_240] = North(end.lat, end.lon, 240);
  EXPECT_EQ(terminals.NearTerminal("13", lat_240, lon_240), true);
  // Mid-route, kilometres from any shape end (checked independently first).
  for (const Shape* shape :
       {feed.FindShape("B0013AAF0AIDU01"), feed.FindShape("B0013AAF0AVDU01")}) {
    for (const ShapePoint& p : {shape->points.front(), shape->points.back()}) {
      ASSERT_GT(geo::HaversineM(middle.lat, middle.lon, p.lat, p.lon), 1000);
    }
  }
  EXPECT_EQ(terminals.NearTerminal("13", middle.lat, middle.lon), false);
  EXPECT_EQ(terminals.NearTerminal("13", middle.lat, middle.lon, 50'000), true) << "custom radius";

  // Resolution applies: 53B is B53, whose outbound shape starts at Sulacap.
  const ShapePoint sulacap = feed.FindShape("B0053AABBAIDU01")->points.front();
  EXPECT_EQ(terminals.NearTerminal("53B", sulacap.lat, sulacap.lon), true);
  EXPECT_EQ(terminals.NearTerminal("13", sulacap.lat, sulacap.lon), false);
  // Unknown routes: no answer rather than a wrong one.
  EXPECT_EQ(terminals.NearTerminal("9999", start.lat, start.lon), std::nullopt);
  EXPECT_EQ(terminals.NearTerminal("", start.lat, start.lon), std::nullopt);
}

TEST(TerminalIndexBrt2022, The250MetreRadiusIsInclusiveAndMeasuredByHaversine) {
  FROTA_REQUIRE_SHARED(path, "rio-brt-2022/gtfs");
  const StaticFeed feed = MustLoad(path);
  const RouteResolver resolver(feed);
  const TerminalIndex terminals(feed, resolver);
  const ShapePoint end = feed.FindShape("B0013AAF0AIDU01")->points.back();
  const auto [lat_260, lon_260] = North(end.lat, end.lon, 260);
  // Unless another terminal of route 13 happens to lie within 250 m of that point.
  bool other_close = false;
  for (const TerminalPoint& t : terminals.TerminalsOf(feed.FindRoute("B0013AAF0A"))) {
    other_close |= geo::HaversineM(lat_260, lon_260, t.lat, t.lon) <= 250;
  }
  EXPECT_EQ(terminals.NearTerminal("13", lat_260, lon_260), other_close);
  const double exact = geo::HaversineM(lat_260, lon_260, end.lat, end.lon);
  EXPECT_EQ(terminals.NearTerminal("13", lat_260, lon_260, exact), true);
}

TEST(TerminalIndex, FallsBackToFirstAndLastStopsForTripsWithoutAShape) {
  const StaticFeed feed = MustLoad(std::filesystem::path(FROTA_GTFS_FIXTURES) / "quirks");
  const RouteResolver resolver(feed);
  const TerminalIndex terminals(feed, resolver);
  // R1: T1 has shape S1 (ends (-22.94,-43.23) and (-22.95,-43.25)); T2 has none, so
  // its lowest and highest stop_sequence stops count: B and C.
  EXPECT_EQ(terminals.TerminalsOf(feed.FindRoute("R1")).size(), 4u);
  EXPECT_EQ(terminals.NearTerminal("R1", -22.94, -43.23), true);
  EXPECT_EQ(terminals.NearTerminal("R1", -22.95, -43.25), true);
  EXPECT_EQ(terminals.NearTerminal("R1", -22.91, -43.18), true) << "stop B";
  EXPECT_EQ(terminals.NearTerminal("R1", -22.92, -43.19), true) << "stop C";
  EXPECT_EQ(terminals.NearTerminal("R1", -22.90, -43.17), false)
      << "stop A is T1's, which has a shape";
  // R2: T3 names a shape that shapes.txt lacks, so its stops D and A count.
  EXPECT_EQ(terminals.NearTerminal("R2", -22.93, -43.20), true);
  EXPECT_EQ(terminals.NearTerminal("R2", -22.90, -43.17), true);
  EXPECT_EQ(terminals.NearTerminal("53B", -22.95, -43.25), true) << "R1 by its short name";
  EXPECT_EQ(terminals.NearTerminal("R9", -22.95, -43.25), std::nullopt);
  EXPECT_TRUE(terminals.TerminalsOf(nullptr).empty());
}

}  // namespace
}  // namespace frota::gtfs
