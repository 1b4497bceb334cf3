#include "frota/transport/payload.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

namespace frota::transport {
namespace {

model::Position FullPosition(model::SourceCatalog& catalog) {
  model::Position p;
  p.feed_id = "rio-brt";
  p.vehicle_id = "90436";
  p.route_id = "13";
  p.trip_id = "T1";
  p.trip_start_date = "20220630";
  p.trip_start_time = "06:30:00";
  p.direction_id = 1;
  p.mode = model::Mode::kBrt;
  p.event_time_from_header = true;
  p.lat = -22.9725012345678;
  p.lon = -43.3652000000001;
  p.reported_speed_kmh = 41.7F;
  p.bearing_deg = 271.25F;
  p.altitude_m = 12.3F;
  p.on_ground = 1;
  p.event_time = base::FromUnixMicros(1'656'570'891'123'456);
  p.ingest_time = base::FromUnixMicros(1'656'570'919'000'001);
  p.source = {catalog.Intern("/data/gps/13.csv.gz"), 123'456};
  return p;
}

bool SameBits(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

void ExpectEqual(const model::Position& a, const model::Position& b, const model::SourceCatalog& ca,
                 const model::SourceCatalog& cb) {
  EXPECT_EQ(a.feed_id, b.feed_id);
  EXPECT_EQ(a.vehicle_id, b.vehicle_id);
  EXPECT_EQ(a.route_id, b.route_id);
  EXPECT_EQ(a.trip_id, b.trip_id);
  EXPECT_EQ(a.trip_start_date, b.trip_start_date);
  EXPECT_EQ(a.trip_start_time, b.trip_start_time);
  EXPECT_EQ(a.direction_id, b.direction_id);
  EXPECT_EQ(a.mode, b.mode);
  EXPECT_EQ(a.event_time_from_header, b.event_time_from_header);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a.lat), std::bit_cast<std::uint64_t>(b.lat));
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a.lon), std::bit_cast<std::uint64_t>(b.lon));
  EXPECT_TRUE(SameBits(a.reported_speed_kmh, b.reported_speed_kmh) ||
              (std::isnan(a.reported_speed_kmh) && std::isnan(b.reported_speed_kmh)));
  EXPECT_TRUE(SameBits(a.bearing_deg, b.bearing_deg) ||
              (std::isnan(a.bearing_deg) && std::isnan(b.bearing_deg)));
  EXPECT_TRUE(SameBits(a.altitude_m, b.altitude_m) ||
              (std::isnan(a.altitude_m) && std::isnan(b.altitude_m)));
  EXPECT_EQ(a.on_ground, b.on_ground);
  EXPECT_EQ(a.event_time, b.event_time);
  EXPECT_EQ(a.ingest_time, b.ingest_time);
  EXPECT_EQ(ca.Name(a.source.source), cb.Name(b.source.source));
  EXPECT_EQ(a.source.offset, b.source.offset);
  EXPECT_EQ(a.origin_country, b.origin_country);
  EXPECT_EQ(a.has_origin_country, b.has_origin_country);
  EXPECT_EQ(a.last_contact, b.last_contact);
}

class PayloadRoundTrip : public ::testing::TestWithParam<PayloadFormat> {};

TEST_P(PayloadRoundTrip, APositionComesBackBitForBitWithItsOriginalProvenance) {
  model::SourceCatalog producer;
  model::SourceCatalog consumer;
  consumer.Intern("something else first");  // ids differ between processes; names do not
  std::string bytes;
  for (const int variant : {0, 1, 2, 3, 4}) {
    const bool sparse = variant == 1;
    model::Position p = FullPosition(producer);
    if (variant >= 2) {  // an aircraft: both fields, a last contact alone, a blank country
      p.mode = model::Mode::kAircraft;
      p.origin_country = variant == 2 ? "Côte d'Ivoire" : "";
      p.has_origin_country = variant != 3;
      p.last_contact = variant == 2 ? -5 : (variant == 3 ? 1'656'570'892 : model::kNoLastContact);
    }
    if (sparse) {  // every optional field absent
      p.direction_id = -1;
      p.on_ground = -1;
      p.reported_speed_kmh = NAN;
      p.bearing_deg = NAN;
      p.altitude_m = NAN;
      p.route_id.clear();
      p.trip_id.clear();
      p.event_time_from_header = false;
      p.ingest_time = p.event_time - std::chrono::seconds(40);  // a future record
    }
    EncodePosition(p, producer.Name(p.source.source), GetParam(), bytes);
    auto decoded = DecodePayload(bytes, consumer);
    ASSERT_TRUE(decoded.ok()) << decoded.error().message();
    ASSERT_TRUE(std::holds_alternative<model::Position>(*decoded));
    ExpectEqual(p, std::get<model::Position>(*decoded), producer, consumer);
  }
}

TEST_P(PayloadRoundTrip, ARejectionAndAnEndMarkerComeBack) {
  model::SourceCatalog producer;
  model::SourceCatalog consumer;
  // One without an event time and one without an ingest time: each time, present and
  // absent, comes back as it went.
  const auto rejection = [&producer](model::RejectReason reason, std::string feed,
                                     std::string vehicle, std::int64_t offset) {
    model::Rejection r;
    r.reason = reason;
    r.feed_id = std::move(feed);
    r.vehicle_id = std::move(vehicle);
    r.source = {producer.Intern("a.json"), offset};
    return r;
  };
  model::Rejection malformed =
      rejection(model::RejectReason::kLatitudeOutOfRange, "rio-sppo", "", 7);
  malformed.ingest_time = base::FromUnixMicros(1'656'570'919'000'000);
  malformed.detail = "latitude=\"-122,5\"";
  model::Rejection stale = rejection(model::RejectReason::kStale, "rio-brt", "86811", 8);
  stale.event_time = base::FromUnixMicros(1'656'570'000'123'456);
  std::string bytes;
  for (const model::Rejection& r : {malformed, stale}) {
    SCOPED_TRACE(std::string(model::RejectReasonName(r.reason)));
    EncodeRejection(r, "a.json", GetParam(), bytes);
    auto decoded = DecodePayload(bytes, consumer);
    ASSERT_TRUE(decoded.ok()) << decoded.error().message();
    const auto& back = std::get<model::Rejection>(*decoded);
    EXPECT_EQ(back.reason, r.reason);
    EXPECT_EQ(back.feed_id, r.feed_id);
    EXPECT_EQ(back.vehicle_id, r.vehicle_id);
    EXPECT_EQ(back.event_time, r.event_time);
    EXPECT_EQ(back.ingest_time, r.ingest_time);
    EXPECT_EQ(consumer.Name(back.source.source), "a.json");
    EXPECT_EQ(back.source.offset, r.source.offset);
    EXPECT_EQ(back.detail, r.detail);
  }

  EncodeEndOfInput({"run-1", 4242}, GetParam(), bytes);
  const auto decoded = DecodePayload(bytes, consumer);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message();
  EXPECT_EQ(std::get<EndOfInput>(*decoded), (EndOfInput{"run-1", 4242}));

  // Polls: an archived 200 and a timeout (no status, no records, no body).
  model::PollRow ok{"rio-brt", base::FromUnixMicros(1717600000123456),
                    1,         200,
                    "",        51234,
                    812.25,    true,
                    2817,      "bronze/rio-brt/date=2024-06-05/hour=15/x.json",
                    "run-7"};
  model::PollRow timeout{"rio-brt",
                         base::FromUnixMicros(1717600030000001),
                         3,
                         0,
                         "timeout",
                         0,
                         10000.5,
                         false,
                         std::nullopt,
                         "",
                         "run-7"};
  for (const auto& poll : {ok, timeout}) {
    EncodePoll(poll, GetParam(), bytes);
    const auto back = DecodePayload(bytes, consumer);
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_EQ(std::get<model::PollRow>(*back), poll);
  }
  // A poll whose numbers cannot be a request's is not a payload.
  model::PollRow bad = ok;
  bad.attempt = 0;
  EncodePoll(bad, GetParam(), bytes);
  EXPECT_FALSE(DecodePayload(bytes, consumer).ok());
}

std::string FormatName(const ::testing::TestParamInfo<PayloadFormat>& param) {
  return param.param == PayloadFormat::kBinary ? "Binary" : "Json";
}

INSTANTIATE_TEST_SUITE_P(Formats, PayloadRoundTrip,
                         ::testing::Values(PayloadFormat::kBinary, PayloadFormat::kJson),
                         FormatName);

TEST(Payload, TheBinaryFormIsCompact) {
  model::SourceCatalog catalog;
  std::string bytes;
  const auto p = FullPosition(catalog);
  EncodePosition(p, catalog.Name(p.source.source), PayloadFormat::kBinary, bytes);
  EXPECT_LT(bytes.size(), 120U);
  EXPECT_EQ(static_cast<std::uint8_t>(bytes[0]), kPayloadMagic);
  EXPECT_EQ(bytes[1], 1);
}

TEST(Payload, EveryDefectIsAnErrorThatSaysWhat) {
  model::SourceCatalog catalog;
  std::string good;
  const auto p = FullPosition(catalog);
  EncodePosition(p, "s", PayloadFormat::kBinary, good);
  const auto message = [&](std::string_view bytes) {
    const auto r = DecodePayload(bytes, catalog);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.error().message();
  };
  EXPECT_EQ(message(""), "empty payload");
  EXPECT_EQ(message("hello"), "not a frota payload (first byte 0x68)");
  std::string newer = good;
  newer[1] = 2;
  EXPECT_EQ(message(newer), "payload version 2, this frota reads version 1");
  std::string kind = good;
  kind[2] = 9;
  EXPECT_EQ(message(kind), "unknown payload kind 9");
  EXPECT_NE(message(good.substr(0, good.size() - 1)).find("truncated"), std::string::npos);
  EXPECT_EQ(message(good + "x"), "1 trailing bytes after the record");
  {
    // An aircraft's trailer: flag bit 7 set, the trailer's flags, then a blank country.
    auto aircraft = p;
    aircraft.has_origin_country = true;
    std::string bytes;
    EncodePosition(aircraft, "s", PayloadFormat::kBinary, bytes);
    EXPECT_EQ(message(bytes + "x"), "1 trailing bytes after the record");
    std::string bad_flags = bytes;
    bad_flags[bad_flags.size() - 2] = '\x04';
    EXPECT_EQ(message(bad_flags), "bad aircraft flags 0x04");
    bad_flags[bad_flags.size() - 2] = '\x00';
    EXPECT_EQ(message(bad_flags), "bad aircraft flags 0x00");
    EXPECT_NE(message(bytes.substr(0, bytes.size() - 1)).find("truncated"), std::string::npos);
    EXPECT_EQ(message(R"({"v":1,"kind":"position","feed_id":"f","vehicle_id":"v","route_id":"",)"
                      R"("trip_id":"","trip_start_date":"","trip_start_time":"","mode":"aircraft",)"
                      R"("lat":1,"lon":1,"event_time":"2024-06-05T10:00:00Z",)"
                      R"("ingest_time":"2024-06-05T10:00:05Z","source":"s","offset":0,)"
                      R"("last_contact":1.5})"),
              "JSON payload field \"last_contact\" is not an integer");
  }
  EXPECT_EQ(message("{\"v\":1,\"kind\":\"position\"}"), "JSON payload has no \"feed_id\"");
  EXPECT_EQ(message("{not json"), "not a JSON object");
  // Every truncation of a valid payload fails cleanly.
  for (std::size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(DecodePayload(std::string_view(good).substr(0, n), catalog).ok()) << n;
  }
}

TEST(Payload, KeysPutEveryMessageOfAVehicleUnderOneKey) {
  EXPECT_EQ(MessageKey("rio-brt", "90436"), "rio-brt/90436");
  EXPECT_EQ(MessageKey("rio-sppo", ""), "rio-sppo/");
}

}  // namespace
}  // namespace frota::transport
