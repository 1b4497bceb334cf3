// The command line as a user meets it, through the binary: mistyped subcommands, inputs
// that do not open, help texts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "frota/sink/duckdb_sink.h"
#include "frota/testing/shared_data.h"
#include "frota/testing/subprocess.h"

namespace frota::cli {
namespace {

namespace fs = std::filesystem;

testing::ProcessResult Frota(std::vector<std::string> args) {
  args.insert(args.begin(), testing::FrotaBinary().string());
  return testing::RunProcess(args);
}

TEST(CommandLine, AnUnknownSubcommandIsNamedWithTheNearestOne) {
  const auto typo = Frota({"repaly", "x.csv"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_EQ(typo.err,
            "frota: unknown subcommand 'repaly'; did you mean 'replay'? (frota --help lists "
            "them)\n");
  // After a global option and its value, too.
  const auto after_option = Frota({"--log-level-file", "info", "headway"});
  EXPECT_EQ(after_option.exit_code, 2);
  EXPECT_NE(after_option.err.find("unknown subcommand 'headway'; did you mean 'headways'?"),
            std::string::npos)
      << after_option.err;
  // After a flag, the next word is the subcommand: a known one runs.
  const auto after_flag = Frota({"--quiet", "repaly"});
  EXPECT_NE(after_flag.err.find("unknown subcommand 'repaly'"), std::string::npos)
      << after_flag.err;
  const auto known = Frota({"-q", "version"});
  EXPECT_EQ(known.exit_code, 0) << known.err;
  // Nothing near: no suggestion.
  const auto far = Frota({"frobnicate"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_EQ(far.err, "frota: unknown subcommand 'frobnicate' (frota --help lists them)\n");
}

TEST(CommandLine, AReplayWhoseInputsDoNotOpenLeavesNoDatabase) {
  testing::TempDir dir("cli_inputs_fail");
  const fs::path db = dir.path() / "out.duckdb";
  const auto missing =
      Frota({"replay", (dir.path() / "absent.csv.gz").string(), "--db", db.string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("absent.csv.gz: no such file or folder"), std::string::npos)
      << missing.err;
  EXPECT_FALSE(fs::exists(db));

  // A gzip file cut short fails halfway through the replay: the database it made goes too.
  const fs::path truncated = dir.path() / "cut.csv.gz";
  {
    std::ofstream out(truncated, std::ios::binary);
    const unsigned char header[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00,
                                    0x00, 0x00, 0x03, 0x4b, 0xcc, 0xcb};
    out.write(reinterpret_cast<const char*>(header), sizeof(header));
  }
  const auto cut = Frota({"replay", "rio-archive-csv:" + truncated.string(), "--db", db.string()});
  EXPECT_EQ(cut.exit_code, 2) << cut.err;
  EXPECT_FALSE(fs::exists(db));
  EXPECT_FALSE(fs::exists(db.string() + ".wal"));
}

TEST(CommandLine, AReplayRecordsTheGaragesItIsGiven) {
  testing::TempDir dir("cli_garages");
  const fs::path garages = dir.path() / "garages.geojson";
  {
    // Two garages; the one picked by name is a square (two of its four edges slanted
    // enough to count: the horizontal ones are left out).
    std::ofstream out(garages);
    out << R"({"type": "FeatureCollection", "features": [
      {"type": "Feature", "properties": {"name": "A"}, "geometry": {"type": "Polygon",
        "coordinates": [[[-43.40, -22.97], [-43.38, -22.97], [-43.38, -22.96], [-43.40, -22.96]]]}},
      {"type": "Feature", "properties": {"name": "B"}, "geometry": {"type": "Polygon",
        "coordinates": [[[-43.30, -22.87], [-43.28, -22.86], [-43.29, -22.85]]]}}]})";
  }
  const fs::path db = dir.path() / "out.duckdb";
  const std::string sample =
      (testing::SourceDir() / "tests/data/samples/rio-sppo-sample.json").string();
  const auto missing = Frota(
      {"replay", sample, "--garages", (dir.path() / "none.geojson").string(), "--db", db.string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("none.geojson"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(db));

  const auto replay =
      Frota({"replay", sample, "--garages", garages.string() + "#name=A", "--db", db.string()});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  auto opened = sink::OpenFrotaDuckDb(db, /*must_exist=*/true);
  ASSERT_TRUE(opened.ok()) << opened.error().message();
  auto edges = (*opened)->Query("SELECT count(*), min(lon_a), max(lon_a) FROM garage_edges");
  ASSERT_TRUE(edges.ok()) << edges.error().message();
  EXPECT_EQ(edges->Int64(0, 0), 2);
  EXPECT_EQ(edges->Double(0, 1), -43.40);
  EXPECT_EQ(edges->Double(0, 2), -43.38);
}

TEST(CommandLine, RunHelpDescribesItsOwnKafkaAndHidesTestHooks) {
  const auto help = Frota({"run", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("consume --topic as one member of the group"), std::string::npos)
      << help.out;
  EXPECT_EQ(help.out.find("--fault"), std::string::npos) << help.out;
}

TEST(CommandLine, HeadwaysHelpExplainsTheTextTablesColumns) {
  const auto help = Frota({"headways", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* column :
       {"ratio:", "bunch:", "gap:", "los:", "ewt_s:", "hw:", "excl:", "cover:"}) {
    EXPECT_NE(help.out.find(column), std::string::npos) << column;
  }
}

}  // namespace
}  // namespace frota::cli
