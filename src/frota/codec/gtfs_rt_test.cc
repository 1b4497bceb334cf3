#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "frota/codec/codec_test_util.h"
#include "frota/codec/decode.h"
#include "frota/codec/gtfs_realtime.pb.h"
#include "frota/codec/gtfs_rt_internal.h"
#include "frota/testing/shared_data.h"

namespace frota::codec {
namespace {

namespace pb = ::frota::codec::gtfs_realtime;
using model::RejectReason;
using testing_util::CountReasons;
using testing_util::ReadBytes;

constexpr std::uint64_t kHeaderTime = 1'699'405'559;

pb::FeedMessage FeedWithHeader() {
  pb::FeedMessage feed;
  feed.mutable_header()->set_gtfs_realtime_version("2.0");
  feed.mutable_header()->set_timestamp(kHeaderTime);
  return feed;
}

pb::VehiclePosition* AddVehicle(pb::FeedMessage& feed, const std::string& entity_id,
                                float lat = -22.9F, float lon = -43.2F) {
  pb::FeedEntity* entity = feed.add_entity();
  entity->set_id(entity_id);
  pb::VehiclePosition* vehicle = entity->mutable_vehicle();
  vehicle->mutable_vehicle()->set_id("bus-" + entity_id);
  vehicle->mutable_position()->set_latitude(lat);
  vehicle->mutable_position()->set_longitude(lon);
  vehicle->set_timestamp(kHeaderTime - 10);
  return vehicle;
}

DecodedBatch Decode(const std::string& bytes, DecodeOptions options = {}) {
  DecodedBatch batch;
  const auto info = DecodeResponse(Format::kGtfsRt, bytes, options, batch);
  EXPECT_TRUE(info.ok()) << (info.ok() ? "" : info.error().message());
  return batch;
}

// Both decoders, the wire reader and libprotobuf's generated parser, give equal records.
void ExpectDecodersAgree(const std::string& bytes) {
  DecodedBatch fast;
  DecodedBatch reference;
  const auto fast_info = internal::DecodeGtfsRt(bytes, {}, fast);
  const auto reference_info = internal::DecodeGtfsRtWithGeneratedCode(bytes, {}, reference);
  ASSERT_EQ(fast_info.ok(), reference_info.ok());
  ASSERT_EQ(fast.positions.size(), reference.positions.size());
  ASSERT_EQ(fast.rejections.size(), reference.rejections.size());
  for (std::size_t i = 0; i < fast.positions.size(); ++i) {
    EXPECT_EQ(fast.positions[i].vehicle_id, reference.positions[i].vehicle_id);
    EXPECT_EQ(fast.positions[i].trip_id, reference.positions[i].trip_id);
    EXPECT_EQ(fast.positions[i].lat, reference.positions[i].lat);
    EXPECT_EQ(fast.positions[i].event_time, reference.positions[i].event_time);
  }
}

TEST(GtfsRtDecoder, CaltrainPositionsMatchTheJsonRenderingOfTheSameFeed) {
  FROTA_REQUIRE_SHARED(pb_path, "gtfs-rt/caltrain/ct-vehicle-positions.pb");
  FROTA_REQUIRE_SHARED(json_path, "gtfs-rt/caltrain/ct-vehicle-positions.pb.json");
  const auto json = nlohmann::json::parse(ReadBytes(json_path));
  const auto& entities = json.at("entity");

  DecodedBatch batch;
  const auto info = DecodeResponse(Format::kGtfsRt, ReadBytes(pb_path), {}, batch);
  ASSERT_TRUE(info.ok()) << info.error().message();
  ASSERT_EQ(batch.rejections.size(), 0U);
  ASSERT_EQ(batch.positions.size(), entities.size());
  EXPECT_EQ(info->records, static_cast<std::int64_t>(entities.size()));
  const auto header_seconds = std::stoll(json.at("header").at("timestamp").get<std::string>());
  EXPECT_EQ(info->header_time, base::FromUnixSeconds(header_seconds));

  for (std::size_t i = 0; i < entities.size(); ++i) {
    const auto& vehicle = entities[i].at("vehicle");
    const model::Position& position = batch.positions[i];
    SCOPED_TRACE(position.vehicle_id);
    EXPECT_EQ(position.feed_id, "gtfs-rt");
    EXPECT_EQ(position.mode, model::Mode::kBus);
    EXPECT_EQ(position.vehicle_id, vehicle.at("vehicle").at("id").get<std::string>());
    EXPECT_EQ(position.trip_id, vehicle.at("trip").at("tripId").get<std::string>());
    EXPECT_EQ(position.route_id, vehicle.at("trip").at("routeId").get<std::string>());
    EXPECT_EQ(position.direction_id, vehicle.at("trip").at("directionId").get<int>());
    // The JSON prints the float32 with 7 digits; the record keeps the float's exact value.
    EXPECT_NEAR(position.lat, vehicle.at("position").at("latitude").get<double>(), 1e-5);
    EXPECT_NEAR(position.lon, vehicle.at("position").at("longitude").get<double>(), 1e-5);
    EXPECT_EQ(position.event_time,
              base::FromUnixSeconds(std::stoll(vehicle.at("timestamp").get<std::string>())));
    EXPECT_FALSE(position.event_time_from_header);
    EXPECT_EQ(position.ingest_time, base::FromUnixSeconds(header_seconds));
    EXPECT_EQ(position.source.offset, static_cast<std::int64_t>(i));
  }
  // All 14 Caltrain trip ids are the vehicles' own numbers (the data README's fact).
  EXPECT_EQ(testing_util::DistinctVehicles(batch).size(), entities.size());
}

TEST(GtfsRtDecoder, BullrunnerBusesWithoutTimestampsTakeTheHeaderTime) {
  FROTA_REQUIRE_SHARED(path, "gtfs-rt/bullrunner/bullrunner-vehicle-positions.pb");
  DecodedBatch batch;
  const auto info = DecodeResponse(Format::kGtfsRt, ReadBytes(path), {}, batch);
  ASSERT_TRUE(info.ok()) << info.error().message();
  ASSERT_EQ(batch.positions.size(), 10U);
  EXPECT_EQ(batch.rejections.size(), 0U);
  // The header carries an unknown extension (field 1000): skipped, not an error.
  EXPECT_EQ(info->header_time, base::FromUnixSeconds(1'505'314'375));
  const std::vector<std::string> routes = {"F", "F", "B", "C"};
  for (std::size_t i = 0; i < batch.positions.size(); ++i) {
    const auto& position = batch.positions[i];
    EXPECT_TRUE(position.event_time_from_header);
    EXPECT_EQ(position.event_time, base::FromUnixSeconds(1'505'314'375));
    EXPECT_FALSE(position.route_id.empty());
    EXPECT_TRUE(position.trip_id.empty());  // route ids only
    if (i < routes.size()) {
      EXPECT_EQ(position.route_id, routes[i]);
    }
  }
  EXPECT_EQ(batch.positions[0].vehicle_id, "1536");
  EXPECT_EQ(batch.positions[9].vehicle_id, "9012");
  EXPECT_FLOAT_EQ(batch.positions[0].bearing_deg, 180.0F);
  EXPECT_EQ(testing_util::DistinctVehicles(batch).size(), 10U);
}

TEST(GtfsRtDecoder, TripUpdatesOnlyFeedIsAClearErrorNotZeroPositions) {
  FROTA_REQUIRE_SHARED(path, "gtfs-rt/caltrain/ct-trip-updates.pb");
  DecodedBatch batch;
  const auto info = DecodeResponse(Format::kGtfsRt, ReadBytes(path), {}, batch);
  ASSERT_FALSE(info.ok());
  // 19 entities, all trip updates (counted with `protoc --decode_raw`).
  EXPECT_NE(info.error().message().find("without vehicle positions (19 trip updates)"),
            std::string::npos)
      << info.error().message();
  EXPECT_EQ(batch.size(), 0U);
}

TEST(GtfsRtDecoder, AngraFileIsDiagnosedAsPositionsStuffedIntoTripUpdates) {
  FROTA_REQUIRE_SHARED(path, "gtfs-rt/angra-malformed/gtfs_realtime_feed.pb");
  DecodedBatch batch;
  const auto info = DecodeResponse(Format::kGtfsRt, ReadBytes(path), {}, batch);
  ASSERT_FALSE(info.ok());
  const std::string& message = info.error().message();
  EXPECT_NE(message.find("(34 trip updates)"), std::string::npos) << message;
  EXPECT_NE(message.find("34 of them carry a float latitude/longitude pair"), std::string::npos)
      << message;
  EXPECT_NE(message.find("incrementality (field 2) holds 1747360630"), std::string::npos)
      << message;
  EXPECT_EQ(batch.size(), 0U);
}

TEST(GtfsRtDecoder, WireReaderAgreesWithGeneratedParserOnEveryCapture) {
  for (const char* relative :
       {"gtfs-rt/caltrain/ct-vehicle-positions.pb", "gtfs-rt/caltrain/ct-trip-updates.pb",
        "gtfs-rt/bullrunner/bullrunner-vehicle-positions.pb",
        "gtfs-rt/angra-malformed/gtfs_realtime_feed.pb"}) {
    FROTA_REQUIRE_SHARED(path, relative);
    SCOPED_TRACE(relative);
    ExpectDecodersAgree(ReadBytes(path));
  }
}

TEST(GtfsRtDecoder, VehicleIdFallsBackToLabelThenEntityId) {
  pb::FeedMessage feed = FeedWithHeader();
  AddVehicle(feed, "e1");
  AddVehicle(feed, "e2")->mutable_vehicle()->set_id("");
  feed.mutable_entity(1)->mutable_vehicle()->mutable_vehicle()->set_label("label-2");
  AddVehicle(feed, "e3")->clear_vehicle();
  const DecodedBatch batch = Decode(feed.SerializePartialAsString());
  ASSERT_EQ(batch.positions.size(), 3U);
  EXPECT_EQ(batch.positions[0].vehicle_id, "bus-e1");
  EXPECT_EQ(batch.positions[1].vehicle_id, "label-2");
  EXPECT_EQ(batch.positions[2].vehicle_id, "e3");
}

TEST(GtfsRtDecoder, EachMalformedVehicleGetsItsRuleOneReason) {
  pb::FeedMessage feed = FeedWithHeader();
  AddVehicle(feed, "ok");
  AddVehicle(feed, "")->clear_vehicle();  // no id anywhere
  AddVehicle(feed, "no-position")->clear_position();
  AddVehicle(feed, "no-longitude")->mutable_position()->clear_longitude();
  AddVehicle(feed, "north", 91.0F, 10.0F);
  AddVehicle(feed, "east", 10.0F, 181.0F);
  AddVehicle(feed, "island", 0.0F, 0.0F);
  AddVehicle(feed, "millis")->set_timestamp(1'699'405'549'000ULL);
  AddVehicle(feed, "nan", std::nanf(""), 10.0F);
  const DecodedBatch batch = Decode(feed.SerializePartialAsString());
  ASSERT_EQ(batch.positions.size(), 1U);
  ASSERT_EQ(batch.rejections.size(), 8U);
  const std::vector<RejectReason> expected = {
      RejectReason::kMissingVehicleId,        RejectReason::kMissingCoordinates,
      RejectReason::kMissingCoordinates,      RejectReason::kLatitudeOutOfRange,
      RejectReason::kLongitudeOutOfRange,     RejectReason::kNullIsland,
      RejectReason::kTimestampInMilliseconds, RejectReason::kLatitudeOutOfRange};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(batch.rejections[i].reason, expected[i]) << i;
    EXPECT_EQ(batch.rejections[i].feed_id, "gtfs-rt");
    EXPECT_EQ(batch.rejections[i].ingest_time, base::FromUnixSeconds(kHeaderTime));
  }
  EXPECT_EQ(batch.rejections[3].vehicle_id, "bus-north");
  EXPECT_EQ(batch.rejections[3].detail, "latitude=91");
  EXPECT_EQ(batch.rejections[5].detail, "latitude=0 longitude=0");
  EXPECT_EQ(batch.rejections[6].detail, "timestamp=1699405549000");
  EXPECT_EQ(batch.rejections[2].detail, "latitude=-22.9 longitude=<absent>");
  // The rejected vehicle still says when it was seen.
  EXPECT_EQ(batch.rejections[3].event_time, base::FromUnixSeconds(kHeaderTime - 10));
  testing_util::ExpectDenseOffsets(batch, 0);
}

TEST(GtfsRtDecoder, NoVehicleOrHeaderTimestampIsMissingTimestamp) {
  pb::FeedMessage feed;
  feed.mutable_header()->set_gtfs_realtime_version("2.0");
  AddVehicle(feed, "a")->clear_timestamp();
  const DecodedBatch batch = Decode(feed.SerializePartialAsString());
  ASSERT_EQ(batch.rejections.size(), 1U);
  EXPECT_EQ(batch.rejections[0].reason, RejectReason::kMissingTimestamp);
  EXPECT_EQ(batch.rejections[0].detail, "timestamp=<absent> header.timestamp=<absent>");
}

TEST(GtfsRtDecoder, SpeedIsConvertedToKmhAndTripFieldsAreKept) {
  pb::FeedMessage feed = FeedWithHeader();
  pb::VehiclePosition* vehicle = AddVehicle(feed, "a");
  vehicle->mutable_position()->set_speed(10.0F);
  vehicle->mutable_position()->set_bearing(270.0F);
  pb::TripDescriptor* trip = vehicle->mutable_trip();
  trip->set_trip_id("T1");
  trip->set_route_id("R9");
  trip->set_direction_id(1);
  trip->set_start_date("20231107");
  trip->set_start_time("15:37:00");
  const DecodedBatch batch = Decode(feed.SerializePartialAsString());
  ASSERT_EQ(batch.positions.size(), 1U);
  const auto& position = batch.positions[0];
  EXPECT_FLOAT_EQ(position.reported_speed_kmh, 36.0F);
  EXPECT_FLOAT_EQ(position.bearing_deg, 270.0F);
  EXPECT_EQ(position.trip_id, "T1");
  EXPECT_EQ(position.route_id, "R9");
  EXPECT_EQ(position.direction_id, 1);
  EXPECT_EQ(position.trip_start_date, "20231107");
  EXPECT_EQ(position.trip_start_time, "15:37:00");
  EXPECT_TRUE(std::isnan(position.altitude_m));
}

TEST(GtfsRtDecoder, OptionsLabelTimeAndNumberTheRecords) {
  pb::FeedMessage feed = FeedWithHeader();
  AddVehicle(feed, "a");
  AddVehicle(feed, "b", 0.0F, 0.0F);
  AddVehicle(feed, "c");
  DecodeOptions options;
  options.feed_id = "sf-caltrain";
  options.mode = model::Mode::kRail;
  options.source = 7;
  options.first_offset = 100;
  options.ingest_time = base::FromUnixSeconds(kHeaderTime + 3);
  const DecodedBatch batch = Decode(feed.SerializePartialAsString(), options);
  ASSERT_EQ(batch.positions.size(), 2U);
  EXPECT_EQ(batch.positions[0].feed_id, "sf-caltrain");
  EXPECT_EQ(batch.positions[0].mode, model::Mode::kRail);
  EXPECT_EQ(batch.positions[0].source.source, 7U);
  EXPECT_EQ(batch.positions[0].source.offset, 100);
  EXPECT_EQ(batch.rejections[0].source.offset, 101);
  EXPECT_EQ(batch.positions[1].source.offset, 102);
  EXPECT_EQ(batch.positions[1].ingest_time, base::FromUnixSeconds(kHeaderTime + 3));
}

TEST(GtfsRtDecoder, OtherEntityKindsAreSkippedAndCounted) {
  pb::FeedMessage feed = FeedWithHeader();
  AddVehicle(feed, "a");
  pb::FeedEntity* alert = feed.add_entity();
  alert->set_id("alert-1");
  alert->set_alert("\x0a\x00", 2);
  pb::FeedEntity* deleted = feed.add_entity();
  deleted->set_id("gone");
  deleted->set_is_deleted(true);
  DecodedBatch batch;
  const auto info = DecodeResponse(Format::kGtfsRt, feed.SerializePartialAsString(), {}, batch);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->records, 1);
  EXPECT_EQ(info->skipped_entities, 2);
}

TEST(GtfsRtDecoder, AFeedWithNoEntitiesIsEmptyNotAnError) {
  const DecodedBatch batch = Decode(FeedWithHeader().SerializeAsString());
  EXPECT_EQ(batch.size(), 0U);
}

TEST(GtfsRtDecoder, BytesThatAreNotAFeedMessageAreAnErrorAndAppendNothing) {
  DecodedBatch batch;
  batch.positions.emplace_back();  // what an earlier response left in the batch
  for (const std::string& bytes :
       {std::string("{\"json\": true}"), std::string("\x0a\xff\xff\xff\xff\x0f", 6),
        std::string("\x12\x02\x0a\x00", 4)}) {
    const auto info = DecodeResponse(Format::kGtfsRt, bytes, {}, batch);
    EXPECT_FALSE(info.ok());
    EXPECT_EQ(batch.positions.size(), 1U);
  }
}

TEST(GtfsRtDecoder, RepeatedSubmessagesMergeAsProtobufDoes) {
  // One entity whose bytes hold `vehicle` twice: protobuf merges the two, field by field,
  // and the later scalar wins.
  pb::FeedMessage first = FeedWithHeader();
  AddVehicle(first, "a", 10.0F, 20.0F);
  pb::FeedEntity second;
  second.mutable_vehicle()->mutable_position()->set_latitude(11.0F);
  const std::string entity_bytes =
      first.entity(0).SerializeAsString() + second.SerializePartialAsString();
  ASSERT_LT(entity_bytes.size(), 128U);  // a one-byte length below
  std::string bytes = FeedWithHeader().SerializeAsString();
  bytes += '\x12';
  bytes += static_cast<char>(entity_bytes.size());
  bytes += entity_bytes;
  const DecodedBatch batch = Decode(bytes);
  ASSERT_EQ(batch.positions.size(), 1U);
  EXPECT_EQ(batch.positions[0].vehicle_id, "bus-a");
  EXPECT_EQ(batch.positions[0].lat, 11.0);
  EXPECT_EQ(batch.positions[0].lon, 20.0);
  ExpectDecodersAgree(bytes);
}

}  // namespace
}  // namespace frota::codec
