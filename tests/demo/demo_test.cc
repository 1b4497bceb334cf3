// `frota demo`, the README's first command, end to end on a small city: every step
// succeeds, the results are where it says, and it never deletes a folder it did not write.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "frota/testing/subprocess.h"

namespace frota::testing {
namespace {

namespace fs = std::filesystem;

TEST(Demo, RunsEveryStepAndSaysWhereTheResultsAre) {
  TempDir dir("demo");
  const fs::path out = dir.path() / "demo";
  const auto run = RunProcess(
      {FrotaBinary().string(), "demo", "--out", out.string(), "--vehicles", "20", "--seed", "3"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  for (const char* file : {"frota.duckdb", "dashboard.html", "replay-report.json",
                           "steps/simulate.txt", "steps/replay.txt", "steps/evaluate.txt",
                           "steps/reconcile.txt", "steps/headways.txt", "steps/dashboard.txt"}) {
    EXPECT_TRUE(fs::exists(out / file)) << file;
  }
  EXPECT_NE(run.out.find("positions accepted"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(out.string() + "/dashboard.html"), std::string::npos) << run.out;
  // headways ran before evaluate: the printed score has departures and headways.
  EXPECT_NE(run.out.find("score against the truth"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  departures  found"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  headways    lines"), std::string::npos) << run.out;
  // The batch recomputation agreed with the stream.
  std::ifstream reconcile(out / "steps/reconcile.txt");
  const std::string text((std::istreambuf_iterator<char>(reconcile)), {});
  EXPECT_NE(text.find("equal: the stream's tables match"), std::string::npos) << text;

  // A second demo into the same folder replaces the first.
  const auto again = RunProcess(
      {FrotaBinary().string(), "demo", "--out", out.string(), "--vehicles", "20", "--seed", "3"});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
}

TEST(Demo, RefusesAFolderItDidNotWrite) {
  TempDir dir("demo_refuses");
  const fs::path out = dir.path() / "mine";
  fs::create_directories(out);
  std::ofstream(out / "precious.txt") << "keep me";
  const auto run = RunProcess({FrotaBinary().string(), "demo", "--out", out.string()});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("not written by frota demo"), std::string::npos) << run.err;
  EXPECT_TRUE(fs::exists(out / "precious.txt"));
}

}  // namespace
}  // namespace frota::testing
