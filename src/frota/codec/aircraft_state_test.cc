#include "frota/codec/aircraft_state.h"

#include <gtest/gtest.h>

#include "frota/codec/codec_test_util.h"
#include "frota/codec/decode.h"
#include "frota/testing/shared_data.h"

namespace frota::codec {
namespace {

using testing_util::ReadBytes;

TEST(AircraftStates, ExtendedVectorGivesEveryFieldTypedWithItsCategory) {
  const std::string json =
      R"({"time":1649392659,"states":[["4b1816","SWR1951 ","Switzerland",1649392658,)"
      R"(1649392659,3.6738,41.8384,8534.4,false,258.66,66.19,-0.33,[12,34],8755.38,"5551",)"
      R"(false,0,6]]})";
  const auto states = DecodeAircraftStates(json);
  ASSERT_TRUE(states.ok()) << states.error().message();
  ASSERT_EQ(states->size(), 1U);
  const AircraftState& s = (*states)[0];
  EXPECT_EQ(s.fields, 18U);
  EXPECT_EQ(s.icao24, "4b1816");
  EXPECT_EQ(s.callsign, "SWR1951");
  EXPECT_EQ(s.origin_country, "Switzerland");
  EXPECT_EQ(s.time_position, 1649392658);
  EXPECT_EQ(s.last_contact, 1649392659);
  EXPECT_EQ(s.longitude, 3.6738);
  EXPECT_EQ(s.latitude, 41.8384);
  EXPECT_EQ(s.barometric_altitude_m, 8534.4);
  EXPECT_EQ(s.on_ground, false);
  EXPECT_EQ(s.velocity_mps, 258.66);
  EXPECT_EQ(s.true_track_deg, 66.19);
  EXPECT_EQ(s.vertical_rate_mps, -0.33);
  EXPECT_EQ(s.sensors, (std::vector<std::int64_t>{12, 34}));
  EXPECT_EQ(s.geo_altitude_m, 8755.38);
  EXPECT_EQ(s.squawk, "5551");
  EXPECT_EQ(s.spi, false);
  EXPECT_EQ(s.position_source, 0);
  EXPECT_EQ(s.category, 6);
  EXPECT_EQ(s.raw,
            R"(["4b1816","SWR1951 ","Switzerland",1649392658,1649392659,3.6738,41.8384,8534.4,)"
            R"(false,258.66,66.19,-0.33,[12,34],8755.38,"5551",false,0,6])");
}

TEST(AircraftStates, NullsBlankCallsignsAndShortVectorsAreAbsentButRawIsKept) {
  const std::string json =
      R"({"time":1,"states":[["abc123","        ",null,null,1649392659,null,null,null,true,)"
      R"(null,null,null,null,null,null,false,2],["short",null],42]})";
  const auto states = DecodeAircraftStates(json);
  ASSERT_TRUE(states.ok()) << states.error().message();
  ASSERT_EQ(states->size(), 3U);
  const AircraftState& s = (*states)[0];
  EXPECT_EQ(s.fields, 17U);
  EXPECT_FALSE(s.callsign.has_value());
  EXPECT_FALSE(s.origin_country.has_value());
  EXPECT_FALSE(s.time_position.has_value());
  EXPECT_EQ(s.on_ground, true);
  EXPECT_FALSE(s.sensors.has_value());
  EXPECT_EQ(s.position_source, 2);
  EXPECT_FALSE(s.category.has_value());  // 17 fields: no category
  EXPECT_EQ((*states)[1].fields, 2U);
  EXPECT_EQ((*states)[1].raw, R"(["short",null])");
  EXPECT_EQ((*states)[2].fields, 0U);
  EXPECT_EQ((*states)[2].raw, "42");
}

TEST(AircraftStates, NullStatesAreNoAircraftAndOtherBytesAreAnError) {
  const auto none = DecodeAircraftStates(R"({"time":1,"states":null})");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(DecodeAircraftStates("<html>busy</html>").ok());
  EXPECT_FALSE(DecodeAircraftStates(R"({"time":1,"states":"x"})").ok());
}

// Element i of the states is the record of offset i that the position decoder produced,
// position or rejection, on every real capture.
TEST(AircraftStates, AlignWithTheDecodersRecordsOnRealCaptures) {
  for (const char* name :
       {"opensky/global_states_all_1634471390.json",
        "opensky/global_states_all_extended_1649392659.json",
        "opensky/usa_bbox_states_1738361582.json", "opensky/austria_bbox_states_1604921480.json",
        "opensky/denver_bbox_series/states_1615108010.json"}) {
    SCOPED_TRACE(name);
    const auto path = testing::SharedFile(name);
    if (!path) {
      FROTA_SHARED_MISSING("missing capture " << name);
    }
    const std::string bytes = ReadBytes(*path);
    DecodedBatch batch;
    ASSERT_TRUE(DecodeResponse(Format::kOpenSky, bytes, {}, batch).ok());
    const auto states = DecodeAircraftStates(bytes);
    ASSERT_TRUE(states.ok()) << states.error().message();
    ASSERT_EQ(states->size(), batch.size());
    for (const auto& p : batch.positions) {
      const auto& s = (*states)[static_cast<std::size_t>(p.source.offset)];
      ASSERT_EQ(s.icao24, p.vehicle_id);
      ASSERT_EQ(s.latitude, p.lat);
      ASSERT_EQ(s.longitude, p.lon);
      ASSERT_EQ(s.callsign.value_or(""), p.route_id);
      ASSERT_TRUE(s.last_contact.has_value());
    }
    for (const auto& r : batch.rejections) {
      const auto& s = (*states)[static_cast<std::size_t>(r.source.offset)];
      ASSERT_EQ(s.icao24.value_or(""), r.vehicle_id);
    }
  }
}

}  // namespace
}  // namespace frota::codec
