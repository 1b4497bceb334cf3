#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "frota/codec/codec_test_util.h"
#include "frota/codec/decode.h"
#include "frota/testing/shared_data.h"

namespace frota::codec {
namespace {

using model::RejectReason;
using testing_util::CountReasons;
using testing_util::ReadBytes;

DecodedBatch Decode(std::string_view json, DecodeOptions options = {}) {
  DecodedBatch batch;
  const auto info = DecodeResponse(Format::kOpenSky, json, options, batch);
  EXPECT_TRUE(info.ok()) << (info.ok() ? "" : info.error().message());
  return batch;
}

// What semantics.md section 8 says a states/all file holds, computed with nlohmann-json.
struct Expected {
  std::size_t states = 0;
  std::size_t without_position = 0;
  std::set<std::string> aircraft;  // among states with a position
};

Expected Tally(const nlohmann::json& json) {
  Expected expected;
  if (json.at("states").is_null()) {
    return expected;
  }
  for (const auto& state : json.at("states")) {
    ++expected.states;
    if (state[5].is_null() || state[6].is_null()) {
      ++expected.without_position;
    } else {
      expected.aircraft.insert(state[0].get<std::string>());
    }
  }
  return expected;
}

void ExpectFileDecodesLikeItsJson(const std::filesystem::path& path) {
  SCOPED_TRACE(path.string());
  const std::string bytes = ReadBytes(path);
  const auto json = nlohmann::json::parse(bytes);
  const Expected expected = Tally(json);
  DecodedBatch batch;
  const auto info = DecodeResponse(Format::kOpenSky, bytes, {}, batch);
  ASSERT_TRUE(info.ok()) << info.error().message();
  EXPECT_EQ(info->records, static_cast<std::int64_t>(expected.states));
  EXPECT_EQ(info->header_time, base::FromUnixSeconds(json.at("time").get<std::int64_t>()));
  EXPECT_EQ(batch.positions.size(), expected.states - expected.without_position);
  std::map<std::string, std::int64_t> reasons;
  if (expected.without_position > 0) {
    reasons["missing_coordinates"] = static_cast<std::int64_t>(expected.without_position);
  }
  EXPECT_EQ(CountReasons(batch), reasons);
  EXPECT_EQ(testing_util::DistinctVehicles(batch), expected.aircraft);
  testing_util::ExpectDenseOffsets(batch, 0);

  std::size_t next_position = 0;
  for (const auto& state :
       json.at("states").is_null() ? nlohmann::json::array() : json.at("states")) {
    if (state[5].is_null() || state[6].is_null()) {
      continue;
    }
    const model::Position& position = batch.positions[next_position++];
    ASSERT_EQ(position.vehicle_id, state[0].get<std::string>());
    std::string callsign = state[1].is_null() ? "" : state[1].get<std::string>();
    callsign.erase(callsign.find_last_not_of(' ') + 1);
    callsign.erase(0, callsign.find_first_not_of(' ') == std::string::npos
                          ? callsign.size()
                          : callsign.find_first_not_of(' '));
    ASSERT_EQ(position.route_id, callsign);
    ASSERT_EQ(position.lon, state[5].get<double>());
    ASSERT_EQ(position.lat, state[6].get<double>());
    const auto& time = state[3].is_null() ? state[4] : state[3];
    ASSERT_EQ(position.event_time, base::FromUnixSeconds(time.get<std::int64_t>()));
    ASSERT_EQ(position.ingest_time, base::FromUnixSeconds(json.at("time").get<std::int64_t>()));
    ASSERT_EQ(position.on_ground, state[8].get<bool>() ? 1 : 0);
    if (!state[7].is_null()) {
      ASSERT_FLOAT_EQ(position.altitude_m, state[7].get<float>());
    } else if (!state[13].is_null()) {
      ASSERT_FLOAT_EQ(position.altitude_m, state[13].get<float>());
    } else {
      ASSERT_TRUE(std::isnan(position.altitude_m));
    }
    if (!state[9].is_null()) {
      ASSERT_FLOAT_EQ(position.reported_speed_kmh,
                      static_cast<float>(state[9].get<double>() * 3.6));
    }
    if (!state[10].is_null()) {
      ASSERT_FLOAT_EQ(position.bearing_deg, state[10].get<float>());
    }
    ASSERT_EQ(position.mode, model::Mode::kAircraft);
    ASSERT_EQ(position.origin_country, state[2].get<std::string>());
    ASSERT_TRUE(position.has_origin_country);
    ASSERT_EQ(position.last_contact, state[4].get<std::int64_t>());
  }
}

TEST(OpenSkyDecoder, GlobalCaptureOf2021Has5485StatesAnd101WithoutPosition) {
  FROTA_REQUIRE_SHARED(path, "opensky/global_states_all_1634471390.json");
  const auto json = nlohmann::json::parse(ReadBytes(path));
  const Expected expected = Tally(json);
  ASSERT_EQ(expected.states, 5485U);
  ASSERT_EQ(expected.without_position, 101U);

  DecodedBatch batch;
  ASSERT_TRUE(DecodeResponse(Format::kOpenSky, ReadBytes(path), {}, batch).ok());
  EXPECT_EQ(batch.positions.size(), 5384U);
  EXPECT_EQ(CountReasons(batch),
            (std::map<std::string, std::int64_t>{{"missing_coordinates", 101}}));
  EXPECT_EQ(testing_util::MinEventTime(batch), "2021-10-17T09:01:37Z");
  EXPECT_EQ(testing_util::MaxEventTime(batch), "2021-10-17T11:49:50Z");
  for (const auto& rejection : batch.rejections) {
    EXPECT_FALSE(rejection.vehicle_id.empty());
    EXPECT_EQ(rejection.detail, "latitude=null longitude=null");
    EXPECT_EQ(rejection.ingest_time, base::FromUnixSeconds(1634471390));
  }
  ExpectFileDecodesLikeItsJson(path);
}

TEST(OpenSkyDecoder, EveryRealCaptureDecodesLikeItsJson) {
  FROTA_REQUIRE_SHARED(dir, "opensky");
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().extension() == ".json") {
      files.push_back(entry.path());
    }
  }
  ASSERT_GE(files.size(), 9U);  // 4 snapshots and 5 Denver polls
  for (const auto& file : files) {
    ExpectFileDecodesLikeItsJson(file);
  }
}

TEST(OpenSkyDecoder, ExtendedCaptureWith18FieldsDecodes) {
  FROTA_REQUIRE_SHARED(path, "opensky/global_states_all_extended_1649392659.json");
  DecodedBatch batch;
  ASSERT_TRUE(DecodeResponse(Format::kOpenSky, ReadBytes(path), {}, batch).ok());
  EXPECT_EQ(batch.size(), 4181U);
  EXPECT_EQ(CountReasons(batch),
            (std::map<std::string, std::int64_t>{{"missing_coordinates", 56}}));
}

TEST(OpenSkyDecoder, NullStatesMeansNoAircraftNotAnError) {
  DecodedBatch batch;
  const auto info =
      DecodeResponse(Format::kOpenSky, R"({"time": 1615108010, "states": null})", {}, batch);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->records, 0);
  EXPECT_EQ(info->header_time, base::FromUnixSeconds(1615108010));
}

TEST(OpenSkyDecoder, ShortVectorsAndBadTimesGetTheirReasons) {
  const DecodedBatch batch = Decode(R"({"states": [
    ["a1", "X", "US", 1615108009, 1615108010, -118.1, 33.8],
    ["a2", "   ", "US", 1615108009000, 1615108010, -118.1, 33.8, null, false, null, null, null, null, null, null, false, 0],
    ["a3", null, "US", null, null, -118.1, 33.8, null, true, null, null, null, null, 120.5, null, false, 0],
    [null, "X", "US", 1615108009, 1615108010, -118.1, 33.8, null, false, null, null, null, null, null, null, false, 0],
    ["a5", "  UAL1 ", "US", null, 1615108010, -118.1, 33.8, null, true, 10, 90, null, [1, 2], 99.5, null, false, 0],
    "a6"
  ], "time": 1615108010})");
  ASSERT_EQ(batch.rejections.size(), 5U);
  EXPECT_EQ(batch.rejections[0].reason, RejectReason::kStateVectorTooShort);
  EXPECT_EQ(batch.rejections[0].detail, "7 fields, expected at least 17");
  EXPECT_EQ(batch.rejections[1].reason, RejectReason::kTimestampInMilliseconds);
  EXPECT_EQ(batch.rejections[1].detail, "time_position=1615108009000");
  EXPECT_EQ(batch.rejections[2].reason, RejectReason::kMissingTimestamp);
  EXPECT_EQ(batch.rejections[3].reason, RejectReason::kMissingVehicleId);
  EXPECT_EQ(batch.rejections[4].reason, RejectReason::kMalformedRecord);
  EXPECT_EQ(batch.rejections[4].detail, "state vector is a string, not an array");
  // `time` comes after `states` here, and still times every record.
  EXPECT_EQ(batch.rejections[0].ingest_time, base::FromUnixSeconds(1615108010));

  ASSERT_EQ(batch.positions.size(), 1U);
  const auto& position = batch.positions[0];
  EXPECT_EQ(position.vehicle_id, "a5");
  EXPECT_EQ(position.route_id, "UAL1");
  EXPECT_EQ(position.event_time, base::FromUnixSeconds(1615108010));  // last_contact
  EXPECT_FLOAT_EQ(position.altitude_m, 99.5F);  // geometric when barometric is null
  EXPECT_EQ(position.on_ground, 1);
  EXPECT_FLOAT_EQ(position.reported_speed_kmh, 36.0F);
  EXPECT_FLOAT_EQ(position.bearing_deg, 90.0F);
  EXPECT_EQ(position.ingest_time, base::FromUnixSeconds(1615108010));
  EXPECT_EQ(position.source.offset, 4);
}

// origin_country and last_contact as the silver layer reads them (aircraft_state.cc): the
// string as sent (a blank one too), an integer (or integral number) of seconds; anything
// else is no value, and never a reason to refuse a position.
TEST(OpenSkyDecoder, OriginCountryAndLastContactAreKeptAsSent) {
  const DecodedBatch batch = Decode(R"({"time": 1615108010, "states": [
    ["b1", "X", "Brazil", 1615108009, 1615108010, -43.2, -22.9, null, false, null, null, null, null, null, null, false, 0],
    ["b2", "X", " Côte d'Ivoire ", 1615108009, 1.615108011e9, -43.2, -22.9, null, false, null, null, null, null, null, null, false, 0],
    ["b3", "X", null, 1615108009, null, -43.2, -22.9, null, false, null, null, null, null, null, null, false, 0],
    ["b4", "X", 76, 1615108009, "1615108010", -43.2, -22.9, null, false, null, null, null, null, null, null, false, 0],
    ["b5", "X", [], 1615108009, 1615108010.5, -43.2, -22.9, null, false, null, null, null, null, null, null, false, 0],
    ["b6", "X", "", 1615108009, true, -43.2, -22.9, null, false, null, null, null, null, null, null, false, 0]
  ]})");
  ASSERT_EQ(batch.rejections.size(), 0U);
  ASSERT_EQ(batch.positions.size(), 6U);
  const auto& p = batch.positions;
  EXPECT_EQ(p[0].origin_country, "Brazil");
  EXPECT_TRUE(p[0].has_origin_country);
  EXPECT_EQ(p[0].last_contact, 1615108010);
  EXPECT_EQ(p[1].origin_country, " Côte d'Ivoire ");
  EXPECT_EQ(p[1].last_contact, 1615108011);
  EXPECT_TRUE(p[5].has_origin_country);  // blank: sent so, not absent
  for (std::size_t i = 2; i < 6; ++i) {
    EXPECT_EQ(p[i].has_origin_country, i == 5) << i;
    EXPECT_EQ(p[i].origin_country, "") << i;
    EXPECT_EQ(p[i].last_contact, model::kNoLastContact) << i;
    EXPECT_EQ(p[i].event_time, base::FromUnixSeconds(1615108009)) << i;
  }
}

TEST(OpenSkyDecoder, AnythingButAStatesObjectIsAnError) {
  for (const std::string_view bytes :
       {std::string_view("[]"), std::string_view("{}"), std::string_view(R"({"states": 5})"),
        std::string_view(R"({"states": [[1,2,3]])")}) {
    DecodedBatch batch;
    EXPECT_FALSE(DecodeResponse(Format::kOpenSky, bytes, {}, batch).ok()) << bytes;
    EXPECT_EQ(batch.size(), 0U) << bytes;
  }
}

}  // namespace
}  // namespace frota::codec
