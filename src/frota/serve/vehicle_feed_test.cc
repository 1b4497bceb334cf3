#include "frota/serve/vehicle_feed.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace frota::serve {
namespace {

namespace fs = std::filesystem;
using codec::StopStatus;
using codec::TripSchedule;

// A line "53" (B53 in the GTFS) running east along a 10 km shape, every 10 minutes
// (exact_times = 0), a scheduled line with one trip at 08:00, and a station beside the
// line's first stop. Rio's zone: UTC-3 all year.
std::shared_ptr<const gtfs::StaticFeed> SmallGtfs() {
  // A folder of its own: ctest runs each test in a process of its own, in parallel.
  const fs::path dir = fs::path(::testing::TempDir()) /
                       ("vehicle_feed_gtfs_" + std::to_string(::getpid()) + "_" +
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::create_directories(dir);
  const auto write = [&](const char* name, const char* text) { std::ofstream(dir / name) << text; };
  write("agency.txt",
        "agency_id,agency_name,agency_url,agency_timezone\n"
        "A,Test,https://example.com,America/Sao_Paulo\n");
  write("routes.txt",
        "route_id,agency_id,route_short_name,route_type\nRB53,A,B53,3\nRSCH,A,900,3\n");
  write("stops.txt",
        "stop_id,stop_name,stop_lat,stop_lon,location_type\n"
        "S1,First,-22.90000,-43.20000,0\nST,Station,-22.90001,-43.20001,1\n"
        "S2,Last,-22.90000,-43.10000,0\n");
  write("trips.txt",
        "route_id,service_id,trip_id,direction_id,shape_id\n"
        "RB53,U,T1,0,SH1\nRSCH,U,T2,1,\n");
  write("stop_times.txt",
        "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
        "T1,00:00:00,00:00:00,S1,1\nT1,01:00:00,01:00:00,S2,2\n"
        "T2,08:00:00,08:00:00,S1,1\nT2,09:00:00,09:00:00,S2,2\n");
  write("frequencies.txt",
        "trip_id,start_time,end_time,headway_secs,exact_times\nT1,05:00:00,23:00:00,600,0\n");
  write("shapes.txt",
        "shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence\n"
        "SH1,-22.90000,-43.20000,1\nSH1,-22.90000,-43.15000,2\nSH1,-22.90000,-43.10000,3\n");
  write("calendar.txt",
        "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,"
        "end_date\nU,1,1,1,1,1,1,1,20240101,20241231\n");
  auto feed = gtfs::StaticFeed::Load(dir);
  EXPECT_TRUE(feed.ok()) << feed.error().message();
  return std::make_shared<const gtfs::StaticFeed>(std::move(*feed));
}

// 2024-06-05 HH:MM:SS in Rio (UTC-3).
base::Timestamp Rio(int h, int m, int s) {
  return base::FromUnixSeconds(1'717'545'600 + (h + 3) * 3600 + m * 60 + s);
}

Vehicle Bus(std::string id, std::string route, double lat, double lon, base::Timestamp t) {
  Vehicle v;
  v.mode = "bus";
  v.position.feed_id = "rio";
  v.position.vehicle_id = std::move(id);
  v.position.route_id = std::move(route);
  v.position.lat = lat;
  v.position.lon = lon;
  v.position.event_time = t;
  return v;
}

Departure Left(std::string vehicle, base::Timestamp t) {
  Departure d;
  d.feed_id = "rio";
  d.vehicle_id = std::move(vehicle);
  d.feed_route_id = "53";
  d.route_id = "RB53";
  d.direction_id = 0;
  d.shape_id = "SH1";
  d.service_date = *base::ParseDate("2024-06-05");
  d.departure_time = t;
  return d;
}

class VehicleFeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto made = VehicleFeed::ForGtfs(SmallGtfs());
    ASSERT_TRUE(made.ok()) << made.error().message();
    feed_ = std::make_unique<VehicleFeed>(std::move(*made));
  }
  codec::VehicleEntity One(const Vehicle& v, const std::vector<Departure>& departures = {}) {
    const auto out = feed_->Describe({v}, departures);
    EXPECT_EQ(out.size(), 1U);
    return out.empty() ? codec::VehicleEntity{} : out.front();
  }
  std::unique_ptr<VehicleFeed> feed_;
};

TEST_F(VehicleFeedTest, ARunOfAFrequencyTripIsItsInstance) {
  const auto e = One(Bus("B1", "53", -22.9, -43.15, Rio(6, 30, 0)), {Left("B1", Rio(6, 2, 17))});
  EXPECT_EQ(e.entity_id, "rio/B1");
  EXPECT_EQ(e.vehicle_id, "rio/B1");
  EXPECT_EQ(e.vehicle_label, "B1");
  EXPECT_EQ(e.trip_id, "T1");
  EXPECT_EQ(e.route_id, "RB53");
  EXPECT_EQ(e.direction_id, 0);
  EXPECT_EQ(e.start_date, "20240605");
  EXPECT_EQ(e.start_time, "06:02:17");  // the detector's departure, not a window's start
  EXPECT_EQ(e.schedule, TripSchedule::kUnscheduled);
  EXPECT_EQ(e.time, Rio(6, 30, 0));
}

TEST_F(VehicleFeedTest, TheLastDepartureBeforeThePositionOnTheSameLine) {
  auto other_line = Left("B1", Rio(6, 20, 0));
  other_line.feed_route_id = "54";
  // A later departure (after the position) and one on another line describe nothing.
  const auto e = One(Bus("B1", "53", -22.9, -43.15, Rio(6, 30, 0)),
                     {Left("B1", Rio(6, 2, 17)), Left("B1", Rio(6, 40, 0))});
  EXPECT_EQ(e.start_time, "06:02:17");
  const auto f = One(Bus("B1", "53", -22.9, -43.15, Rio(6, 30, 0)), {other_line});
  EXPECT_EQ(f.trip_id, "");
  EXPECT_EQ(f.route_id, "RB53");  // "53" resolves to B53 by the same digits
}

TEST_F(VehicleFeedTest, ARunEndsAfterOneAndAHalfTimesItsDurationAndHalfAnHour) {
  // T1 takes an hour: its run lasts 1.5 h + 30 min = 2 h.
  const auto within =
      One(Bus("B1", "53", -22.9, -43.15, Rio(8, 0, 0)), {Left("B1", Rio(6, 2, 17))});
  EXPECT_EQ(within.trip_id, "T1");
  const auto after = One(Bus("B1", "53", -22.9, -43.15, Rio(8, 5, 0)), {Left("B1", Rio(6, 2, 17))});
  EXPECT_EQ(after.trip_id, "");
  EXPECT_EQ(after.start_time, "");
  EXPECT_EQ(after.route_id, "RB53");
  EXPECT_EQ(after.schedule, TripSchedule::kUnscheduled);  // every trip of B53 is exact_times 0
}

TEST_F(VehicleFeedTest, OffItsShapeTheRouteAndDirectionOnly) {
  // 0.01 degrees of latitude north of the shape: 1.1 km.
  const auto e = One(Bus("B1", "53", -22.89, -43.15, Rio(6, 30, 0)), {Left("B1", Rio(6, 2, 17))});
  EXPECT_EQ(e.trip_id, "");
  EXPECT_EQ(e.start_date, "");
  EXPECT_EQ(e.start_time, "");
  EXPECT_EQ(e.route_id, "RB53");
  EXPECT_EQ(e.direction_id, 0);
  EXPECT_EQ(e.schedule, TripSchedule::kUnscheduled);
  // 100 m off: still on it.
  const auto near =
      One(Bus("B1", "53", -22.9009, -43.15, Rio(6, 30, 0)), {Left("B1", Rio(6, 2, 17))});
  EXPECT_EQ(near.trip_id, "T1");
}

TEST_F(VehicleFeedTest, AFrequencyTripTheFeedNamesWithoutARunIsItsRouteOnly) {
  auto bus = Bus("B1", "53", -22.9, -43.15, Rio(6, 30, 0));
  bus.position.trip_id = "T1";
  bus.position.trip_start_date = "20240605";
  bus.position.trip_start_time = "06:00:00";
  const auto e = One(bus);
  EXPECT_EQ(e.trip_id, "");
  EXPECT_EQ(e.start_time, "");
  EXPECT_EQ(e.route_id, "RB53");
  EXPECT_EQ(e.direction_id, 0);
}

TEST_F(VehicleFeedTest, AScheduledTripTheFeedNamesKeepsOnlyItsGtfsStart) {
  auto bus = Bus("C1", "900", -22.9, -43.15, Rio(8, 30, 0));
  bus.position.trip_id = "T2";
  bus.position.trip_start_date = "20240605";
  bus.position.trip_start_time = "08:00:00";
  auto e = One(bus);
  EXPECT_EQ(e.trip_id, "T2");
  EXPECT_EQ(e.route_id, "RSCH");
  EXPECT_EQ(e.direction_id, 1);
  EXPECT_EQ(e.start_date, "20240605");
  EXPECT_EQ(e.start_time, "08:00:00");
  EXPECT_EQ(e.schedule, TripSchedule::kScheduled);
  bus.position.trip_start_time = "08:03:00";    // not the GTFS one (E023)
  bus.position.trip_start_date = "2024-06-05";  // not YYYYMMDD (E021)
  e = One(bus);
  EXPECT_EQ(e.trip_id, "T2");
  EXPECT_EQ(e.start_time, "");
  EXPECT_EQ(e.start_date, "");
}

TEST_F(VehicleFeedTest, AnUnresolvedRouteKeepsTheFeedsCode) {
  const auto e = One(Bus("G1", "GARAGEM", -22.9, -43.15, Rio(6, 30, 0)));
  EXPECT_EQ(e.route_id, "GARAGEM");
  EXPECT_EQ(e.trip_id, "");
  EXPECT_EQ(e.schedule, TripSchedule::kUnset);
}

TEST_F(VehicleFeedTest, StoppedAtAStopWhenStandingWithin30Metres) {
  auto bus = Bus("B1", "53", -22.90010, -43.20000, Rio(6, 30, 0));  // 11 m from S1
  bus.position.reported_speed_kmh = 2;
  auto e = One(bus);
  EXPECT_EQ(e.stop_id, "S1");  // the station beside it is not a stop (location_type 1)
  EXPECT_EQ(e.status, StopStatus::kStoppedAt);
  EXPECT_NEAR(e.speed_mps, 2 / 3.6, 1e-6);
  bus.position.reported_speed_kmh = 30;  // passing by
  EXPECT_EQ(One(bus).stop_id, "");
  bus.position.reported_speed_kmh = NAN;  // unknown: not said to stand
  e = One(bus);
  EXPECT_EQ(e.stop_id, "");
  EXPECT_EQ(e.status, StopStatus::kUnset);
  EXPECT_TRUE(std::isnan(e.speed_mps));
  bus.position.reported_speed_kmh = 0;
  bus.position.lat = -22.9004;  // 44 m away
  EXPECT_EQ(One(bus).stop_id, "");
}

TEST_F(VehicleFeedTest, AircraftAreLeftOutAndOrderKept) {
  auto plane = Bus("e4", "TAM3", -22.9, -43.15, Rio(6, 30, 0));
  plane.mode = "aircraft";
  const auto out = feed_->Describe({Bus("A", "53", -22.9, -43.15, Rio(6, 0, 0)), plane,
                                    Bus("B", "53", -22.9, -43.15, Rio(6, 1, 0))},
                                   {});
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].vehicle_label, "A");
  EXPECT_EQ(out[1].vehicle_label, "B");
}

TEST_F(VehicleFeedTest, BearingOutsideACircleIsLeftOut) {
  auto bus = Bus("B1", "53", -22.9, -43.15, Rio(6, 30, 0));
  bus.position.bearing_deg = 360;
  EXPECT_TRUE(std::isnan(One(bus).bearing_deg));
  bus.position.bearing_deg = 359.5F;
  EXPECT_FLOAT_EQ(One(bus).bearing_deg, 359.5F);
}

TEST_F(VehicleFeedTest, RouteShortNamesComeFromTheGtfs) {
  ASSERT_NE(feed_->RouteShortName("RB53"), nullptr);
  EXPECT_EQ(*feed_->RouteShortName("RB53"), "B53");
  EXPECT_EQ(feed_->RouteShortName("nope"), nullptr);
  EXPECT_EQ(VehicleFeed().RouteShortName("RB53"), nullptr);
}

TEST(VehicleFeedWithoutGtfs, PassesTheFeedsIdsOn) {
  auto bus = Bus("B1", "53", -22.9, -43.15, Rio(6, 30, 0));
  bus.position.trip_id = "anything";
  bus.position.trip_start_date = "20240605";
  bus.position.trip_start_time = "6h";  // not H:MM:SS: left out
  bus.position.direction_id = 1;
  bus.position.reported_speed_kmh = 0;
  const auto out = VehicleFeed().Describe({bus}, {Left("B1", Rio(6, 2, 17))});
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].route_id, "53");
  EXPECT_EQ(out[0].trip_id, "anything");
  EXPECT_EQ(out[0].start_date, "20240605");
  EXPECT_EQ(out[0].start_time, "");
  EXPECT_EQ(out[0].direction_id, 1);
  EXPECT_EQ(out[0].schedule, TripSchedule::kUnset);
  EXPECT_EQ(out[0].stop_id, "");
}

}  // namespace
}  // namespace frota::serve
