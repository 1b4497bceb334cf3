// Bad input to `frota replay` over a database that already holds a committed replay (one
// line of the real Rio BRT archive): an unreadable input file, a corrupt database, a
// checkpoint from another version and a GTFS that lacks a route seen in the feed each
// give one clear message, and nothing already committed is lost or changed.
#include <gtest/gtest.h>

#include <fstream>

#include "frota/base/file.h"
#include "frota/engine/checkpoint.h"
#include "frota/sink/duckdb_connection.h"
#include "frota/testing/exports.h"
#include "frota/testing/shared_data.h"
#include "frota/testing/subprocess.h"

namespace frota {
namespace {

namespace fs = std::filesystem;
using testing::FrotaBinary;
using testing::ProcessResult;
using testing::RunProcess;

using testing::Tree;

std::size_t Lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The file's bytes, or "" if it cannot be read.
std::string Slurp(const fs::path& path) {
  auto bytes = base::ReadFile(path);
  return bytes.ok() ? std::move(*bytes) : std::string();
}

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto archive = testing::FindBrtArchive({"19.csv.gz"});
    if (!archive || archive->files.size() != 1) {
      FROTA_SHARED_MISSING("real Rio BRT archive not found under " << testing::SharedDataDir());
    }
    input_ = archive->files.front();
    gtfs_ = archive->gtfs;
    area_ = archive->area;
    db_ = tmp_.path() / "brt.duckdb";
    const auto first = Replay({input_}, gtfs_);
    ASSERT_EQ(first.exit_code, 0) << first.err;
    committed_ = Export("committed");
    ASSERT_FALSE(committed_.empty());
  }

  ProcessResult Replay(const std::vector<std::string>& inputs, const std::string& gtfs,
                       const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> argv = {FrotaBinary().string(), "-q", "replay"};
    argv.insert(argv.end(), inputs.begin(), inputs.end());
    for (const auto& a : {std::string("--gtfs"), gtfs, std::string("--area"), area_,
                          std::string("--db"), db_.string()}) {
      argv.push_back(a);
    }
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunProcess(argv);
  }

  Tree Export(const std::string& name) const {
    return testing::ExportDuckDb(db_, tmp_.path() / name);
  }

  // Exactly one line on stderr, naming `what`.
  static void ExpectOneClearMessage(const ProcessResult& run, const std::string& what) {
    EXPECT_NE(run.exit_code, 0);
    EXPECT_EQ(Lines(run.err), 1U) << run.err;
    EXPECT_NE(run.err.find(what), std::string::npos) << run.err;
  }

  void ExpectCommittedUnchanged(const std::string& name) {
    const Tree now = Export(name);
    ASSERT_EQ(now.size(), committed_.size());
    for (std::size_t i = 0; i < now.size(); ++i) {
      EXPECT_TRUE(now[i] == committed_[i]) << now[i].first << " changed";
    }
  }

  testing::TempDir tmp_{"bad-input"};
  std::string input_;
  std::string gtfs_;
  std::string area_;
  fs::path db_;
  Tree committed_;
};

TEST_F(BadInput, AnUnreadableInputFileIsOneClearErrorAndNothingCommittedChanges) {
  const auto missing = (tmp_.path() / "no-such-file.csv.gz").string();
  ExpectOneClearMessage(Replay({input_, missing}, gtfs_), "no-such-file.csv.gz: no such file");
  const auto garbage = tmp_.path() / "garbage.csv.gz";
  std::ofstream(garbage, std::ios::binary) << std::string("\x1f\x8b\x08\x00garbage", 11);
  ExpectOneClearMessage(Replay({input_, garbage.string()}, gtfs_),
                        "garbage.csv.gz: gzip data truncated");
  const auto not_csv = tmp_.path() / "not-an-archive.csv";
  std::ofstream(not_csv) << "this,is\nnot,an archive\n";
  ExpectOneClearMessage(Replay({input_, not_csv.string()}, gtfs_), "not-an-archive.csv");
  ExpectCommittedUnchanged("after-unreadable");
}

TEST_F(BadInput, ABadRuleOrOtherRulesThanTheDatabasesAreOneClearError) {
  ExpectOneClearMessage(Replay({input_}, gtfs_, {"--rule", "stale_after_s=soon"}),
                        "rule stale_after_s: 'soon' is not a number");
  ExpectOneClearMessage(Replay({input_}, gtfs_, {"--rule", "stale_limit_s=600"}),
                        "unknown rule 'stale_limit_s'");
  ExpectOneClearMessage(Replay({input_}, gtfs_, {"--rule", "max_speed_kmh.brt=-1"}),
                        "rule max_speed_kmh.brt");
  // The database was made with the default rules: a replay with others is refused.
  ExpectOneClearMessage(Replay({input_}, gtfs_, {"--rule", "stale_after_s=900"}),
                        "made with rule stale_after_s=300, this run has stale_after_s=900");
  ExpectCommittedUnchanged("after-rules");
  // The same rules spelled out are the database's: the resume goes ahead.
  const auto same = Replay({input_}, gtfs_, {"--rule", "stale_after_s=300"});
  EXPECT_EQ(same.exit_code, 0) << same.err;
  ExpectCommittedUnchanged("after-same-rules");
}

TEST_F(BadInput, ACorruptDatabaseIsRefusedAndLeftAsItWas) {
  // Half of a real database file, and text: neither is opened for writing.
  const auto half = tmp_.path() / "half.duckdb";
  {
    const std::string whole = Slurp(db_);
    std::ofstream(half, std::ios::binary) << whole.substr(0, whole.size() / 2);
  }
  const auto text = tmp_.path() / "text.duckdb";
  std::ofstream(text) << "not a database\n";
  for (const auto& corrupt : {half, text}) {
    const std::string before = Slurp(corrupt);
    auto argv = std::vector<std::string>{FrotaBinary().string(), "-q", "replay", input_, "--db",
                                         corrupt.string()};
    const auto run = RunProcess(argv);
    ExpectOneClearMessage(run, corrupt.filename().string());
    EXPECT_TRUE(Slurp(corrupt) == before) << corrupt << " was modified";
  }
  ExpectCommittedUnchanged("after-corrupt");
}

TEST_F(BadInput, ACheckpointFromAnotherVersionIsRefusedWithoutTouchingTheDatabase) {
  // Partition 0's state as a future frota would seal it: same kind, version 99.
  const std::string future = engine::SealCheckpoint("job-shard", 99, "state of the future");
  {
    auto db = sink::DuckDbConnection::Open(db_);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)
                    ->ExecuteWith("UPDATE engine_state SET state = $1 WHERE partition_id = 0",
                                  {sink::SqlParam::Blob(future)})
                    .ok());
  }
  ASSERT_FALSE(fs::exists(db_.string() + ".wal"));
  const std::string before = Slurp(db_);
  const auto run = Replay({input_}, gtfs_);
  ExpectOneClearMessage(run, "version 99");
  // The run stopped before writing anything: the file is byte for byte as it was (its
  // views are re-created only when missing or from another frota), the refused state is
  // still there for the frota that wrote it, and the export is as committed.
  EXPECT_TRUE(Slurp(db_) == before) << db_ << " was modified";
  EXPECT_FALSE(fs::exists(db_.string() + ".wal"));
  {
    auto db = sink::DuckDbConnection::Open(db_, /*read_only=*/true);
    ASSERT_TRUE(db.ok());
    auto state = (*db)->Query("SELECT state FROM engine_state WHERE partition_id = 0");
    ASSERT_TRUE(state.ok()) << state.error().message();
    ASSERT_EQ(state->rows(), 1U);
    EXPECT_TRUE(state->Blob(0, 0) == future) << "partition 0's state was replaced";
  }
  ExpectCommittedUnchanged("after-version");
}

TEST_F(BadInput, AGtfsWithoutARouteOfTheFeedIsReportedAndItsStopsSayNull) {
  // The archive's line 19 taken out of the static GTFS.
  const auto gtfs = tmp_.path() / "gtfs-without-19";
  fs::copy(gtfs_, gtfs, fs::copy_options::recursive);
  {
    std::ifstream in(gtfs / "routes.csv");
    std::string header;
    std::getline(in, header);
    std::string kept = header + "\n";
    std::string line;
    int removed = 0;
    while (std::getline(in, line)) {
      if (line.find(",19,") != std::string::npos) {
        ++removed;
        continue;
      }
      kept += line + "\n";
    }
    ASSERT_GT(removed, 0);
    std::ofstream(gtfs / "routes.csv", std::ios::trunc) << kept;
  }
  db_ = tmp_.path() / "without-19.duckdb";
  const auto report = tmp_.path() / "report.json";
  const auto run = Replay({input_}, gtfs.string(), {"--report", report.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(Lines(run.err), 1U) << run.err;  // one warning
  EXPECT_NE(run.err.find("the GTFS has no route for 1 route ids seen in the feed (19)"),
            std::string::npos)
      << run.err;
  EXPECT_NE(Slurp(report).find("\"unknown_routes\": [\n    \"19\"\n  ]"), std::string::npos)
      << Slurp(report);
  // Every stop of line 19 has near_terminal and place null (the last two columns, empty in
  // CSV: at no depot either); with the route known (the committed run) some are at a
  // terminal.
  const Tree without = Export("without-19");
  const auto stops = [](const Tree& tree) {
    for (const auto& [file, bytes] : tree) {
      if (file == "stops.csv") {
        return bytes;
      }
    }
    return std::string();
  };
  const std::string bare = stops(without);
  ASSERT_GT(Lines(bare), 10U);
  std::size_t rows = 0;
  std::size_t null_terminal = 0;
  std::size_t pos = bare.find('\n') + 1;
  while (pos < bare.size()) {
    const auto end = bare.find('\n', pos);
    const std::string row = bare.substr(pos, end - pos);
    ++rows;
    null_terminal += row.ends_with(",,") ? 1 : 0;
    pos = end + 1;
  }
  EXPECT_EQ(null_terminal, rows);
  EXPECT_NE(stops(committed_).find(",true,terminal\n"), std::string::npos);
}

}  // namespace
}  // namespace frota
