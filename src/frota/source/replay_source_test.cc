#include "frota/source/replay_source.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "frota/engine/keyed_processor.h"
#include "frota/testing/subprocess.h"

namespace frota::source {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kHeader =
    "index,data,hora,id_veiculo,timestamp_gps,timestamp_captura,latitude,longitude,servico,"
    "sentido,velocidade,direction,trip_short_name,trip_id\n";

void WriteCsv(const fs::path& path, const std::vector<std::pair<std::string, std::string>>& rows) {
  std::ofstream out(path);
  out << kHeader;
  int i = 0;
  for (const auto& [vehicle, minute] : rows) {
    out << i++ << ",2022-06-30 00:00:00,7," << vehicle << ",2022-06-30 07:" << minute
        << ":00,2022-06-30 07:" << minute << ":20,-22.99,-43.59,13,IDA,30,I,13,T1\n";
  }
}

std::vector<std::string> ReadAll(ReplaySource& source) {
  std::vector<std::string> seen;
  std::vector<SourceRecord> batch;
  while (*source.Next(batch, 2)) {
    for (const auto& r : batch) {
      const auto& p = std::get<model::Position>(r.record);
      seen.push_back(p.vehicle_id + "@" + base::FormatIso8601(p.ingest_time));
    }
  }
  return seen;
}

TEST(ReplaySource, MergesPartitionsInIngestTimeOrderWhateverTheInputOrder) {
  testing::TempDir dir("replay-source-merge");
  WriteCsv(dir.path() / "a.csv", {{"A", "01"}, {"A", "03"}, {"A", "05"}});
  WriteCsv(dir.path() / "b.csv", {{"B", "02"}, {"B", "04"}});
  const std::vector<std::string> expected = {"A@2022-06-30T10:01:20Z", "B@2022-06-30T10:02:20Z",
                                             "A@2022-06-30T10:03:20Z", "B@2022-06-30T10:04:20Z",
                                             "A@2022-06-30T10:05:20Z"};
  for (const auto& order :
       {std::vector<std::string>{"a.csv", "b.csv"}, std::vector<std::string>{"b.csv", "a.csv"}}) {
    std::vector<InputSpec> specs;
    for (const auto& name : order) {
      specs.push_back(*ParseInputSpec((dir.path() / name).string()));
    }
    auto partitions = ExpandInputs(specs, "");
    ASSERT_TRUE(partitions.ok()) << partitions.error().message();
    model::SourceCatalog catalog;
    auto source = ReplaySource::Open(std::move(*partitions), &catalog, {}, {});
    ASSERT_TRUE(source.ok());
    EXPECT_EQ(ReadAll(**source), expected);
    const auto progress = (*source)->Progress();
    ASSERT_EQ(progress.size(), 2U);
    EXPECT_EQ(progress[0].partition.value(), 0);  // a.csv sorts first
    EXPECT_EQ(progress[0].next_offset.value(), 3);
    EXPECT_EQ(progress[1].next_offset.value(), 2);
  }
}

TEST(ReplaySource, ResumesAfterTheCommittedOffsets) {
  testing::TempDir dir("replay-source-resume");
  WriteCsv(dir.path() / "a.csv", {{"A", "01"}, {"A", "03"}, {"A", "05"}});
  WriteCsv(dir.path() / "b.csv", {{"B", "02"}, {"B", "04"}});
  std::vector<InputSpec> specs = {*ParseInputSpec((dir.path() / "a.csv").string()),
                                  *ParseInputSpec((dir.path() / "b.csv").string())};
  auto partitions = ExpandInputs(specs, "");
  ASSERT_TRUE(partitions.ok());
  const std::vector<engine::SourceProgress> committed = {
      {(*partitions)[0].name, base::PartitionId(0), base::Offset(2)},
      {(*partitions)[1].name, base::PartitionId(1), base::Offset(1)}};
  model::SourceCatalog catalog;
  auto source = ReplaySource::Open(std::move(*partitions), &catalog, {}, committed);
  ASSERT_TRUE(source.ok());
  EXPECT_EQ(ReadAll(**source),
            (std::vector<std::string>{"B@2022-06-30T10:04:20Z", "A@2022-06-30T10:05:20Z"}));
  EXPECT_EQ((*source)->skipped_records(), 3);
}

TEST(PrefetchingSource, GivesWhatTheSourceGivesBatchByBatchReusingTheCallersBatches) {
  // 3 files of 400 rows read 7 records at a time, 2 batches ahead: the records, their
  // order and the progress after each batch are the source's own, while the batches the
  // caller hands back are refilled on the reading thread.
  testing::TempDir dir("replay-source-prefetch");
  std::vector<InputSpec> specs;
  for (const std::string name : {"a", "b", "c"}) {
    std::vector<std::pair<std::string, std::string>> rows;
    for (int i = 0; i < 400; ++i) {
      rows.emplace_back(name + std::to_string(i), fmt::format("{:02d}", i % 60));
    }
    WriteCsv(dir.path() / (name + ".csv"), rows);
    specs.push_back(*ParseInputSpec((dir.path() / (name + ".csv")).string()));
  }
  const auto open = [&](model::SourceCatalog& catalog) {
    auto partitions = ExpandInputs(specs, "");
    EXPECT_TRUE(partitions.ok());
    auto source = ReplaySource::Open(std::move(*partitions), &catalog, {}, {});
    EXPECT_TRUE(source.ok());
    return std::move(*source);
  };
  const auto describe = [](const std::vector<SourceRecord>& batch) {
    std::vector<std::string> out;
    for (const auto& r : batch) {
      const auto& p = std::get<model::Position>(r.record);
      out.push_back(fmt::format("{}/{}@{}", r.partition.value(), r.offset, p.vehicle_id));
    }
    return out;
  };
  model::SourceCatalog direct_catalog;
  auto direct = open(direct_catalog);
  model::SourceCatalog prefetched_catalog;
  PrefetchingSource prefetched(open(prefetched_catalog), 7, 2);
  std::vector<SourceRecord> want;
  std::vector<SourceRecord> got;
  std::size_t batches = 0;
  std::size_t records = 0;
  while (true) {
    const auto more = direct->Next(want, 7);
    ASSERT_TRUE(more.ok());
    const auto got_more = prefetched.Next(got);
    ASSERT_TRUE(got_more.ok());
    ASSERT_EQ(*got_more, *more) << "after " << batches << " batches";
    if (!*more) {
      break;
    }
    ++batches;
    records += got.size();
    ASSERT_EQ(describe(got), describe(want)) << "batch " << batches;
    const auto progress = prefetched.Progress();
    const auto direct_progress = direct->Progress();
    ASSERT_EQ(progress.size(), direct_progress.size());
    for (std::size_t i = 0; i < progress.size(); ++i) {
      EXPECT_EQ(progress[i].next_offset.value(), direct_progress[i].next_offset.value());
    }
  }
  EXPECT_EQ(records, 1200U);
  EXPECT_GE(batches, 1200U / 7);
  EXPECT_TRUE(got.empty());
}

TEST(InterningPrefetchingSource, GivesTheSourcesRecordsInternedAndTheirKeysHashes) {
  // Records of 3 files (vehicles changing route and trip, a vehicle id that is also a
  // route's text, malformed rows) interned on the reading thread while this one reads the
  // dictionary: each record equals the source's own, its strings by id, its key hash
  // that of its texts (what job::Pipeline routes by).
  testing::TempDir dir("replay-source-interning");
  std::vector<InputSpec> specs;
  for (const std::string name : {"a", "b", "c"}) {
    std::ofstream out(dir.path() / (name + ".csv"));
    out << kHeader;
    for (int i = 0; i < 500; ++i) {
      const std::string vehicle = i % 97 == 0 ? "13" : fmt::format("{}{}", name, i % 23);
      const std::string minute = fmt::format("{:02d}", i % 60);
      if (i % 71 == 5) {
        out << i << ",2022-06-30 00:00:00,7," << vehicle << ",not a time\n";  // malformed
        continue;
      }
      out << i << ",2022-06-30 00:00:00,7," << vehicle << ",2022-06-30 07:" << minute
          << ":00,2022-06-30 07:" << minute << ":20,-22.99,-43.59," << (i / 50) % 3 << ",IDA,30,"
          << (i % 2 == 0 ? "I" : "V") << ",13,T" << (i / 40) % 4 << "\n";
    }
    out.close();
    specs.push_back(*ParseInputSpec((dir.path() / (name + ".csv")).string()));
  }
  const auto open = [&](model::SourceCatalog& catalog) {
    auto partitions = ExpandInputs(specs, "");
    EXPECT_TRUE(partitions.ok());
    auto source = ReplaySource::Open(std::move(*partitions), &catalog, {}, {});
    EXPECT_TRUE(source.ok());
    return std::move(*source);
  };
  model::SourceCatalog direct_catalog;
  auto direct = open(direct_catalog);
  model::SourceCatalog interned_catalog;
  auto strings = std::make_shared<model::StringDictionary>();
  model::RecordInterner interner(strings);
  InterningPrefetchingSource interned(open(interned_catalog), 11, interner, 2);
  const auto key_hash = [](std::string_view feed, std::string_view vehicle) {
    return engine::KeyRef::CombineHashes(model::StringDictionary::TextHash(feed),
                                         model::StringDictionary::TextHash(vehicle));
  };
  std::vector<SourceRecord> want;
  std::vector<InternedRecord> got;
  std::size_t positions = 0;
  std::size_t rejections = 0;
  while (true) {
    const auto more = direct->Next(want, 11);
    ASSERT_TRUE(more.ok());
    const auto got_more = interned.Next(got);
    ASSERT_TRUE(got_more.ok());
    ASSERT_EQ(*got_more, *more);
    if (!*more) {
      break;
    }
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].partition, want[i].partition);
      ASSERT_EQ(got[i].offset, want[i].offset);
      if (const auto* p = std::get_if<model::Position>(&want[i].record)) {
        ++positions;
        const auto* r = std::get_if<model::PositionRecord>(&got[i].record);
        ASSERT_NE(r, nullptr) << "offset " << want[i].offset;
        const model::Position back = model::MaterializePosition(*r, *strings);
        EXPECT_EQ(back.vehicle_id, p->vehicle_id);
        EXPECT_EQ(back.feed_id, p->feed_id);
        EXPECT_EQ(back.route_id, p->route_id);
        EXPECT_EQ(back.trip_id, p->trip_id);
        EXPECT_EQ(back.trip_start_date, p->trip_start_date);
        EXPECT_EQ(back.trip_start_time, p->trip_start_time);
        EXPECT_EQ(back.direction_id, p->direction_id);
        EXPECT_EQ(back.event_time, p->event_time);
        EXPECT_EQ(back.ingest_time, p->ingest_time);
        EXPECT_EQ(back.lat, p->lat);
        EXPECT_EQ(back.source.offset, p->source.offset);
        EXPECT_EQ(got[i].key_hash, key_hash(p->feed_id, p->vehicle_id));
      } else {
        ++rejections;
        const auto& j = std::get<model::Rejection>(want[i].record);
        const auto* r = std::get_if<model::RejectionRecord>(&got[i].record);
        ASSERT_NE(r, nullptr) << "offset " << want[i].offset;
        EXPECT_EQ(r->reason, j.reason);
        EXPECT_EQ(strings->View(r->vehicle_id), j.vehicle_id);
        EXPECT_EQ(strings->View(r->feed_id), j.feed_id);
        EXPECT_EQ(r->detail, j.detail);
        EXPECT_EQ(got[i].key_hash, key_hash(j.feed_id, j.vehicle_id));
      }
    }
  }
  EXPECT_EQ(positions + rejections, 1500U);
  EXPECT_GT(rejections, 15U);
}

TEST(InputSpec, FormatPrefixesAndBarePaths) {
  EXPECT_EQ(ParseInputSpec("rio-sppo:x.json")->format, codec::Format::kRioSppo);
  EXPECT_EQ(ParseInputSpec("x.json")->format, std::nullopt);
  EXPECT_EQ(ParseInputSpec("c:/weird:path")->path, "c:/weird:path");
  EXPECT_FALSE(ExpandInputs({*ParseInputSpec("/nonexistent/file.pb")}, "").ok());
}

}  // namespace
}  // namespace frota::source
