#include "frota/codec/gtfs_rt_encode.h"

#include <gtest/gtest.h>

#include <cmath>

#include "frota/codec/decode.h"

namespace frota::codec {
namespace {

model::Position Make(std::string vehicle, std::string route, double lat, double lon,
                     std::int64_t seconds) {
  model::Position p;
  p.feed_id = "f";
  p.vehicle_id = std::move(vehicle);
  p.route_id = std::move(route);
  p.lat = lat;
  p.lon = lon;
  p.event_time = base::FromUnixSeconds(seconds);
  return p;
}

TEST(GtfsRtEncode, DecodesBackToTheSamePositions) {
  auto full = Make("v1", "101", -22.9, -43.2, 1'717'580'000);
  full.trip_id = "t1";
  full.trip_start_date = "20240605";
  full.trip_start_time = "06:10:00";
  full.direction_id = 1;
  full.reported_speed_kmh = 36;
  full.bearing_deg = 90;
  auto bare = Make("v2", "<b>x</b>", -22.8, -43.1, 1'717'580'010);
  bare.event_time += std::chrono::microseconds(400'000);  // fractions are dropped
  const std::string bytes =
      EncodeVehiclePositions({full, bare}, base::FromUnixSeconds(1'717'580'020));

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
  EXPECT_EQ(a.vehicle_id, "v1");
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
  EXPECT_EQ(b.vehicle_id, "v2");
  EXPECT_EQ(b.route_id, "<b>x</b>");
  EXPECT_EQ(b.trip_id, "");
  EXPECT_EQ(b.direction_id, -1);
  EXPECT_TRUE(std::isnan(b.reported_speed_kmh));
  EXPECT_TRUE(std::isnan(b.bearing_deg));
  EXPECT_EQ(b.event_time, base::FromUnixSeconds(1'717'580'010));
}

TEST(GtfsRtEncode, EmptyFeedHasAHeader) {
  DecodedBatch batch;
  const auto info = DecodeResponse(Format::kGtfsRt,
                                   EncodeVehiclePositions({}, base::FromUnixSeconds(5)), {}, batch);
  ASSERT_TRUE(info.ok()) << info.error().message();
  EXPECT_TRUE(batch.positions.empty());
  EXPECT_EQ(base::ToUnixMicros(*info->header_time), 5'000'000);
}

}  // namespace
}  // namespace frota::codec
