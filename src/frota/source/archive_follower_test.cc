#include "frota/source/archive_follower.h"

#include <gtest/gtest.h>

#include "frota/base/file.h"
#include "frota/testing/shared_data.h"
#include "frota/testing/subprocess.h"

namespace frota::source {
namespace {

namespace fs = std::filesystem;

struct Seen {
  std::string partition;
  std::int64_t offset;
  bool position;
  std::string reason;
  bool operator==(const Seen&) const = default;
};

std::vector<Seen> Drain(ArchiveFollower& follower) {
  std::vector<Seen> out;
  std::vector<SourceRecord> batch;
  while (*follower.Next(batch, 100)) {
    for (const auto& r : batch) {
      const auto* rejection = std::get_if<model::Rejection>(&r.record);
      out.push_back({std::to_string(r.partition.value()), r.offset, rejection == nullptr,
                     rejection != nullptr ? std::string(model::RejectReasonName(rejection->reason))
                                          : std::string()});
    }
  }
  return out;
}

TEST(ArchiveFollower, SeesWhatAReplaySeesWhileTheArchiveGrows) {
  FROTA_REQUIRE_SHARED(brt, "rio-api-snapshots/brt_api_realtime_2024-01-13.json");
  FROTA_REQUIRE_SHARED(gtfs, "gtfs-rt/bullrunner/bullrunner-vehicle-positions.pb");
  testing::TempDir dir("follower");
  const auto root = dir.path() / "bronze";
  auto brt_writer = BronzeWriter::Open(
      root, {"rio-brt", codec::Format::kRioBrt, model::Mode::kBrt, "America/Sao_Paulo", ""});
  auto gtfs_writer = BronzeWriter::Open(root, {"bull", codec::Format::kGtfsRt, {}, "UTC", ""});
  ASSERT_TRUE(brt_writer.ok() && gtfs_writer.ok());
  const auto brt_body = *base::ReadFile(brt);
  const auto gtfs_body = *base::ReadFile(gtfs);
  auto t = *base::ParseIso8601("2024-01-13T23:59:30Z");
  auto write = [&](BronzeWriter& w, std::string_view body) {
    ResponseEnvelope e;
    e.ingest_time = t;
    t += std::chrono::seconds(15);
    ASSERT_TRUE(w.Write(e, body).ok());
  };
  model::SourceCatalog catalog;
  auto follower = ArchiveFollower::Open(root, &catalog, {}, {});
  ASSERT_TRUE(follower.ok());
  ASSERT_TRUE((*follower)->Scan().ok());
  EXPECT_TRUE(Drain(**follower).empty());

  write(**brt_writer, brt_body);
  write(**gtfs_writer, gtfs_body);
  ASSERT_TRUE((*follower)->Scan().ok());
  auto seen = Drain(**follower);
  // Crossing midnight and the hour: the follower looks into the new folders.
  write(**brt_writer, "<html>502 Bad Gateway</html>");
  write(**gtfs_writer, gtfs_body);
  write(**brt_writer, brt_body);
  // A crashed write leaves only a temporary file, which is never read.
  ASSERT_TRUE(base::WriteFileAtomic(root / "rio-brt" / "stray.json.tmp-1", "{").ok());
  ASSERT_TRUE((*follower)->Scan().ok());
  auto more = Drain(**follower);
  seen.insert(seen.end(), more.begin(), more.end());
  EXPECT_EQ((*follower)->responses_read(), 5);

  // A replay of the finished archive sees the same records with the same offsets.
  const auto partitions = ExpandInputs({InputSpec{std::nullopt, true, root}}, "");
  ASSERT_TRUE(partitions.ok()) << partitions.error().message();
  model::SourceCatalog replay_catalog;
  auto replay = ReplaySource::Open(*partitions, &replay_catalog, {}, {});
  ASSERT_TRUE(replay.ok());
  std::vector<Seen> replayed;
  std::vector<SourceRecord> batch;
  while (true) {
    const auto more_records = (*replay)->Next(batch, 100);
    ASSERT_TRUE(more_records.ok()) << more_records.error().message();
    if (!*more_records) {
      break;
    }
    for (const auto& r : batch) {
      const auto* rejection = std::get_if<model::Rejection>(&r.record);
      replayed.push_back({std::to_string(r.partition.value()), r.offset, rejection == nullptr,
                          rejection != nullptr
                              ? std::string(model::RejectReasonName(rejection->reason))
                              : std::string()});
    }
  }
  auto key = [](const Seen& s) { return std::tie(s.partition, s.offset); };
  auto sorted = [&](std::vector<Seen> v) {
    std::sort(v.begin(), v.end(), [&](const Seen& a, const Seen& b) { return key(a) < key(b); });
    return v;
  };
  EXPECT_EQ(sorted(seen), sorted(replayed));
  // The HTML page is one bad_payload record, in both.
  EXPECT_EQ(std::count_if(seen.begin(), seen.end(),
                          [](const Seen& s) { return s.reason == "bad_payload"; }),
            1);

  // Resuming from committed offsets skips exactly what was committed.
  const auto progress = (*follower)->Progress();
  auto resumed = ArchiveFollower::Open(root, &catalog, {}, progress);
  ASSERT_TRUE(resumed.ok());
  ASSERT_TRUE((*resumed)->Scan().ok());
  EXPECT_TRUE(Drain(**resumed).empty());
  EXPECT_EQ((*resumed)->skipped_records(), static_cast<std::int64_t>(seen.size()));
  write(**gtfs_writer, gtfs_body);
  ASSERT_TRUE((*resumed)->Scan().ok());
  const auto after = Drain(**resumed);
  EXPECT_FALSE(after.empty());
  EXPECT_EQ(after.front().offset, 20);  // bullrunner: 10 vehicles per response, third one
}

}  // namespace
}  // namespace frota::source
