#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

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
  const auto info = DecodeResponse(Format::kRioSppo, json, options, batch);
  EXPECT_TRUE(info.ok()) << (info.ok() ? "" : info.error().message());
  return batch;
}

std::string Record(std::string_view ordem, std::string_view lat, std::string_view lon,
                   std::string_view datahora = "1717675183000") {
  return fmt::format(
      R"({{"ordem":"{}","latitude":"{}","longitude":"{}","datahora":"{}","velocidade":"51",)"
      R"("linha":"107","datahoraenvio":"1717675195000","datahoraservidor":"1717675211000"}})",
      ordem, lat, lon, datahora);
}

TEST(RioSppoDecoder, SnapshotHas862RecordsOf698Buses) {
  FROTA_REQUIRE_SHARED(path, "rio-api-snapshots/sppo_api_2024-06-06.json");
  const std::string bytes = ReadBytes(path);
  const auto json = nlohmann::json::parse(bytes);

  // Independent tallies straight from the JSON.
  std::set<std::string> buses;
  std::map<std::string, int> per_bus;
  std::int64_t min_ms = INT64_MAX;
  std::int64_t max_ms = INT64_MIN;
  for (const auto& record : json) {
    const auto ordem = record.at("ordem").get<std::string>();
    buses.insert(ordem);
    ++per_bus[ordem];
    const std::int64_t ms = std::stoll(record.at("datahora").get<std::string>());
    min_ms = std::min(min_ms, ms);
    max_ms = std::max(max_ms, ms);
  }
  ASSERT_EQ(json.size(), 862U);
  ASSERT_EQ(buses.size(), 698U);

  DecodedBatch batch;
  const auto info = DecodeResponse(Format::kRioSppo, bytes, {}, batch);
  ASSERT_TRUE(info.ok()) << info.error().message();
  EXPECT_EQ(info->records, 862);
  EXPECT_EQ(batch.positions.size(), 862U);
  EXPECT_EQ(CountReasons(batch), (std::map<std::string, std::int64_t>{}));
  EXPECT_EQ(testing_util::DistinctVehicles(batch), buses);
  EXPECT_EQ(testing_util::MinEventTime(batch), base::FormatIso8601(base::FromUnixMillis(min_ms)));
  EXPECT_EQ(testing_util::MinEventTime(batch), "2024-06-06T11:26:59Z");
  EXPECT_EQ(testing_util::MaxEventTime(batch), "2024-06-06T11:59:58Z");
  // One bus is repeated 45 times (data README).
  std::map<std::string, int> decoded_per_bus;
  for (const auto& position : batch.positions) {
    ++decoded_per_bus[position.vehicle_id];
  }
  EXPECT_EQ(decoded_per_bus, per_bus);
  EXPECT_EQ(decoded_per_bus.at("D53555"), 45);
  testing_util::ExpectDenseOffsets(batch, 0);

  // Field by field against the JSON, for every record.
  for (std::size_t i = 0; i < json.size(); ++i) {
    const auto& record = json[i];
    const auto& position = batch.positions[i];
    auto lat_text = record.at("latitude").get<std::string>();
    auto lon_text = record.at("longitude").get<std::string>();
    std::replace(lat_text.begin(), lat_text.end(), ',', '.');
    std::replace(lon_text.begin(), lon_text.end(), ',', '.');
    ASSERT_EQ(position.lat, std::stod(lat_text)) << i;
    ASSERT_EQ(position.lon, std::stod(lon_text)) << i;
    ASSERT_EQ(position.route_id, record.at("linha").get<std::string>());
    ASSERT_EQ(position.ingest_time,
              base::FromUnixMillis(std::stoll(record.at("datahoraservidor").get<std::string>())));
    ASSERT_EQ(position.reported_speed_kmh, std::stof(record.at("velocidade").get<std::string>()));
    ASSERT_EQ(position.mode, model::Mode::kBus);
    ASSERT_EQ(position.feed_id, "rio-sppo");
  }
}

TEST(RioSppoDecoder, CommaDecimalsBecomeDegrees) {
  const DecodedBatch batch = Decode("[" + Record("B63014", "-22,92122", "-43,17344") + "]");
  ASSERT_EQ(batch.positions.size(), 1U);
  EXPECT_DOUBLE_EQ(batch.positions[0].lat, -22.92122);
  EXPECT_DOUBLE_EQ(batch.positions[0].lon, -43.17344);
  EXPECT_EQ(batch.positions[0].event_time, base::FromUnixMillis(1717675183000));
  EXPECT_EQ(batch.positions[0].ingest_time, base::FromUnixMillis(1717675211000));
  EXPECT_EQ(batch.positions[0].route_id, "107");
  EXPECT_FLOAT_EQ(batch.positions[0].reported_speed_kmh, 51.0F);
}

TEST(RioSppoDecoder, NonRouteLineCodesAreKeptAsRouteIds) {
  std::string record = Record("B1", "-22,9", "-43,1");
  record.replace(record.find("\"107\""), 5, "\"GARAGEM\"");
  const DecodedBatch batch = Decode("[" + record + "]");
  ASSERT_EQ(batch.positions.size(), 1U);
  EXPECT_EQ(batch.positions[0].route_id, "GARAGEM");
}

TEST(RioSppoDecoder, EachBadRecordBecomesARejectionWithItsRawFields) {
  const std::string json = "[" + Record("", "-22,9", "-43,1") + "," + Record("B2", "", "-43,1") +
                           "," + Record("B3", "abc", "-43,1") + "," +
                           Record("B4", "-122,5", "-43,1") + "," + Record("B5", "-22,9", "-243,1") +
                           "," + Record("B6", "0", "0,0") + "," +
                           Record("B7", "-22,9", "-43,1", "") + "," + "\"not an object\"," +
                           Record("B8", "-22,9", "-43,1") + "]";
  const DecodedBatch batch = Decode(json);
  ASSERT_EQ(batch.positions.size(), 1U);
  EXPECT_EQ(batch.positions[0].vehicle_id, "B8");
  EXPECT_EQ(batch.positions[0].source.offset, 8);
  ASSERT_EQ(batch.rejections.size(), 8U);
  const std::vector<std::pair<RejectReason, std::string>> expected = {
      {RejectReason::kMissingVehicleId, R"(ordem="")"},
      {RejectReason::kMissingCoordinates, R"(latitude="" longitude="-43,1")"},
      {RejectReason::kMalformedRecord, R"(latitude="abc")"},
      {RejectReason::kLatitudeOutOfRange, R"(latitude="-122,5")"},
      {RejectReason::kLongitudeOutOfRange, R"(longitude="-243,1")"},
      {RejectReason::kNullIsland, R"(latitude="0" longitude="0,0")"},
      {RejectReason::kMissingTimestamp, R"(datahora="")"},
      {RejectReason::kMalformedRecord, "element is a string, not an object"},
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(batch.rejections[i].reason, expected[i].first) << i;
    EXPECT_EQ(batch.rejections[i].detail, expected[i].second) << i;
    EXPECT_EQ(batch.rejections[i].source.offset, static_cast<std::int64_t>(i));
    EXPECT_EQ(batch.rejections[i].feed_id, "rio-sppo");
  }
  EXPECT_EQ(batch.rejections[3].vehicle_id, "B4");
  EXPECT_EQ(batch.rejections[3].event_time, base::FromUnixMillis(1717675183000));
  EXPECT_EQ(batch.rejections[3].ingest_time, base::FromUnixMillis(1717675211000));
  EXPECT_EQ(batch.rejections[6].event_time, std::nullopt);
}

TEST(RioSppoDecoder, LongDetailsAreCutToAboutTwoHundredBytes) {
  const std::string long_value(1000, '7');
  const DecodedBatch batch = Decode("[" + Record("B1", long_value, "-43,1") + "]");
  ASSERT_EQ(batch.rejections.size(), 1U);
  EXPECT_EQ(batch.rejections[0].detail.size(), 200U);
  EXPECT_TRUE(batch.rejections[0].detail.starts_with("latitude=\"7777"));
  EXPECT_TRUE(batch.rejections[0].detail.ends_with("7..."));
}

TEST(RioSppoDecoder, CollectorIngestTimeReplacesTheServerTime) {
  DecodeOptions options;
  options.ingest_time = base::FromUnixSeconds(1717675300);
  options.feed_id = "rio-onibus";
  const DecodedBatch batch = Decode("[" + Record("B1", "-22,9", "-43,1") + "]", options);
  ASSERT_EQ(batch.positions.size(), 1U);
  EXPECT_EQ(batch.positions[0].ingest_time, base::FromUnixSeconds(1717675300));
  EXPECT_EQ(batch.positions[0].feed_id, "rio-onibus");
}

TEST(RioSppoDecoder, EscapedKeysAndStringsAreUnderstood) {
  const DecodedBatch batch = Decode(
      R"([{"ord\u0065m":"B\u0031","latitude":"-22,9","longitude":"-43,1","datahora":"1717675183000","datahoraservidor":"1717675211000","linha":"1\"7"}])");
  ASSERT_EQ(batch.positions.size(), 1U);
  EXPECT_EQ(batch.positions[0].vehicle_id, "B1");
  EXPECT_EQ(batch.positions[0].route_id, "1\"7");
  EXPECT_TRUE(std::isnan(batch.positions[0].reported_speed_kmh));
}

TEST(RioSppoDecoder, AnEmptyArrayIsNoRecords) { EXPECT_EQ(Decode("[]").size(), 0U); }

TEST(RioSppoDecoder, TextThatIsNotAJsonArrayIsAnErrorAndAppendsNothing) {
  for (const std::string_view bytes :
       {std::string_view("{\"veiculos\": []}"), std::string_view("[1, 2"),
        std::string_view("not json"), std::string_view("[] trailing"),
        std::string_view("[{\"ordem\":\"B1\"}, {]")}) {
    DecodedBatch batch;
    const auto info = DecodeResponse(Format::kRioSppo, bytes, {}, batch);
    EXPECT_FALSE(info.ok()) << bytes;
    EXPECT_EQ(batch.size(), 0U) << bytes;
  }
}

}  // namespace
}  // namespace frota::codec
