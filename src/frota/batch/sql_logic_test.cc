// The batch SQL's own tests: a runner for scripts in DuckDB's sqllogictest style
// (sql/tests/README.md gives the format), one ctest per script of sql/tests/, and tests
// of the runner itself (a wrong expectation, error or column count must fail).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frota/batch/sql_files.h"
#include "frota/model/tables.h"
#include "frota/sink/catalog_sql.h"
#include "frota/sink/duckdb_connection.h"
#include "frota/testing/shared_data.h"

namespace frota::batch {
namespace {

namespace fs = std::filesystem;

// The batch SQL by file name: the embedded text `frota` runs, not a copy read from disk.
struct BatchFile {
  std::string_view name;
  const std::string_view* text;
};
constexpr std::array<BatchFile, 11> kBatchFiles = {{
    {"staging.sql", &sql::kStagingSql},
    {"functions.sql", &sql::kFunctionsSql},
    {"local_time.sql", &sql::kLocalTimeSql},
    {"admission.sql", &sql::kAdmissionSql},
    {"late_round.sql", &sql::kLateRoundSql},
    {"key_rules.sql", &sql::kKeyRulesSql},
    {"walk_round.sql", &sql::kWalkRoundSql},
    {"key_results.sql", &sql::kKeyResultsSql},
    {"jobs.sql", &sql::kJobsSql},
    {"compare.sql", &sql::kCompareSql},
    {"headways.sql", &sql::kHeadwaysSql},
}};

// A repeated file runs at most this often before its query must have returned 0.
constexpr int kMaxRepeats = 64;

fs::path ScriptDir() { return testing::SourceDir() / "src/frota/batch/sql/tests"; }

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      if (start < text.size()) {
        lines.emplace_back(text.substr(start));
      }
      break;
    }
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> SplitWords(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) {
    words.push_back(word);
  }
  return words;
}

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> values;
  std::size_t start = 0;
  while (true) {
    const std::size_t tab = line.find('\t', start);
    values.push_back(line.substr(start, tab == std::string::npos ? tab : tab - start));
    if (tab == std::string::npos) {
      return values;
    }
    start = tab + 1;
  }
}

std::string Joined(const std::vector<std::string>& rows) {
  std::string out;
  for (const std::string& row : rows) {
    out += "  " + row + "\n";
  }
  return out.empty() ? "  (no rows)\n" : out;
}

// Runs one script against a fresh in-memory database and returns the first failure
// ("" when every record holds), naming the script's line. `dir` resolves fixture files.
class ScriptRunner {
 public:
  ScriptRunner(std::string name, fs::path dir) : name_(std::move(name)), dir_(std::move(dir)) {}

  std::string Run(std::string_view text) {
    auto opened = sink::DuckDbConnection::Open("");
    if (!opened.ok()) {
      return "cannot open an in-memory DuckDB: " + opened.error().message();
    }
    db_ = std::move(*opened);
    lines_ = SplitLines(text);
    next_ = 0;
    while (next_ < lines_.size()) {
      const std::string& line = lines_[next_];
      if (SplitWords(line).empty() || line.front() == '#') {
        ++next_;
        continue;
      }
      const std::size_t at = next_;
      std::string failure = RunRecord();
      if (!failure.empty()) {
        return name_ + ":" + std::to_string(at + 1) + ": " + failure;
      }
    }
    return {};
  }

 private:
  // One record: its header line, then lines up to a blank line or the end.
  std::string RunRecord() {
    const std::string header_line = lines_[next_];
    const std::vector<std::string> header = SplitWords(header_line);
    ++next_;
    const std::string& verb = header[0];
    if (verb == "load") {
      return Load(header);
    }
    if (verb == "repeat") {
      return Repeat(header);
    }
    if (verb == "catalog") {
      return Catalog(header);
    }
    std::vector<std::string> body;
    std::vector<std::string> expected;
    bool dashes = false;
    for (; next_ < lines_.size() && !lines_[next_].empty(); ++next_) {
      if (!dashes && lines_[next_] == "----") {
        dashes = true;
      } else {
        (dashes ? expected : body).push_back(lines_[next_]);
      }
    }
    std::string sql;
    for (const std::string& line : body) {
      sql += line + "\n";
    }
    if (sql.empty()) {
      return "'" + header_line + "' has no SQL below it";
    }
    if (verb == "statement" && header.size() == 2 && header[1] == "ok" && !dashes) {
      const auto status = db_->Execute(sql);
      return status.ok() ? std::string()
                         : "statement failed: " + Message(status.error()) + "\n" + sql;
    }
    if (verb == "statement" && header.size() == 2 && header[1] == "error") {
      const auto status = db_->Execute(sql);
      if (status.ok()) {
        return "statement succeeded, an error was expected\n" + sql;
      }
      std::string want;
      for (const std::string& line : expected) {
        want += (want.empty() ? "" : "\n") + line;
      }
      const std::string got = Message(status.error());
      return got.find(want) != std::string::npos
                 ? std::string()
                 : "error message lacks '" + want + "': " + got + "\n" + sql;
    }
    if (verb == "query" && (header.size() == 2 || header.size() == 3) && dashes) {
      return Query(header, sql, expected);
    }
    return "unknown record '" + header_line +
           "' (statement ok|error, query <types> [rowsort|nosort] with ----, load, repeat)";
  }

  std::string Query(const std::vector<std::string>& header, const std::string& sql,
                    const std::vector<std::string>& expected_lines) {
    const std::string& types = header[1];
    if (types.find_first_not_of("ITR") != std::string::npos) {
      return "query types '" + types + "': one letter I, T or R per column";
    }
    const std::string sort = header.size() == 3 ? header[2] : "nosort";
    if (sort != "nosort" && sort != "rowsort") {
      return "query sort mode '" + sort + "': rowsort or nosort";
    }
    auto result = db_->Query(sql);
    if (!result.ok()) {
      return "query failed: " + Message(result.error()) + "\n" + sql;
    }
    if (result->columns() != types.size()) {
      return "query returned " + std::to_string(result->columns()) + " columns, '" + types +
             "' says " + std::to_string(types.size()) + "\n" + sql;
    }
    std::vector<std::string> actual;
    for (std::size_t row = 0; row < result->rows(); ++row) {
      std::string line;
      for (std::size_t column = 0; column < result->columns(); ++column) {
        line += column == 0 ? "" : "\t";
        line += Rendered(*result, row, column);
      }
      actual.push_back(line);
    }
    std::vector<std::string> expected;
    for (const std::string& line : expected_lines) {
      if (SplitTabs(line).size() != types.size()) {
        return "expected row '" + line + "' has " + std::to_string(SplitTabs(line).size()) +
               " values, not " + std::to_string(types.size()) + " (values are tab-separated)";
      }
      expected.push_back(line);
    }
    if (sort == "rowsort") {
      std::sort(actual.begin(), actual.end());
      std::sort(expected.begin(), expected.end());
    }
    if (actual == expected) {
      return {};
    }
    return "query result differs\n" + sql + "expected:\n" + Joined(expected) + "actual:\n" +
           Joined(actual);
  }

  // sqllogictest's text of a value: NULL, (empty) for '', else DuckDB's cast to VARCHAR.
  static std::string Rendered(sink::DuckDbResult& result, std::size_t row, std::size_t column) {
    if (result.IsNull(row, column)) {
      return "NULL";
    }
    std::string text = result.String(row, column);
    return text.empty() ? "(empty)" : text;
  }

  // `load FILE`, `load FILE until MARKER`, `load FILE from MARKER`: a batch SQL file by
  // name (or a fixture, a path with a '/', relative to the script), whole or the part
  // before / from its line "-- MARKER".
  std::string Load(const std::vector<std::string>& header) {
    if (header.size() != 2 && header.size() != 4) {
      return "load FILE [until|from MARKER]";
    }
    auto text = FileText(header[1]);
    if (!text) {
      return "load: no batch SQL file or fixture '" + header[1] + "'";
    }
    if (header.size() == 4) {
      const std::size_t marker = text->find("-- " + header[3]);
      if (marker == std::string::npos || (header[2] != "until" && header[2] != "from")) {
        return "load: '" + header[2] + " " + header[3] + "' does not name a line of " + header[1] +
               " (until|from MARKER, the line '-- MARKER')";
      }
      *text = header[2] == "until" ? text->substr(0, marker) : text->substr(marker);
    }
    const auto status = db_->Execute(*text);
    return status.ok() ? std::string() : header[1] + " failed: " + Message(status.error());
  }

  // `catalog TABLE...`: each table as the catalog's DuckDB DDL makes it (model/tables.h),
  // as headways.cc makes `departures` and `headways` before headways.sql.
  std::string Catalog(const std::vector<std::string>& header) {
    if (header.size() < 2) {
      return "catalog TABLE...";
    }
    for (std::size_t i = 1; i < header.size(); ++i) {
      const model::TableSpec* table = model::FindCatalogTable(header[i]);
      if (table == nullptr) {
        return "catalog: no table '" + header[i] + "' in the catalog";
      }
      const auto status = db_->Execute(sink::CreateTableSql(*table, sink::SqlDialect::kDuckDb));
      if (!status.ok()) {
        return "catalog " + header[i] + " failed: " + Message(status.error());
      }
    }
    return {};
  }

  // `repeat FILE until SQL`: runs FILE, then SQL (one value), until that value is 0.
  std::string Repeat(const std::vector<std::string>& header) {
    if (header.size() < 4 || header[2] != "until") {
      return "repeat FILE until SQL";
    }
    const auto text = FileText(header[1]);
    if (!text) {
      return "repeat: no batch SQL file or fixture '" + header[1] + "'";
    }
    std::string query;
    for (std::size_t i = 3; i < header.size(); ++i) {
      query += header[i] + " ";
    }
    for (int round = 0; round < kMaxRepeats; ++round) {
      if (const auto status = db_->Execute(*text); !status.ok()) {
        return header[1] + " failed: " + Message(status.error());
      }
      auto result = db_->Query(query);
      if (!result.ok()) {
        return "repeat query failed: " + Message(result.error());
      }
      if (result->rows() != 1 || result->columns() != 1 || result->IsNull(0, 0)) {
        return "repeat query must return one value: " + query;
      }
      if (result->Int64(0, 0) == 0) {
        return {};
      }
    }
    return header[1] + " repeated " + std::to_string(kMaxRepeats) + " times without " + query +
           "returning 0";
  }

  [[nodiscard]] std::optional<std::string> FileText(const std::string& name) const {
    if (name.find('/') != std::string::npos) {
      std::ifstream in(dir_ / name, std::ios::binary);
      if (!in) {
        return std::nullopt;
      }
      std::ostringstream text;
      text << in.rdbuf();
      return text.str();
    }
    for (const BatchFile& file : kBatchFiles) {
      if (file.name == name) {
        return std::string(*file.text);
      }
    }
    return std::nullopt;
  }

  // DuckDbConnection prefixes the database's path, empty here.
  static std::string Message(const base::Error& error) {
    std::string message(error.message());
    if (message.rfind(": ", 0) == 0) {
      message.erase(0, 2);
    }
    return message;
  }

  std::string name_;
  fs::path dir_;
  std::unique_ptr<sink::DuckDbConnection> db_;
  std::vector<std::string> lines_;
  std::size_t next_ = 0;
};

std::string RunScript(std::string_view text) {
  return ScriptRunner("script", ScriptDir()).Run(text);
}

std::vector<std::string> ScriptNames() {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(ScriptDir(), error)) {
    if (entry.path().extension() == ".test") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

class BatchSqlScript : public ::testing::TestWithParam<std::string> {};

TEST_P(BatchSqlScript, EveryRecordHolds) {
  const fs::path path = ScriptDir() / (GetParam() + ".test");
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "cannot read " << path;
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_EQ(ScriptRunner(path.filename().string(), ScriptDir()).Run(text.str()), "");
}

// Each script's ctest is named after its file: .../EveryRecordHolds/admission.
std::string ScriptTestName(const ::testing::TestParamInfo<std::string>& script) {
  return script.param;
}

INSTANTIATE_TEST_SUITE_P(Scripts, BatchSqlScript, ::testing::ValuesIn(ScriptNames()),
                         ScriptTestName);

TEST(BatchSqlScripts, TheFolderHoldsScripts) { EXPECT_GE(ScriptNames().size(), 5U) << ScriptDir(); }

// The runner itself: each kind of wrong expectation is reported, with its line.
TEST(SqlLogicRunner, MatchingRowsPass) {
  EXPECT_EQ(RunScript("statement ok\nCREATE TABLE t AS SELECT 1 AS a, 'x' AS b\n\n"
                      "query IT\nSELECT a, b FROM t\n----\n1\tx\n"),
            "");
}

TEST(SqlLogicRunner, ADifferentValueFails) {
  const std::string failure = RunScript("query I\nSELECT 41 + 1\n----\n43\n");
  EXPECT_NE(failure.find("script:1: query result differs"), std::string::npos) << failure;
  EXPECT_NE(failure.find("  42\n"), std::string::npos) << failure;
}

TEST(SqlLogicRunner, AMissingOrExtraRowFails) {
  EXPECT_NE(RunScript("query I\nSELECT * FROM range(2)\n----\n0\n"), "");
  EXPECT_NE(RunScript("query I\nSELECT * FROM range(1)\n----\n0\n1\n"), "");
  EXPECT_NE(RunScript("query I\nSELECT * FROM range(0)\n----\n0\n"), "");
}

TEST(SqlLogicRunner, RowOrderCountsUnlessRowsort) {
  const std::string two_rows = "SELECT * FROM (VALUES (2), (1)) ORDER BY 1 DESC\n----\n1\n2\n";
  EXPECT_NE(RunScript("query I\n" + two_rows), "");
  EXPECT_EQ(RunScript("query I rowsort\n" + two_rows), "");
}

TEST(SqlLogicRunner, NullAndEmptyStringHaveTheirOwnSpelling) {
  EXPECT_EQ(RunScript("query TT\nSELECT NULL, ''\n----\nNULL\t(empty)\n"), "");
  EXPECT_NE(RunScript("query T\nSELECT NULL\n----\n(empty)\n"), "");
  EXPECT_NE(RunScript("query T\nSELECT ''\n----\nNULL\n"), "");
}

TEST(SqlLogicRunner, AColumnCountThatDisagreesFails) {
  EXPECT_NE(RunScript("query II\nSELECT 1\n----\n1\t1\n").find("returned 1 columns"),
            std::string::npos);
  EXPECT_NE(RunScript("query I\nSELECT 1\n----\n1\t1\n").find("has 2 values"), std::string::npos);
}

TEST(SqlLogicRunner, StatementOkFailsOnAnError) {
  const std::string failure = RunScript("\n# a comment\nstatement ok\nSELECT * FROM nowhere\n");
  EXPECT_NE(failure.find("script:3: statement failed"), std::string::npos) << failure;
}

TEST(SqlLogicRunner, StatementErrorNeedsAnErrorWithTheGivenText) {
  EXPECT_EQ(RunScript("statement error\nSELECT * FROM nowhere\n----\nnowhere\n"), "");
  EXPECT_NE(RunScript("statement error\nSELECT 1\n"), "");
  EXPECT_NE(RunScript("statement error\nSELECT * FROM nowhere\n----\nsomewhere else\n"), "");
}

TEST(SqlLogicRunner, ScriptStopsAtTheFirstFailure) {
  const std::string failure =
      RunScript("query I\nSELECT 1\n----\n2\n\nstatement ok\nSELECT * FROM nowhere\n");
  EXPECT_NE(failure.find("script:1:"), std::string::npos) << failure;
}

TEST(SqlLogicRunner, LoadRunsABatchFileOrAPartOfIt) {
  EXPECT_EQ(RunScript("load staging.sql\n\nquery I\nSELECT count(*) FROM input_positions\n"
                      "----\n0\n"),
            "");
  EXPECT_EQ(RunScript("load headways.sql until @statistics\n\n"
                      "query I\nSELECT count(*) FROM headway_summary\n----\n0\n"),
            "");
  EXPECT_NE(RunScript("load nowhere.sql\n"), "");
  EXPECT_NE(RunScript("load headways.sql until @nowhere\n"), "");
  EXPECT_EQ(RunScript("catalog departures headways\n\nquery I\nSELECT count(*) FROM headways\n"
                      "----\n0\n"),
            "");
  EXPECT_NE(RunScript("catalog no_such_table\n"), "");
  // The statistics alone need the tables the part before them makes.
  EXPECT_NE(RunScript("load headways.sql from @statistics\n"), "");
}

TEST(SqlLogicRunner, RepeatStopsWhenTheQueryGivesZero) {
  EXPECT_EQ(RunScript("statement ok\nCREATE TABLE n AS SELECT 3 AS left_over\n\n"
                      "repeat fixtures/count_down.sql until SELECT left_over FROM n\n\n"
                      "query I\nSELECT left_over FROM n\n----\n0\n"),
            "");
  EXPECT_NE(RunScript("statement ok\nCREATE TABLE n AS SELECT -1 AS left_over\n\n"
                      "repeat fixtures/count_down.sql until SELECT left_over FROM n\n")
                .find("without"),
            std::string::npos);
}

TEST(SqlLogicRunner, UnknownRecordsAreErrors) {
  EXPECT_NE(RunScript("select 1\n"), "");
  EXPECT_NE(RunScript("query I\nSELECT 1\n"), "");
  EXPECT_NE(RunScript("query X\nSELECT 1\n----\n1\n"), "");
  EXPECT_NE(RunScript("query I sometimes\nSELECT 1\n----\n1\n"), "");
}

}  // namespace
}  // namespace frota::batch
