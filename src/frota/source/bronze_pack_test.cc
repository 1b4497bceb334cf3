#include "frota/source/bronze_pack.h"

#include <gtest/gtest.h>

#include <random>

#include "frota/base/file.h"
#include "frota/source/archive_follower.h"
#include "frota/source/bronze_compact.h"
#include "frota/source/input.h"
#include "frota/source/replay_source.h"
#include "frota/testing/shared_data.h"
#include "frota/testing/subprocess.h"

namespace frota::source {
namespace {

namespace fs = std::filesystem;

std::vector<PackMember> Members() {
  std::vector<PackMember> members;
  std::mt19937 random(7);
  const auto t0 = *base::ParseIso8601("2024-06-05T12:00:00Z");
  for (int i = 0; i < 40; ++i) {
    PackMember m;
    m.name = fmt::format("{:013d}-{:06d}.pb", 1717588800000 + i * 15000, i + 1);
    m.ingest_time = t0 + std::chrono::seconds(15 * i);
    m.repeat = i % 3 == 0;
    if (i != 5) {
      m.envelope = fmt::format(R"({{"ingest_time":"{}","n":{}}})"
                               "\n",
                               base::FormatIso8601(m.ingest_time), i);
    }
    // Bodies repeating much of the one before (as a feed's polls do), one empty, one
    // larger than a block.
    const std::size_t size = i == 9 ? 0 : (i == 20 ? 300'000 : 2'000 + 97 * i);
    for (std::size_t k = 0; k < size; ++k) {
      m.body.push_back(static_cast<char>(k % 251 == 0 ? random() : (k * 31 + i / 4) % 256));
    }
    m.records = i == 7 ? -1 : i;
    members.push_back(std::move(m));
  }
  return members;
}

std::string Pack(const std::vector<PackMember>& members) {
  PackWriter writer(3, 64 << 10);  // small blocks: several of them
  for (const auto& m : members) {
    EXPECT_TRUE(writer.Add(m).ok());
  }
  auto bytes = writer.Finish();
  EXPECT_TRUE(bytes.ok());
  return *bytes;
}

TEST(BronzePack, RoundTripsEveryMemberInAnyOrder) {
  const auto members = Members();
  const std::string bytes = Pack(members);
  auto reader = PackReader::FromBytes("mem.pack", bytes);
  ASSERT_TRUE(reader.ok()) << reader.error().message();
  const auto& entries = (*reader)->entries();
  ASSERT_EQ(entries.size(), members.size());
  EXPECT_GE(entries.back().block, 2U);
  const auto check = [&](std::size_t i) {
    const auto member = (*reader)->Read(i);
    ASSERT_TRUE(member.ok()) << member.error().message();
    EXPECT_EQ(member->body, members[i].body) << i;
    EXPECT_EQ(member->envelope, members[i].envelope.value_or("")) << i;
    EXPECT_EQ(entries[i].name, members[i].name);
    EXPECT_EQ(entries[i].ingest_time, members[i].ingest_time);
    EXPECT_EQ(entries[i].repeat, members[i].repeat);
    EXPECT_EQ(entries[i].has_envelope, members[i].envelope.has_value());
    EXPECT_EQ(entries[i].records, members[i].records);
  };
  for (std::size_t i = 0; i < members.size(); ++i) {
    check(i);
  }
  for (const std::size_t i : {30U, 2U, 21U, 20U, 39U, 0U, 0U}) {
    check(i);
  }
  EXPECT_EQ((*reader)->Find(members[12].name), 12U);
  EXPECT_FALSE((*reader)->Find("1717588800000-000999.pb").has_value());
}

TEST(BronzePack, DamageIsAClearErrorNamingTheFileOrReadsTheSameBytes) {
  std::vector<PackMember> members = Members();
  members.resize(6);
  const std::string good = Pack(members);
  const auto read_all = [&](const std::string& bytes) -> std::optional<std::string> {
    auto reader = PackReader::FromBytes("hour=12.pack", bytes);
    if (!reader.ok()) {
      return reader.error().message();
    }
    for (std::size_t i = 0; i < (*reader)->entries().size(); ++i) {
      const auto member = (*reader)->Read(i);
      if (!member.ok()) {
        return member.error().message();
      }
      if (i >= members.size() || member->body != members[i].body) {
        return std::string("different bytes");
      }
    }
    if ((*reader)->entries().size() != members.size()) {
      return std::string("different entries");
    }
    return std::nullopt;
  };
  ASSERT_FALSE(read_all(good).has_value());
  int errors = 0;
  for (std::size_t cut = 0; cut < good.size(); cut += 7) {
    const auto error = read_all(good.substr(0, cut));
    ASSERT_TRUE(error.has_value()) << "cut at " << cut;
    EXPECT_NE(error->find("hour=12.pack"), std::string::npos) << *error;
    ++errors;
  }
  for (std::size_t at = 0; at < good.size(); ++at) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x5a);
    if (const auto error = read_all(bad)) {
      EXPECT_NE(error->find("hour=12.pack"), std::string::npos) << *error;
      EXPECT_NE(*error, "different bytes") << "byte " << at;
      ++errors;
    }
  }
  EXPECT_GT(errors, static_cast<int>(good.size()));
}

TEST(BronzePack, RefusesANewerVersionByName) {
  std::string bytes = Pack(Members());
  bytes[8] = 2;
  const auto reader = PackReader::FromBytes("x.pack", bytes);
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.error().message().find("x.pack: pack version 2"), std::string::npos)
      << reader.error().message();
}

// ---- an archive, loose and packed --------------------------------------------------------

struct Seen {
  std::int32_t partition;
  std::int64_t offset;
  std::string source;
  std::string what;  // vehicle, or the rejection's reason
  bool operator==(const Seen&) const = default;
};

Seen SeenOf(const SourceRecord& r, const model::SourceCatalog& catalog) {
  if (const auto* p = std::get_if<model::Position>(&r.record)) {
    return {r.partition.value(), r.offset, catalog.Name(p->source.source), p->vehicle_id};
  }
  const auto& j = std::get<model::Rejection>(r.record);
  return {r.partition.value(), r.offset, catalog.Name(j.source.source),
          std::string(model::RejectReasonName(j.reason))};
}

std::vector<Seen> Replay(const fs::path& root, const std::vector<engine::SourceProgress>& resume,
                         std::int64_t* skipped = nullptr) {
  auto partitions = ExpandInputs({InputSpec{std::nullopt, true, root}}, "");
  EXPECT_TRUE(partitions.ok()) << partitions.error().message();
  model::SourceCatalog catalog;
  auto replay = ReplaySource::Open(*partitions, &catalog, {}, resume);
  std::vector<Seen> out;
  std::vector<SourceRecord> batch;
  while (true) {
    const auto more = (*replay)->Next(batch, 64);
    EXPECT_TRUE(more.ok()) << more.error().message();
    if (!more.ok() || !*more) {
      break;
    }
    for (const auto& r : batch) {
      out.push_back(SeenOf(r, catalog));
    }
  }
  if (skipped != nullptr) {
    *skipped = (*replay)->skipped_records();
  }
  return out;
}

std::vector<Seen> Follow(ArchiveFollower& follower, const model::SourceCatalog& catalog) {
  std::vector<Seen> out;
  std::vector<SourceRecord> batch;
  while (true) {
    const auto more = follower.Next(batch, 50);
    EXPECT_TRUE(more.ok()) << more.error().message();
    if (!more.ok() || !*more) {
      return out;
    }
    for (const auto& r : batch) {
      out.push_back(SeenOf(r, catalog));
    }
  }
}

// Two feeds over three hours, one response an HTML page.
class PackedArchive : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto gtfs = testing::SharedFile("gtfs-rt/bullrunner/bullrunner-vehicle-positions.pb");
    const auto brt = testing::SharedFile("rio-api-snapshots/brt_api_realtime_2024-01-13.json");
    if (!gtfs || !brt) {
      if (testing::SharedDataOptional()) {
        GTEST_SKIP() << "real captures missing";
      }
      FAIL() << "real captures missing under " << testing::SharedDataDir();
    }
    gtfs_body_ = *base::ReadFile(*gtfs);
    brt_body_ = *base::ReadFile(*brt);
    auto bull = BronzeWriter::Open(root(), {"bull", codec::Format::kGtfsRt, {}, "UTC", ""});
    auto rio = BronzeWriter::Open(
        root(), {"rio-brt", codec::Format::kRioBrt, model::Mode::kBrt, "America/Sao_Paulo", ""});
    ASSERT_TRUE(bull.ok() && rio.ok());
    bull_ = std::move(*bull);
    rio_ = std::move(*rio);
  }
  [[nodiscard]] fs::path root() const { return dir_.path() / "bronze"; }
  // `n` polls of both feeds every 15 minutes from `t_`.
  void Write(int n) {
    for (int i = 0; i < n; ++i) {
      ResponseEnvelope e;
      e.ingest_time = t_;
      e.repeat = i % 4 == 3;
      ASSERT_TRUE(bull_->Write(e, gtfs_body_).ok());
      ASSERT_TRUE(rio_->Write(e, i == 2 ? std::string("<html>502</html>") : brt_body_).ok());
      t_ += std::chrono::minutes(15);
    }
  }
  static std::int64_t CountFiles(const fs::path& dir, std::string_view ending) {
    std::int64_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      n += e.path().filename().string().ends_with(ending) ? 1 : 0;
    }
    return n;
  }

  testing::TempDir dir_{"bronze-pack"};
  std::string gtfs_body_;
  std::string brt_body_;
  std::unique_ptr<BronzeWriter> bull_;
  std::unique_ptr<BronzeWriter> rio_;
  base::Timestamp t_ = *base::ParseIso8601("2024-01-13T22:05:00Z");
};

TEST_F(PackedArchive, ReplaysTheSameRecordsOffsetsAndSourcesLooseAndPacked) {
  Write(10);  // 22:05 .. 00:20: hours 22 and 23 of the 13th, 00 of the 14th
  const auto loose = Replay(root(), {});
  ASSERT_FALSE(loose.empty());
  // Sealed: the hours ending by midnight.
  const auto report = CompactArchive(root(), *base::ParseIso8601("2024-01-14T00:00:00Z"));
  ASSERT_TRUE(report.ok()) << report.error().message();
  ASSERT_EQ(report->packed.size(), 4U);  // two feeds, two hours
  EXPECT_EQ(report->hours_not_sealed, 2);
  EXPECT_EQ(report->packed[0].responses, 4);  // 22:05, 22:20, 22:35, 22:50
  EXPECT_EQ(report->packed[0].files_removed, 8);
  EXPECT_LT(report->packed[0].bytes_after, report->packed[0].bytes_before);
  EXPECT_TRUE(fs::exists(root() / "bull/date=2024-01-13/hour=22.pack"));
  EXPECT_FALSE(fs::exists(root() / "bull/date=2024-01-13/hour=22"));
  EXPECT_TRUE(fs::exists(root() / "bull/date=2024-01-14/hour=00"));
  EXPECT_EQ(Replay(root(), {}), loose);

  // Again: nothing to do. Then everything, as for a closed archive.
  const auto again = CompactArchive(root(), *base::ParseIso8601("2024-01-14T00:00:00Z"));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->packed.empty());
  EXPECT_EQ(again->hours_already_packed, 4);
  ASSERT_TRUE(CompactArchive(root(), base::Timestamp::max()).ok());
  EXPECT_EQ(CountFiles(root(), ".pb"), 0);
  EXPECT_EQ(CountFiles(root(), ".meta.json"), 0);
  EXPECT_EQ(Replay(root(), {}), loose);

  // A new writer continues the sequence after the packed responses.
  auto writer = BronzeWriter::Open(root(), {"bull", codec::Format::kGtfsRt, {}, "UTC", ""});
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->last_ingest_time().has_value());
  EXPECT_EQ(*(*writer)->last_ingest_time(), *base::ParseIso8601("2024-01-14T00:20:00.001Z"));
}

TEST_F(PackedArchive, AResumeSkipsPackedResponsesWithoutDecodingThem) {
  Write(10);
  const auto all = Replay(root(), {});
  ASSERT_TRUE(CompactArchive(root(), base::Timestamp::max()).ok());
  // Committed: the first 25 records of each feed (bullrunner: 10 per response).
  std::vector<engine::SourceProgress> resume;
  for (const auto* feed : {"bull", "rio-brt"}) {
    resume.push_back({(root() / feed).lexically_normal().string(),
                      base::PartitionId(std::string(feed) == "bull" ? 0 : 1), base::Offset(25)});
  }
  std::int64_t skipped = 0;
  const auto rest = Replay(root(), resume, &skipped);
  std::vector<Seen> expected;
  std::copy_if(all.begin(), all.end(), std::back_inserter(expected),
               [](const Seen& s) { return s.offset >= 25; });
  EXPECT_EQ(rest, expected);
  EXPECT_EQ(skipped, 50);
}

TEST_F(PackedArchive, ACrashBetweenRenameAndRemovalListsEachResponseOnce) {
  Write(4);
  const auto loose = Replay(root(), {});
  // The loose hour as it was, restored beside its pack: what a crash right after the
  // pack's rename leaves.
  const fs::path hour = root() / "bull/date=2024-01-13/hour=22";
  const fs::path copy = dir_.path() / "copy";
  fs::copy(hour, copy, fs::copy_options::recursive);
  ASSERT_TRUE(CompactArchive(root(), base::Timestamp::max()).ok());
  fs::copy(copy, hour, fs::copy_options::recursive);
  EXPECT_EQ(Replay(root(), {}), loose);
  const auto tidy = CompactArchive(root(), base::Timestamp::max());
  ASSERT_TRUE(tidy.ok());
  EXPECT_TRUE(tidy->packed.empty());
  EXPECT_EQ(tidy->leftovers_removed, 8);
  EXPECT_FALSE(fs::exists(hour));
  EXPECT_EQ(Replay(root(), {}), loose);
}

TEST_F(PackedArchive, ADamagedPackIsAnErrorNamingIt) {
  Write(4);
  ASSERT_TRUE(CompactArchive(root(), base::Timestamp::max()).ok());
  const fs::path pack = root() / "rio-brt/date=2024-01-13/hour=22.pack";
  const auto bytes = *base::ReadFile(pack);
  ASSERT_TRUE(base::WriteFileAtomic(pack, bytes.substr(0, bytes.size() / 2)).ok());
  const auto listed = ExpandInputs({InputSpec{std::nullopt, true, root()}}, "");
  ASSERT_FALSE(listed.ok());
  EXPECT_NE(listed.error().message().find(pack.string()), std::string::npos)
      << listed.error().message();
  // Its index intact but a block damaged: the replay stops with the pack's name.
  std::string damaged = bytes;
  damaged[40] = static_cast<char>(damaged[40] ^ 0x11);
  ASSERT_TRUE(base::WriteFileAtomic(pack, damaged).ok());
  auto partitions = ExpandInputs({InputSpec{std::nullopt, true, root()}}, "");
  ASSERT_TRUE(partitions.ok()) << partitions.error().message();
  model::SourceCatalog catalog;
  auto replay = ReplaySource::Open(*partitions, &catalog, {}, {});
  std::vector<SourceRecord> batch;
  base::Status status = base::Status::Ok();
  while (status.ok()) {
    const auto more = (*replay)->Next(batch, 64);
    if (!more.ok()) {
      status = more.error();
    } else if (!*more) {
      break;
    }
  }
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message().find(pack.string()), std::string::npos)
      << status.error().message();
}

TEST_F(PackedArchive, TheFollowerReadsOnAcrossACompactionAndResumesAfterIt) {
  Write(3);
  model::SourceCatalog catalog;
  auto follower = ArchiveFollower::Open(root(), &catalog, {}, {});
  ASSERT_TRUE(follower.ok());
  ASSERT_TRUE((*follower)->Scan().ok());
  // Found but not read yet when their hour is packed.
  ASSERT_TRUE(CompactArchive(root(), base::Timestamp::max()).ok());
  auto seen = Follow(**follower, catalog);
  Write(7);
  ASSERT_TRUE((*follower)->Scan().ok());
  auto more = Follow(**follower, catalog);
  seen.insert(seen.end(), more.begin(), more.end());
  const auto progress = (*follower)->Progress();
  ASSERT_TRUE(CompactArchive(root(), *base::ParseIso8601("2024-01-14T00:00:00Z")).ok());
  const auto sorted = [](std::vector<Seen> v) {
    std::sort(v.begin(), v.end(), [](const Seen& a, const Seen& b) {
      return std::tie(a.partition, a.offset) < std::tie(b.partition, b.offset);
    });
    return v;
  };
  EXPECT_EQ(sorted(seen), sorted(Replay(root(), {})));

  // A new follower resuming from the progress: nothing again, then only what is new.
  model::SourceCatalog again_catalog;
  auto resumed = ArchiveFollower::Open(root(), &again_catalog, {}, progress);
  ASSERT_TRUE(resumed.ok());
  ASSERT_TRUE((*resumed)->Scan().ok());
  EXPECT_TRUE(Follow(**resumed, again_catalog).empty());
  EXPECT_EQ((*resumed)->skipped_records(), static_cast<std::int64_t>(seen.size()));
  Write(1);
  ASSERT_TRUE((*resumed)->Scan().ok());
  const auto after = Follow(**resumed, again_catalog);
  ASSERT_FALSE(after.empty());
  std::vector<Seen> expected;
  for (const auto& s : Replay(root(), {})) {
    if (std::find(seen.begin(), seen.end(), s) == seen.end()) {
      expected.push_back(s);
    }
  }
  EXPECT_EQ(sorted(after), sorted(expected));
}

}  // namespace
}  // namespace frota::source
