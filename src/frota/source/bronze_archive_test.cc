#include "frota/source/bronze_archive.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "frota/base/file.h"
#include "frota/testing/subprocess.h"

namespace frota::source {
namespace {

namespace fs = std::filesystem;

TEST(BronzeArchive, WritesAtomicallyAndListsInIngestOrder) {
  testing::TempDir dir("bronze");
  FeedInfo info{"rio-brt", codec::Format::kRioBrt, model::Mode::kBrt, "America/Sao_Paulo", ""};
  auto writer = BronzeWriter::Open(dir.path(), info);
  ASSERT_TRUE(writer.ok()) << writer.error().message();
  const auto t0 = *base::ParseIso8601("2024-01-13T23:59:59.500Z");
  ResponseEnvelope e;
  e.ingest_time = t0 + std::chrono::seconds(15);  // crosses into the next day and hour
  ASSERT_TRUE((*writer)->Write(e, R"({"veiculos": []})").ok());
  e.ingest_time = t0;
  e.repeat = true;
  const auto first = (*writer)->Write(e, R"({"veiculos": []})");
  ASSERT_TRUE(first.ok());
  EXPECT_NE(first->string().find("date=2024-01-13/hour=23/1705190399500-000002.json"),
            std::string::npos);
  // A crash mid-write leaves only a temporary file, which readers ignore.
  std::ofstream(first->parent_path() / "1705190399999-000003.json.tmp-1234") << "{partial";

  const auto feeds = ListArchive(dir.path());
  ASSERT_TRUE(feeds.ok()) << feeds.error().message();
  ASSERT_EQ(feeds->size(), 1U);
  const auto& feed = (*feeds)[0];
  EXPECT_EQ(feed.info.feed_id, "rio-brt");
  EXPECT_EQ(feed.info.format, codec::Format::kRioBrt);
  EXPECT_EQ(feed.info.mode, model::Mode::kBrt);
  ASSERT_EQ(feed.files.size(), 2U);
  EXPECT_EQ(feed.files[0].ingest_time, t0);
  EXPECT_TRUE(feed.files[0].repeat);
  EXPECT_EQ(feed.files[1].ingest_time, t0 + std::chrono::seconds(15));

  // A second writer continues the sequence instead of overwriting.
  auto again = BronzeWriter::Open(dir.path(), info);
  ASSERT_TRUE(again.ok());
  const auto third = (*again)->Write(e, "{}");
  ASSERT_TRUE(third.ok());
  EXPECT_NE(third->filename().string().find("-000003."), std::string::npos);
}

TEST(BronzeArchive, EnvelopeNamesItsRunPollSourceAndTheBodysSha256) {
  testing::TempDir dir("bronze-envelope");
  FeedInfo info{"opensky", codec::Format::kOpenSky, model::Mode::kAircraft, "UTC",
                "https://opensky-network.org/api/states/all?lamin=-23.1"};
  auto writer = BronzeWriter::Open(dir.path(), info);
  ASSERT_TRUE(writer.ok()) << writer.error().message();
  ResponseEnvelope e;
  e.ingest_time = *base::ParseIso8601("2024-01-13T12:00:00Z");
  e.run_id = "20240113T120000Z-3f9a2c1e";
  e.collection_number = 7;
  const auto polled = (*writer)->Write(e, "abc");
  ASSERT_TRUE(polled.ok());
  const auto meta = nlohmann::json::parse(*base::ReadFile(polled->string() + ".meta.json"));
  EXPECT_EQ(meta.at("sha256"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(meta.at("source"), info.url);
  EXPECT_EQ(meta.at("run_id"), "20240113T120000Z-3f9a2c1e");
  EXPECT_EQ(meta.at("collection_number"), 7);
  EXPECT_FALSE(meta.contains("digest"));

  // Outside a collector (frota simulate) there is no run and no poll number.
  e.run_id.clear();
  e.collection_number = 0;
  const auto simulated = (*writer)->Write(e, "abc");
  ASSERT_TRUE(simulated.ok());
  const auto bare = nlohmann::json::parse(*base::ReadFile(simulated->string() + ".meta.json"));
  EXPECT_TRUE(bare.at("run_id").is_null());
  EXPECT_TRUE(bare.at("collection_number").is_null());
}

TEST(BronzeArchive, AFolderWithoutFeedsIsAClearError) {
  testing::TempDir dir("bronze-empty");
  const auto feeds = ListArchive(dir.path());
  ASSERT_FALSE(feeds.ok());
  EXPECT_NE(feeds.error().message().find("not a bronze archive"), std::string::npos);
}

}  // namespace
}  // namespace frota::source
