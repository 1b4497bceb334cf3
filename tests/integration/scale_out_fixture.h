// Shared steps of the scale-out tests: the real Rio BRT archive, the embedded baseline,
// publishing to a topic, consumer processes, exports and their byte comparison.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frota/sink/duckdb_sink.h"
#include "frota/sink/postgres_to_duckdb.h"
#include "frota/testing/child_process.h"
#include "frota/testing/exports.h"
#include "frota/testing/shared_data.h"
#include "frota/testing/subprocess.h"
#include "services.h"

namespace frota::testing {

inline std::vector<std::string> Concat(std::vector<std::string> a,
                                       const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

inline std::vector<std::string> JobArgs(const BrtArchive& a) {
  return {"--gtfs", a.gtfs, "--area", a.area};
}

/// `frota replay` into a DuckDB file, then `frota export`: the embedded baseline.
inline Tree EmbeddedBaseline(const BrtArchive& a, const std::filesystem::path& dir) {
  const auto db = dir / "baseline.duckdb";
  const auto replay = RunProcess(Concat(Concat({FrotaBinary().string(), "-q", "replay"}, a.files),
                                        Concat(JobArgs(a), {"--db", db.string()})));
  EXPECT_EQ(replay.exit_code, 0) << replay.err;
  return ExportDuckDb(db, dir / "baseline-export");
}

/// `frota export --postgres DSN`.
inline Tree ExportPostgres(const std::string& dsn, const std::filesystem::path& out) {
  return ExportTree({"--postgres", dsn}, out);
}

/// Publishes the archive to `topic` (`frota replay --to-kafka`).
inline ProcessResult Publish(const BrtArchive& a, const std::string& brokers,
                             const std::string& topic, const std::vector<std::string>& extra = {}) {
  return RunProcess(
      Concat(Concat({FrotaBinary().string(), "-q", "replay"}, a.files),
             Concat(Concat(JobArgs(a), {"--to-kafka", brokers, "--topic", topic}), extra)));
}

/// The argv of one consumer group member that stops at the end of the topic.
inline std::vector<std::string> ConsumerArgs(const BrtArchive& a, const std::string& brokers,
                                             const std::string& topic, const std::string& group,
                                             const std::string& dsn,
                                             const std::vector<std::string>& extra = {}) {
  return Concat(Concat({FrotaBinary().string(), "run", "--kafka", brokers, "--topic", topic,
                        "--group", group, "--postgres", dsn, "--until-end"},
                       JobArgs(a)),
                extra);
}

/// The departures, headways and alerts of a database (`frota export` leaves them out), each
/// table's rows as sorted text.
inline std::map<std::string, std::vector<std::string>> RegularityTables(
    sink::DuckDbConnection& db) {
  std::map<std::string, std::vector<std::string>> out;
  for (const std::string table : {"departures", "headways", "alerts"}) {
    auto rows = db.Query("SELECT CAST(t AS VARCHAR) AS r FROM " + table + " t ORDER BY r");
    EXPECT_TRUE(rows.ok()) << table << ": " << rows.error().message();
    if (!rows.ok()) {
      continue;
    }
    for (std::size_t i = 0; i < rows->rows(); ++i) {
      out[table].push_back(rows->String(i, 0));
    }
  }
  return out;
}

/// The embedded baseline's (EmbeddedBaseline, dir/baseline.duckdb) departures, headways
/// and alerts equal, row for row, those the members' regularity follower committed to
/// PostgreSQL; and there are some of each but alerts.
inline void ExpectSameRegularity(const std::filesystem::path& dir, const std::string& dsn) {
  auto embedded = sink::OpenFrotaDuckDb(dir / "baseline.duckdb", /*must_exist=*/true);
  ASSERT_TRUE(embedded.ok()) << embedded.error().message();
  auto copy = sink::CopyPostgresToDuckDb(dsn);
  ASSERT_TRUE(copy.ok()) << copy.error().message();
  const auto expected = RegularityTables(**embedded);
  const auto actual = RegularityTables(**copy);
  for (const std::string table : {"departures", "headways", "alerts"}) {
    const auto e = expected.find(table);
    const auto a = actual.find(table);
    const std::size_t want = e == expected.end() ? 0 : e->second.size();
    const std::size_t got = a == actual.end() ? 0 : a->second.size();
    if (table != "alerts") {
      EXPECT_GT(want, 0U) << table;
    }
    EXPECT_EQ(got, want) << table;
    if (want == got && want > 0) {
      for (std::size_t i = 0; i < want; ++i) {
        if (e->second[i] != a->second[i]) {
          ADD_FAILURE() << table << " row " << i << " differs:\n  embedded: " << e->second[i]
                        << "\n  members:  " << a->second[i];
          break;
        }
      }
    }
  }
}

/// The `late` count of a quality.csv export (column `late`), summed.
inline std::int64_t LateCount(const Tree& tree) {
  for (const auto& [file, bytes] : tree) {
    if (file != "quality.csv") {
      continue;
    }
    std::istringstream lines(bytes);
    std::string header;
    std::getline(lines, header);
    std::vector<std::string> names;
    std::stringstream h(header);
    for (std::string n; std::getline(h, n, ',');) {
      names.push_back(n);
    }
    const auto column = std::find(names.begin(), names.end(), "late") - names.begin();
    std::int64_t total = 0;
    for (std::string line; std::getline(lines, line);) {
      std::stringstream l(line);
      std::string cell;
      for (std::ptrdiff_t c = 0; c <= column && std::getline(l, cell, ','); ++c) {
      }
      total += std::atoll(cell.c_str());
    }
    return total;
  }
  return -1;
}

}  // namespace frota::testing
