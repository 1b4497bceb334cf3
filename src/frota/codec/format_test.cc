#include "frota/codec/format.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "frota/testing/shared_data.h"

namespace frota::codec {
namespace {

TEST(FormatName, RoundTripsThroughParseFormat) {
  for (const Format format : kAllFormats) {
    EXPECT_EQ(ParseFormat(FormatName(format)), format);
  }
  EXPECT_EQ(FormatName(Format::kRioArchiveCsv), "rio-archive-csv");
  EXPECT_EQ(ParseFormat("gtfs-realtime"), std::nullopt);
}

TEST(DefaultMode, BusesBrtAndAircraftAsDocumented) {
  EXPECT_EQ(DefaultMode(Format::kGtfsRt), model::Mode::kBus);
  EXPECT_EQ(DefaultMode(Format::kRioSppo), model::Mode::kBus);
  EXPECT_EQ(DefaultMode(Format::kRioBrt), model::Mode::kBrt);
  EXPECT_EQ(DefaultMode(Format::kRioArchiveCsv), model::Mode::kBrt);
  EXPECT_EQ(DefaultMode(Format::kOpenSky), model::Mode::kAircraft);
}

TEST(DetectFileFormat, RecognisesEveryRealCapture) {
  const std::pair<const char*, Format> captures[] = {
      {"gtfs-rt/caltrain/ct-vehicle-positions.pb", Format::kGtfsRt},
      {"gtfs-rt/caltrain/ct-trip-updates.pb", Format::kGtfsRt},
      {"gtfs-rt/bullrunner/bullrunner-vehicle-positions.pb", Format::kGtfsRt},
      {"gtfs-rt/angra-malformed/gtfs_realtime_feed.pb", Format::kGtfsRt},
      {"rio-api-snapshots/sppo_api_2024-06-06.json", Format::kRioSppo},
      {"rio-api-snapshots/brt_api_realtime_2024-01-13.json", Format::kRioBrt},
      {"opensky/global_states_all_1634471390.json", Format::kOpenSky},
      {"opensky/global_states_all_extended_1649392659.json", Format::kOpenSky},
      {"opensky/usa_bbox_states_1738361582.json", Format::kOpenSky},
      {"opensky/austria_bbox_states_1604921480.json", Format::kOpenSky},
      {"opensky/denver_bbox_series/states_1615109119.json", Format::kOpenSky},
      {"rio-brt-2022/gps/13.csv.gz", Format::kRioArchiveCsv},
      {"rio-brt-2022/gps/9999.csv.gz", Format::kRioArchiveCsv},
  };
  for (const auto& [relative, expected] : captures) {
    FROTA_REQUIRE_SHARED(path, relative);
    const auto format = DetectFileFormat(path);
    ASSERT_TRUE(format.ok()) << relative << ": " << format.error().message();
    EXPECT_EQ(*format, expected) << relative;
  }
}

TEST(DetectFormat, ReadsJsonAndCsvHeadsAfterBlanks) {
  EXPECT_EQ(*DetectFormat("\xef\xbb\xbf  [{\"ordem\": \"B1\"}]"), Format::kRioSppo);
  EXPECT_EQ(*DetectFormat("\n{\"veiculos\": []}"), Format::kRioBrt);
  EXPECT_EQ(*DetectFormat("{\"time\": 1, \"states\": null}"), Format::kOpenSky);
  EXPECT_EQ(*DetectFormat("id_veiculo,timestamp_gps,latitude\n"), Format::kRioArchiveCsv);
}

TEST(DetectFormat, TextStartingWithANewlineIsNotMistakenForProtobuf) {
  // 0x0a is both '\n' and the tag of FeedMessage.header.
  EXPECT_EQ(*DetectFormat("\nid_veiculo,timestamp_gps\n"), Format::kRioArchiveCsv);
  EXPECT_FALSE(DetectFormat("\nhello world").ok());
}

TEST(DetectFormat, EmptyGzipAndUnknownBytesAreClearErrors) {
  EXPECT_FALSE(DetectFormat("").ok());
  const auto gzip = DetectFormat(std::string_view("\x1f\x8b\x08\x00", 4));
  ASSERT_FALSE(gzip.ok());
  EXPECT_NE(gzip.error().message().find("gzip"), std::string::npos);
  EXPECT_FALSE(DetectFormat("{\"foo\": 1}").ok());
  EXPECT_FALSE(DetectFormat("PK\x03\x04").ok());
}

TEST(DetectFileFormat, AFolderIsAnError) {
  EXPECT_FALSE(DetectFileFormat(std::filesystem::temp_directory_path()).ok());
}

}  // namespace
}  // namespace frota::codec
