#include "frota/source/replay_source.h"

#include <gtest/gtest.h>

#include <fstream>

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
  const std::vector<std::string> expected = {
      "A@2022-06-30T10:01:20Z", "B@2022-06-30T10:02:20Z", "A@2022-06-30T10:03:20Z",
      "B@2022-06-30T10:04:20Z", "A@2022-06-30T10:05:20Z"};
  for (const auto& order : {std::vector<std::string>{"a.csv", "b.csv"},
                            std::vector<std::string>{"b.csv", "a.csv"}}) {
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

TEST(InputSpec, FormatPrefixesAndBarePaths) {
  EXPECT_EQ(ParseInputSpec("rio-sppo:x.json")->format, codec::Format::kRioSppo);
  EXPECT_EQ(ParseInputSpec("x.json")->format, std::nullopt);
  EXPECT_EQ(ParseInputSpec("c:/weird:path")->path, "c:/weird:path");
  EXPECT_FALSE(ExpandInputs({*ParseInputSpec("/nonexistent/file.pb")}, "").ok());
}

}  // namespace
}  // namespace frota::source
