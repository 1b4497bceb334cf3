// `frota compact` end to end: a replay's tables are byte for byte the same before and
// after the archive's hours are packed, in place.
#include <gtest/gtest.h>

#include <filesystem>

#include "frota/testing/exports.h"
#include "frota/testing/subprocess.h"

namespace frota {
namespace {

namespace fs = std::filesystem;

testing::ProcessResult Frota(std::vector<std::string> args) {
  args.insert(args.begin(), {testing::FrotaBinary().string(), "--quiet"});
  return testing::RunProcess(args);
}

testing::Tree ReplayAndExport(const fs::path& dir, const std::string& name) {
  const fs::path sim = dir / "sim";
  const auto db = (dir / (name + ".duckdb")).string();
  const auto replay = Frota({"replay", "archive:" + sim.string(), "--gtfs", (sim / "gtfs").string(),
                             "--area", (sim / "area.geojson").string(), "--db", db});
  EXPECT_EQ(replay.exit_code, 0) << replay.err;
  return testing::ExportDuckDb(db, dir / ("export-" + name));
}

TEST(Compaction, ExportsAndInspectionAreByteIdenticalBeforeAndAfterCompact) {
  testing::TempDir dir("compaction");
  const fs::path sim = dir.path() / "sim";
  const auto simulated = Frota({"simulate", "--date", "2024-06-05", "--vehicles", "40", "--hours",
                                "6-8", "--seed", "3", "--out", sim.string()});
  ASSERT_EQ(simulated.exit_code, 0) << simulated.err;
  const auto inspect = [&] {
    const auto r = Frota({"inspect", "archive:" + sim.string(), "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  const auto loose = ReplayAndExport(dir.path(), "loose");
  const auto loose_inspect = inspect();
  ASSERT_FALSE(loose.empty());
  EXPECT_NE(loose_inspect.find("\"records\""), std::string::npos);

  const auto compacted = Frota({"compact", "--archive", sim.string(), "--closed"});
  ASSERT_EQ(compacted.exit_code, 0) << compacted.err;
  EXPECT_NE(compacted.out.find("not sealed 0"), std::string::npos) << compacted.out;
  std::int64_t packs = 0;
  std::int64_t bodies = 0;
  for (const auto& e : fs::recursive_directory_iterator(sim / "frota-sim")) {
    packs += e.path().extension() == ".pack" ? 1 : 0;
    bodies += e.path().extension() == ".pb" ? 1 : 0;
  }
  EXPECT_GT(packs, 3);
  EXPECT_EQ(bodies, 0);

  EXPECT_EQ(ReplayAndExport(dir.path(), "packed"), loose);
  EXPECT_EQ(inspect(), loose_inspect);
  // Idempotent: a second run packs nothing.
  const auto again = Frota({"compact", "--archive", sim.string(), "--closed"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("hours packed 0"), std::string::npos) << again.out;
}

}  // namespace
}  // namespace frota
