#include "frota/sim/city.h"

#include <gtest/gtest.h>

#include "frota/gtfs/static_feed.h"
#include "frota/sim/schedule.h"
#include "frota/sim/sim_test_util.h"

namespace frota::sim {
namespace {

using testing_util::ScratchDir;
using testing_util::TestDate;

TEST(SimCity, WrittenGtfsLoadsWithTheProjectsReader) {
  ScratchDir dir("city-gtfs");
  const City city = BuildCity({120, 5, TestDate()});
  ASSERT_TRUE(WriteCityGtfs(city, dir.path() / "gtfs").ok());
  const auto feed = gtfs::StaticFeed::Load(dir.path() / "gtfs");
  ASSERT_TRUE(feed.ok()) << feed.error().message();
  const auto counts = feed->counts();
  EXPECT_EQ(counts.agencies, 1);
  EXPECT_EQ(counts.routes, static_cast<std::int64_t>(city.routes.size()));
  EXPECT_EQ(counts.trips, static_cast<std::int64_t>(city.trips.size()));
  EXPECT_EQ(counts.shapes, 2 * counts.routes);
  EXPECT_EQ(counts.services, 3);
  EXPECT_GT(counts.frequencies, 0);  // route 107 is frequency-based
  EXPECT_GT(counts.stop_times, counts.trips * 3);
  EXPECT_EQ(feed->time_zone(), "America/Sao_Paulo");
  // A Wednesday runs the weekday service, a holiday the Sunday one.
  EXPECT_EQ(feed->ActiveServices(TestDate()), std::vector<std::string>{"U"});
  EXPECT_EQ(feed->ActiveServices(*base::ParseDate("2024-05-01")), std::vector<std::string>{"D"});
  EXPECT_EQ(feed->ActiveServices(*base::ParseDate("2024-06-08")), std::vector<std::string>{"S"});
}

TEST(SimCity, BoundaryEnclosesEveryStopAndHasAnIsland) {
  ScratchDir dir("city-area");
  const City city = BuildCity({120, 5, TestDate()});
  ASSERT_TRUE(WriteCityGeoJson(city, dir.path() / "area.geojson").ok());
  const auto area = geo::Area::LoadGeoJson(dir.path() / "area.geojson");
  ASSERT_TRUE(area.ok()) << area.error().message();
  EXPECT_EQ(area->rings().size(), 2U);
  for (const auto& stop : city.stops) {
    EXPECT_TRUE(area->Contains(stop.position.lat, stop.position.lon)) << stop.id;
  }
  EXPECT_FALSE(area->Contains(city.center.lat + 2, city.center.lon));
}

TEST(SimCity, WeekdayPeakFleetIsTheRequestedSize) {
  for (const std::int32_t vehicles : {60, 400}) {
    const City city = BuildCity({vehicles, 11, TestDate()});
    EXPECT_NEAR(city.planned_peak_vehicles, vehicles, vehicles * 0.05) << vehicles;
  }
}

TEST(SimCity, TheSameSeedBuildsTheSameCity) {
  const City a = BuildCity({60, 3, TestDate()});
  const City b = BuildCity({60, 3, TestDate()});
  const City c = BuildCity({60, 4, TestDate()});
  ASSERT_EQ(a.trips.size(), b.trips.size());
  for (std::size_t i = 0; i < a.trips.size(); ++i) {
    EXPECT_EQ(a.trips[i].id, b.trips[i].id);
    EXPECT_EQ(a.trips[i].departure_s, b.trips[i].departure_s);
  }
  EXPECT_NE(a.routes[0].shape[0].points().front().lat, c.routes[0].shape[0].points().front().lat);
}

TEST(SimSchedule, PlanExpandsFrequenciesAndFindsStopsAlongShapes) {
  ScratchDir dir("city-plan");
  const City city = BuildCity({120, 5, TestDate()});
  ASSERT_TRUE(WriteCityGtfs(city, dir.path() / "gtfs").ok());
  const auto feed = gtfs::StaticFeed::Load(dir.path() / "gtfs");
  ASSERT_TRUE(feed.ok());
  const auto plan = PlanDay(*feed, TestDate(), city.traffic);
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  std::int64_t frequency_instances = 0;
  std::int64_t weekday_trips = 0;
  for (const auto& trip : city.trips) {
    weekday_trips +=
        trip.service == 'U' && !city.routes[static_cast<std::size_t>(trip.route)].frequency_based;
  }
  for (const auto& trip : plan->trips) {
    frequency_instances += trip.frequency_based;
    EXPECT_GT(trip.arrival_s, trip.departure_s);
  }
  EXPECT_GT(frequency_instances, 0);
  EXPECT_EQ(static_cast<std::int64_t>(plan->trips.size()) - frequency_instances, weekday_trips);
  EXPECT_TRUE(
      std::is_sorted(plan->trips.begin(), plan->trips.end(),
                     [](const auto& a, const auto& b) { return a.departure_s < b.departure_s; }));
  // Every intersection the route passes is a stop: interior stops are found on the shape.
  const auto& route = city.routes[0];
  for (const auto& shape : plan->shapes) {
    if (shape.id == route.shape_id[0]) {
      EXPECT_EQ(shape.stop_s.size() + 2, route.stops[0].size());
    }
  }
  EXPECT_EQ(plan->service_day_start, base::FromUnixSeconds(1717556400));  // 2024-06-05 00:00 -03
}

TEST(SimSchedule, BlocksChainTripsAtTheirTerminals) {
  // Two terminals 5 km apart, trips every 10 minutes each way, 25 minutes long.
  std::vector<BlockInput> trips;
  const LatLon a{-22.9, -43.3};
  const LatLon b{-22.9, -43.25};
  for (int k = 0; k < 12; ++k) {
    trips.push_back({0, 6 * 3600 + k * 600, 6 * 3600 + k * 600 + 1500, a, b});
    trips.push_back({0, 6 * 3600 + k * 600 + 300, 6 * 3600 + k * 600 + 1800, b, a});
  }
  const auto blocks = BuildBlocks(trips, BlockOptions{});
  std::size_t total = 0;
  for (const auto& block : blocks) {
    total += block.size();
    for (std::size_t i = 1; i < block.size(); ++i) {
      const auto& previous = trips[static_cast<std::size_t>(block[i - 1])];
      const auto& next = trips[static_cast<std::size_t>(block[i])];
      EXPECT_GE(next.departure_s - previous.arrival_s, 180);
      EXPECT_EQ(next.start.lon, previous.end.lon);
    }
  }
  EXPECT_EQ(total, trips.size());
  // A round trip is 50 minutes of driving plus the waits for the next departure at each
  // end (10 and 5 minutes): 70 minutes at 10-minute headways, 7 buses.
  EXPECT_EQ(PeakVehicles(trips, blocks, 0, 0), 7);
}

}  // namespace
}  // namespace frota::sim
