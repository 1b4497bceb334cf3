// Loading days one after another into one database gives the tables of one replay of
// them all, and retention keeps exactly the days it should, whatever kills it
// (semantics.md sections 2-3, docs/tables.md "Retention", docs/semantics-notes.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "frota/testing/exports.h"
#include "frota/testing/subprocess.h"

namespace frota {
namespace {

namespace fs = std::filesystem;
using testing::ExpectSameTables;
using testing::FrotaBinary;
using testing::ProcessResult;
using testing::RunProcess;
using testing::Tree;

// Three simulated days that do not overlap in time (service from 6 to 9 local), one city:
// the same vehicles, routes and feed every day.
class DayAfterDay : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir("day-after-day");
    for (const std::string date : {"2024-06-04", "2024-06-05", "2024-06-06"}) {
      const auto out = dir_->path() / date;
      const ProcessResult made =
          RunProcess({FrotaBinary().string(), "-q", "simulate", "--date", date, "--vehicles", "24",
                      "--hours", "6-9", "--seed", "7", "--out", out.string()});
      ASSERT_EQ(made.exit_code, 0) << made.err;
      days_.push_back(out);
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
    days_.clear();
  }

  static std::string Archive(std::size_t day) { return "archive:" + days_.at(day).string(); }

  static std::vector<std::string> ReplayArgs(const fs::path& db,
                                             const std::vector<std::string>& inputs,
                                             const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv = {FrotaBinary().string(), "-q", "replay"};
    argv.insert(argv.end(), inputs.begin(), inputs.end());
    for (const std::string& a : {std::string("--area"), (days_[0] / "area.geojson").string(),
                                 std::string("--db"), db.string()}) {
      argv.push_back(a);
    }
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }

  static Tree Export(const std::string& name, const fs::path& db) {
    return testing::ExportDuckDb(db, dir_->path() / (name + "-export"));
  }

  static const std::string& File(const Tree& tree, std::string_view name) {
    for (const auto& [file, bytes] : tree) {
      if (file == name) {
        return bytes;
      }
    }
    static const std::string kNone;
    ADD_FAILURE() << "no " << name << " in the export";
    return kNone;
  }

  // The local dates (Rio) of the rows of an exported CSV, by its event_time column.
  static std::set<std::string> DatesOf(const std::string& csv, std::string_view column) {
    std::istringstream lines(csv);
    std::string header;
    std::getline(lines, header);
    std::size_t index = 0;
    {
      std::istringstream names(header);
      std::string name;
      while (std::getline(names, name, ',') && name != column) {
        ++index;
      }
    }
    std::set<std::string> dates;
    std::string line;
    while (std::getline(lines, line)) {
      std::istringstream fields(line);
      std::string field;
      for (std::size_t i = 0; i <= index && std::getline(fields, field, ','); ++i) {
      }
      dates.insert(field.substr(0, 10));
    }
    return dates;
  }

  // The export without its `source` and `source_offset` columns (fields are split at
  // commas outside quotes).
  static Tree WithoutSources(Tree tree) {
    for (auto& [file, bytes] : tree) {
      std::istringstream lines(bytes);
      std::string out;
      std::string line;
      std::set<std::size_t> dropped;
      bool header = true;
      while (std::getline(lines, line)) {
        std::vector<std::string> fields(1);
        bool quoted = false;
        for (const char c : line) {
          if (c == '"') {
            quoted = !quoted;
          }
          if (c == ',' && !quoted) {
            fields.emplace_back();
          } else {
            fields.back() += c;
          }
        }
        if (header) {
          for (std::size_t i = 0; i < fields.size(); ++i) {
            if (fields[i] == "source" || fields[i] == "source_offset") {
              dropped.insert(i);
            }
          }
          header = false;
        }
        std::string kept;
        for (std::size_t i = 0; i < fields.size(); ++i) {
          if (!dropped.contains(i)) {
            kept += (kept.empty() && i == 0 ? "" : ",") + fields[i];
          }
        }
        out += kept + "\n";
      }
      bytes = std::move(out);
    }
    return tree;
  }

  static testing::TempDir* dir_;
  static std::vector<fs::path> days_;
};

testing::TempDir* DayAfterDay::dir_ = nullptr;
std::vector<fs::path> DayAfterDay::days_;

TEST_F(DayAfterDay, LoadingDaysOneAfterAnotherEqualsOneReplayOfThemAll) {
  const auto all = dir_->path() / "all.duckdb";
  const ProcessResult together = RunProcess(ReplayArgs(all, {Archive(0), Archive(1), Archive(2)}));
  ASSERT_EQ(together.exit_code, 0) << together.err;
  const Tree expected = Export("all", all);
  ASSERT_GT(std::count(File(expected, "positions.csv").begin(),
                       File(expected, "positions.csv").end(), '\n'),
            1000);
  // Every day holds late records of its own (the simulator's late responses): the same
  // ones either way, so `late` is compared too, in quality.csv and rejected.csv.
  ASSERT_NE(File(expected, "rejected.csv").find(",late,"), std::string::npos);

  const auto sequential = dir_->path() / "sequential.duckdb";
  for (std::size_t day = 0; day < days_.size(); ++day) {
    const ProcessResult loaded = RunProcess(ReplayArgs(sequential, {Archive(day)}));
    ASSERT_EQ(loaded.exit_code, 0) << "day " << day << ": " << loaded.err;
  }
  ExpectSameTables(expected, Export("sequential", sequential));

  SCOPED_TRACE("a day loaded again adds nothing");
  const ProcessResult again = RunProcess(ReplayArgs(sequential, {Archive(1)}));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  ExpectSameTables(expected, Export("again", sequential));
}

// --retain-days 1 keeps the raw tables of the newest day only, at every epoch boundary,
// in the epoch's transaction: killed at random moments and resumed, the database ends as
// a run that was never killed, holding one day of positions and every day's results.
TEST_F(DayAfterDay, RetentionUnderKillsKeepsExactlyTheDaysItShould) {
  const std::vector<std::string> retain = {"--retain-days", "1", "--epoch-records", "2000"};
  const auto clean = dir_->path() / "clean.duckdb";
  std::vector<int> day_ms;  // how long each day's replay takes here: kills land inside it
  for (std::size_t day = 0; day < days_.size(); ++day) {
    const auto started = std::chrono::steady_clock::now();
    const ProcessResult loaded = RunProcess(ReplayArgs(clean, {Archive(day)}, retain));
    ASSERT_EQ(loaded.exit_code, 0) << "day " << day << ": " << loaded.err;
    day_ms.push_back(static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::steady_clock::now() - started)
                                          .count()));
  }
  const Tree expected = Export("clean", clean);
  EXPECT_EQ(DatesOf(File(expected, "positions.csv"), "event_time"),
            std::set<std::string>{"2024-06-06"});
  // Results are kept: speed cells of all three days.
  EXPECT_EQ(DatesOf(File(expected, "speed_cells.csv"), "local_date"),
            (std::set<std::string>{"2024-06-04", "2024-06-05", "2024-06-06"}));

  const auto killed = dir_->path() / "killed.duckdb";
  std::mt19937 rng(20261207);
  int kills = 0;
  for (std::size_t day = 0; day < days_.size(); ++day) {
    const auto argv = ReplayArgs(killed, {Archive(day)}, retain);
    for (int attempt = 0; attempt < 4; ++attempt) {
      // Somewhere between a tenth and nine tenths of a clean run of the day.
      const int span = std::max(day_ms[day], 20);
      const int after = span / 10 + static_cast<int>(rng() % static_cast<unsigned>(span * 8 / 10));
      const ProcessResult run = testing::RunAndKillAfter(argv, std::chrono::milliseconds(after));
      if (run.signal != SIGKILL) {
        ASSERT_EQ(run.exit_code, 0) << run.err;
        break;
      }
      ++kills;
    }
    const ProcessResult finish = RunProcess(argv);
    ASSERT_EQ(finish.exit_code, 0) << finish.err;
  }
  std::cerr << "killed " << kills << " times\n";
  EXPECT_GT(kills, 0);
  ExpectSameTables(expected, Export("killed", killed));
}

// --retain-days on a replay of one archive holding the three days also keeps the archive
// to the newest day, removing each older hour once its records are committed, while the
// tables come out as those of the days loaded one after another (the archive's offsets
// stay stable as it shrinks): a replay of what is left then adds nothing.
TEST_F(DayAfterDay, RetentionAlsoTrimsTheReplayedArchive) {
  const auto archive = dir_->path() / "three-days";
  fs::create_directories(archive);
  for (const auto& day : days_) {
    fs::copy(day / "frota-sim", archive / "frota-sim",
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  }
  const std::vector<std::string> retain = {"--retain-days", "1", "--epoch-records", "2000"};
  const auto sequential = dir_->path() / "trimmed-sequential.duckdb";
  for (std::size_t day = 0; day < days_.size(); ++day) {
    const ProcessResult loaded = RunProcess(ReplayArgs(sequential, {Archive(day)}, retain));
    ASSERT_EQ(loaded.exit_code, 0) << "day " << day << ": " << loaded.err;
  }
  const Tree expected = Export("trimmed-sequential", sequential);

  const auto trimmed = dir_->path() / "trimmed.duckdb";
  const std::string input = "archive:" + archive.string();
  const ProcessResult replayed = RunProcess(ReplayArgs(trimmed, {input}, retain));
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  std::set<std::string> dates;
  for (const auto& entry : fs::directory_iterator(archive / "frota-sim")) {
    if (entry.is_directory()) {
      dates.insert(entry.path().filename().string());
    }
  }
  EXPECT_EQ(dates, std::set<std::string>{"date=2024-06-06"});
  // One archive names its records apart from three: the source and offset columns aside,
  // the tables are the same.
  const Tree expected_rows = WithoutSources(expected);
  ExpectSameTables(expected_rows, WithoutSources(Export("trimmed", trimmed)));

  const ProcessResult again = RunProcess(ReplayArgs(trimmed, {input}, retain));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  ExpectSameTables(expected_rows, WithoutSources(Export("trimmed-again", trimmed)));
}

}  // namespace
}  // namespace frota
