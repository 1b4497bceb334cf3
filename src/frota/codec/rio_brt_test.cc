#include <gtest/gtest.h>

#include <cmath>
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
  const auto info = DecodeResponse(Format::kRioBrt, json, options, batch);
  EXPECT_TRUE(info.ok()) << (info.ok() ? "" : info.error().message());
  return batch;
}

std::string Vehicle(std::string_view codigo, std::string_view direcao,
                    std::string_view sentido = "ida", std::int64_t data_hora = 1705191226000,
                    std::string_view latitude = "-23.000803") {
  return fmt::format(
      R"({{"codigo": "{}", "placa": "", "linha": "51", "latitude": {}, "longitude": -43.365989, )"
      R"("dataHora": {}, "velocidade": 18, "id_migracao_trajeto": "", "sentido": "{}", )"
      R"("trajeto": "51 - T. RECREIO X T.DEODORO (PARADOR) [VOLTA]", "hodometro": 59182.2, )"
      R"("direcao": {}}})",
      codigo, latitude, data_hora, sentido, direcao);
}

TEST(RioBrtDecoder, SnapshotHas249VehiclesAndBlankHeadingsAreNotErrors) {
  FROTA_REQUIRE_SHARED(path, "rio-api-snapshots/brt_api_realtime_2024-01-13.json");
  const std::string bytes = ReadBytes(path);
  const auto json = nlohmann::json::parse(bytes).at("veiculos");

  std::set<std::string> vehicles;
  std::int64_t newest_ms = 0;
  std::size_t blank_headings = 0;
  std::size_t ida = 0;
  std::size_t volta = 0;
  for (const auto& vehicle : json) {
    vehicles.insert(vehicle.at("codigo").get<std::string>());
    newest_ms = std::max(newest_ms, vehicle.at("dataHora").get<std::int64_t>());
    blank_headings += vehicle.at("direcao").is_string() ? 1 : 0;
    ida += vehicle.at("sentido") == "ida" ? 1 : 0;
    volta += vehicle.at("sentido") == "volta" ? 1 : 0;
  }
  ASSERT_EQ(json.size(), 249U);
  ASSERT_EQ(vehicles.size(), 249U);
  ASSERT_GT(blank_headings, 0U);

  DecodedBatch batch;
  const auto info = DecodeResponse(Format::kRioBrt, bytes, {}, batch);
  ASSERT_TRUE(info.ok()) << info.error().message();
  EXPECT_EQ(info->records, 249);
  ASSERT_EQ(batch.positions.size(), 249U);
  EXPECT_EQ(CountReasons(batch), (std::map<std::string, std::int64_t>{}));
  EXPECT_EQ(testing_util::DistinctVehicles(batch), vehicles);
  // Stale fixes back to 2023 (data README); the response's clock is its newest fix.
  EXPECT_EQ(testing_util::MinEventTime(batch), "2023-04-27T00:10:13Z");
  EXPECT_EQ(testing_util::MaxEventTime(batch), "2024-01-14T01:16:00Z");

  std::size_t without_bearing = 0;
  std::size_t direction_0 = 0;
  std::size_t direction_1 = 0;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const auto& vehicle = json[i];
    const auto& position = batch.positions[i];
    ASSERT_EQ(position.vehicle_id, vehicle.at("codigo").get<std::string>());
    ASSERT_EQ(position.route_id, vehicle.at("linha").get<std::string>());
    ASSERT_EQ(position.lat, vehicle.at("latitude").get<double>());
    ASSERT_EQ(position.lon, vehicle.at("longitude").get<double>());
    ASSERT_EQ(position.event_time,
              base::FromUnixMillis(vehicle.at("dataHora").get<std::int64_t>()));
    ASSERT_EQ(position.ingest_time, base::FromUnixMillis(newest_ms));
    ASSERT_EQ(position.mode, model::Mode::kBrt);
    if (vehicle.at("direcao").is_number()) {
      ASSERT_FLOAT_EQ(position.bearing_deg, vehicle.at("direcao").get<float>());
    }
    ASSERT_FLOAT_EQ(position.reported_speed_kmh, vehicle.at("velocidade").get<float>());
    without_bearing += std::isnan(position.bearing_deg) ? 1 : 0;
    direction_0 += position.direction_id == 0 ? 1 : 0;
    direction_1 += position.direction_id == 1 ? 1 : 0;
  }
  EXPECT_EQ(without_bearing, blank_headings);
  EXPECT_EQ(direction_0, ida);
  EXPECT_EQ(direction_1, volta);
}

TEST(RioBrtDecoder, BlankHeadingIsAbsentAndSentidoGivesTheDirection) {
  const DecodedBatch batch =
      Decode(R"({"veiculos": [)" + Vehicle("901008", "\" \"", "volta") + "," +
             Vehicle("901018", "306", "ida") + "," + Vehicle("901019", "12", "") + "]}");
  ASSERT_EQ(batch.positions.size(), 3U);
  EXPECT_TRUE(std::isnan(batch.positions[0].bearing_deg));
  EXPECT_EQ(batch.positions[0].direction_id, 1);
  EXPECT_FLOAT_EQ(batch.positions[1].bearing_deg, 306.0F);
  EXPECT_EQ(batch.positions[1].direction_id, 0);
  EXPECT_EQ(batch.positions[2].direction_id, -1);
}

TEST(RioBrtDecoder, IngestTimeIsTheNewestFixOfTheResponse) {
  const DecodedBatch batch = Decode(R"({"veiculos": [)" + Vehicle("a", "1", "ida", 1705191226000) +
                                    "," + Vehicle("b", "1", "ida", 1705194960000) + "," +
                                    Vehicle("c", "1", "ida", 1705191226000, "91.5") + "]}");
  ASSERT_EQ(batch.positions.size(), 2U);
  EXPECT_EQ(batch.positions[0].ingest_time, base::FromUnixMillis(1705194960000));
  EXPECT_EQ(batch.positions[1].ingest_time, base::FromUnixMillis(1705194960000));
  ASSERT_EQ(batch.rejections.size(), 1U);
  EXPECT_EQ(batch.rejections[0].reason, RejectReason::kLatitudeOutOfRange);
  EXPECT_EQ(batch.rejections[0].detail, "latitude=91.5");
  EXPECT_EQ(batch.rejections[0].ingest_time, base::FromUnixMillis(1705194960000));
}

TEST(RioBrtDecoder, UnreadableHeadingAndNonObjectElementsAreMalformed) {
  const DecodedBatch batch =
      Decode(R"({"veiculos": [)" + Vehicle("a", "\"norte\"") + R"(, 42, null, [1, 2]]})");
  ASSERT_EQ(batch.rejections.size(), 4U);
  for (const auto& rejection : batch.rejections) {
    EXPECT_EQ(rejection.reason, RejectReason::kMalformedRecord);
  }
  EXPECT_EQ(batch.rejections[0].detail, R"(direcao="norte")");
  EXPECT_EQ(batch.rejections[1].detail, "element is a number, not an object");
  EXPECT_EQ(batch.rejections[3].detail, "element is an array, not an object");
}

TEST(RioBrtDecoder, NullListIsNoVehiclesButAMissingListIsAnError) {
  EXPECT_EQ(Decode(R"({"veiculos": null})").size(), 0U);
  DecodedBatch batch;
  EXPECT_FALSE(DecodeResponse(Format::kRioBrt, R"({"vehicles": []})", {}, batch).ok());
  EXPECT_FALSE(DecodeResponse(Format::kRioBrt, R"([])", {}, batch).ok());
  EXPECT_FALSE(DecodeResponse(Format::kRioBrt, R"({"veiculos": [)", {}, batch).ok());
  EXPECT_EQ(batch.size(), 0U);
}

}  // namespace
}  // namespace frota::codec
