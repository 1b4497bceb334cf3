// `frota replay` over the real Rio BRT archive gives byte-identical exports whatever the
// partition count, epoch size, input order or crashes (semantics.md section 3).
#include <gtest/gtest.h>

#include <iostream>
#include <random>

#include "frota/testing/exports.h"
#include "frota/testing/shared_data.h"
#include "frota/testing/subprocess.h"

namespace frota {
namespace {

namespace fs = std::filesystem;
using testing::ExpectSameTables;
using testing::FrotaBinary;
using testing::ProcessResult;
using testing::RunProcess;
using testing::Tree;

class ReplayDeterminism : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto archive = testing::FindBrtArchive();
    if (!archive) {
      FROTA_SHARED_MISSING("real Rio BRT archive not found under " << testing::SharedDataDir());
    }
    inputs_ = archive->files;
    gtfs_ = archive->gtfs;
    area_ = archive->area;
  }

  std::vector<std::string> ReplayArgs(const fs::path& db, const std::vector<std::string>& inputs,
                                      int partitions, std::int64_t epoch_records) const {
    std::vector<std::string> argv = {FrotaBinary().string(), "-q", "replay"};
    argv.insert(argv.end(), inputs.begin(), inputs.end());
    for (const std::string& a :
         {std::string("--gtfs"), gtfs_, std::string("--area"), area_, std::string("--db"),
          db.string(), std::string("--partitions"), std::to_string(partitions),
          std::string("--epoch-records"), std::to_string(epoch_records)}) {
      argv.push_back(a);
    }
    return argv;
  }

  // Replays, exports, and returns the exported tree.
  Tree ReplayAndExport(const std::string& name, const std::vector<std::string>& inputs,
                       int partitions, std::int64_t epoch_records) {
    const auto db = tmp_.path() / (name + ".duckdb");
    const ProcessResult replay = RunProcess(ReplayArgs(db, inputs, partitions, epoch_records));
    EXPECT_EQ(replay.exit_code, 0) << replay.err;
    return Export(name, db);
  }

  Tree Export(const std::string& name, const fs::path& db) {
    return testing::ExportDuckDb(db, tmp_.path() / (name + "-export"));
  }

  testing::TempDir tmp_{"replay-determinism"};
  std::vector<std::string> inputs_;
  std::string gtfs_;
  std::string area_;
};

TEST_F(ReplayDeterminism, ExportsAreByteIdenticalAcrossPartitionsEpochsOrdersAndKills) {
  const auto baseline = ReplayAndExport("p1", inputs_, 1, 1'000'000);
  ASSERT_FALSE(baseline.empty());
  // The baseline is not trivially empty: real rows in every main table.
  for (const auto& [file, bytes] : baseline) {
    if (file == "positions.csv" || file == "stops.csv" || file == "trips.csv" ||
        file == "speed_cells.csv") {
      EXPECT_GT(std::count(bytes.begin(), bytes.end(), '\n'), 100) << file;
    }
  }

  SCOPED_TRACE("4 partitions");
  ExpectSameTables(baseline, ReplayAndExport("p4", inputs_, 4, 1'000'000));
  SCOPED_TRACE("16 partitions");
  ExpectSameTables(baseline, ReplayAndExport("p16", inputs_, 16, 1'000'000));
  SCOPED_TRACE("epochs of 1,000 records");
  ExpectSameTables(baseline, ReplayAndExport("e1000", inputs_, 4, 1'000));
  SCOPED_TRACE("inputs in reverse and shuffled order");
  auto reversed = inputs_;
  std::reverse(reversed.begin(), reversed.end());
  ExpectSameTables(baseline, ReplayAndExport("reversed", reversed, 1, 1'000'000));
  auto shuffled = inputs_;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(3));
  ExpectSameTables(baseline, ReplayAndExport("shuffled", shuffled, 2, 50'000));

  SCOPED_TRACE("killed with SIGKILL at 20 random moments, resumed each time");
  // Small epochs make the whole replay long enough (hundreds of commits) for twenty kills
  // at random moments, each after a random share of a commit cycle.
  const auto db = tmp_.path() / "killed.duckdb";
  const auto argv = ReplayArgs(db, inputs_, 4, 1'000);
  std::mt19937 rng(20221129);
  std::vector<int> kill_ms;
  while (kill_ms.size() < 20) {
    const int after = 100 + static_cast<int>(rng() % 900);
    const ProcessResult run = testing::RunAndKillAfter(argv, std::chrono::milliseconds(after));
    if (run.signal != SIGKILL) {
      ASSERT_EQ(run.exit_code, 0) << run.err;
      break;  // it finished first: no more kills are possible on this database
    }
    kill_ms.push_back(after);
  }
  ::testing::Test::RecordProperty("kills", static_cast<int>(kill_ms.size()));
  std::cerr << "killed " << kill_ms.size() << " times, after (ms):";
  for (const int ms : kill_ms) {
    std::cerr << ' ' << ms;
  }
  std::cerr << '\n';
  ASSERT_EQ(kill_ms.size(), 20U) << "the replay finished before 20 kills";
  const ProcessResult last = RunProcess(argv);  // resume to the end
  ASSERT_EQ(last.exit_code, 0) << last.err;
  ExpectSameTables(baseline, Export("killed", db));

  SCOPED_TRACE("a rerun on a finished database adds nothing");
  const ProcessResult again = RunProcess(argv);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  ExpectSameTables(baseline, Export("again", db));
}

}  // namespace
}  // namespace frota
