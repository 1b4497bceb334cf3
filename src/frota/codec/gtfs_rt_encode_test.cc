#include "frota/codec/gtfs_rt_encode.h"

#include <gtest/gtest.h>

#include <cmath>

#include "frota/codec/decode.h"
#include "frota/codec/gtfs_realtime.pb.h"

namespace frota::codec {
namespace {

namespace pb = ::frota::codec::gtfs_realtime;

VehicleEntity Make(std::string vehicle, std::string route, double lat, double lon,
                   std::int64_t seconds) {
  VehicleEntity e;
  e.entity_id = "f/" + vehicle;
  e.vehicle_id = e.entity_id;
  e.vehicle_label = std::move(vehicle);
  e.route_id = std::move(route);
  e.lat = lat;
  e.lon = lon;
  e.time = base::FromUnixSeconds(seconds);
  return e;
}

VehicleEntity Full() {
  auto full = Make("v1", "101", -22.9, -43.2, 1'717'580'000);
  full.trip_id = "t1";
  full.start_date = "20240605";
  full.start_time = "06:10:00";
  full.direction_id = 1;
  full.schedule = TripSchedule::kUnscheduled;
  full.speed_mps = 10;
  full.bearing_deg = 90;
  full.stop_id = "s9";
  full.status = StopStatus::kStoppedAt;
  return full;
}

TEST(GtfsRtEncode, DecodesBackToTheSamePositions) {
  auto bare = Make("v2", "<b>x</b>", -22.8, -43.1, 1'717'580'010);
  bare.time += std::chrono::microseconds(400'000);  // fractions are dropped
  const std::string bytes = EncodeVehicleFeed({Full(), bare}, base::FromUnixSeconds(1'717'580'020));

  DecodeOptions options;
  options.feed_id = "f";
  DecodedBatch batch;
  const auto info = DecodeResponse(Format::kGtfsRt, bytes, options, batch);
  ASSERT_TRUE(info.ok()) << info.error().message();
  ASSERT_TRUE(info->header_time.has_value());
  EXPECT_EQ(base::ToUnixMicros(*info->header_time), 1'717'580'020'000'000);
  EXPECT_TRUE(batch.rejections.empty());
  ASSERT_EQ(batch.positions.size(), 2U);
  const auto& a = batch.positions[0];
  EXPECT_EQ(a.vehicle_id, "f/v1");
  EXPECT_EQ(a.route_id, "101");
  EXPECT_EQ(a.trip_id, "t1");
  EXPECT_EQ(a.trip_start_date, "20240605");
  EXPECT_EQ(a.trip_start_time, "06:10:00");
  EXPECT_EQ(a.direction_id, 1);
  EXPECT_NEAR(a.lat, -22.9, 1e-5);
  EXPECT_NEAR(a.lon, -43.2, 1e-5);
  EXPECT_NEAR(a.reported_speed_kmh, 36, 1e-3);
  EXPECT_NEAR(a.bearing_deg, 90, 1e-3);
  EXPECT_EQ(a.event_time, base::FromUnixSeconds(1'717'580'000));
  const auto& b = batch.positions[1];
  EXPECT_EQ(b.vehicle_id, "f/v2");
  EXPECT_EQ(b.route_id, "<b>x</b>");
  EXPECT_EQ(b.trip_id, "");
  EXPECT_EQ(b.direction_id, -1);
  EXPECT_TRUE(std::isnan(b.reported_speed_kmh));
  EXPECT_TRUE(std::isnan(b.bearing_deg));
  EXPECT_EQ(b.event_time, base::FromUnixSeconds(1'717'580'010));
}

// The fields frota's decoder does not read, through the generated parser.
TEST(GtfsRtEncode, WritesScheduleStopAndLabel) {
  auto bare = Make("v2", "", -22.8, -43.1, 1'717'580'010);
  bare.vehicle_label.clear();
  pb::FeedMessage feed;
  ASSERT_TRUE(feed.ParseFromString(
      EncodeVehicleFeed({Full(), bare}, base::FromUnixSeconds(1'717'580'020))));
  EXPECT_EQ(feed.header().gtfs_realtime_version(), "2.0");
  EXPECT_EQ(feed.header().incrementality(), pb::FeedHeader::FULL_DATASET);
  ASSERT_EQ(feed.entity_size(), 2);
  const auto& a = feed.entity(0);
  EXPECT_EQ(a.id(), "f/v1");
  EXPECT_EQ(a.vehicle().vehicle().label(), "v1");
  EXPECT_EQ(a.vehicle().trip().schedule_relationship(), pb::TripDescriptor::UNSCHEDULED);
  EXPECT_EQ(a.vehicle().stop_id(), "s9");
  EXPECT_EQ(a.vehicle().current_status(), pb::VehiclePosition::STOPPED_AT);
  const auto& b = feed.entity(1);
  EXPECT_FALSE(b.vehicle().has_trip());  // nothing known of the trip: no descriptor
  EXPECT_FALSE(b.vehicle().vehicle().has_label());
  EXPECT_FALSE(b.vehicle().has_stop_id());
  EXPECT_FALSE(b.vehicle().has_current_status());
  EXPECT_FALSE(b.vehicle().position().has_speed());
}

TEST(GtfsRtEncode, EmptyFeedHasAHeader) {
  DecodedBatch batch;
  const auto info =
      DecodeResponse(Format::kGtfsRt, EncodeVehicleFeed({}, base::FromUnixSeconds(5)), {}, batch);
  ASSERT_TRUE(info.ok()) << info.error().message();
  EXPECT_TRUE(batch.positions.empty());
  EXPECT_EQ(base::ToUnixMicros(*info->header_time), 5'000'000);
}

}  // namespace
}  // namespace frota::codec
