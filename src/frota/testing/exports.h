// Exports compared byte for byte: `frota export` of a database read back as a tree of files,
// and the check that two trees are equal, naming the first line that differs.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "frota/testing/subprocess.h"

namespace frota::testing {

/// An export: relative path -> bytes, sorted by path (`ReadTree`).
using Tree = std::vector<std::pair<std::string, std::string>>;

/// The number of lines of a text (its '\n' characters).
inline std::size_t Lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

/// Removes the file `name` from `tree` and returns its bytes (empty if absent).
inline std::string TakeFile(Tree& tree, const std::string& name) {
  std::string text;
  std::erase_if(tree, [&](const auto& file) {
    if (file.first != name) {
      return false;
    }
    text = file.second;
    return true;
  });
  return text;
}

/// `frota -q export <source...> --out OUT <extra...>`, read back. `source` names the
/// database (`--db FILE` or `--postgres DSN`); `extra` adds e.g. a window.
inline Tree ExportTree(const std::vector<std::string>& source, const std::filesystem::path& out,
                       const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {FrotaBinary().string(), "-q", "export"};
  argv.insert(argv.end(), source.begin(), source.end());
  argv.insert(argv.end(), {"--out", out.string()});
  argv.insert(argv.end(), extra.begin(), extra.end());
  const ProcessResult exported = RunProcess(argv);
  EXPECT_EQ(exported.exit_code, 0) << exported.err;
  return ReadTree(out);
}

/// The export of the DuckDB file `db` into `out`.
inline Tree ExportDuckDb(const std::filesystem::path& db, const std::filesystem::path& out,
                         const std::vector<std::string>& extra = {}) {
  return ExportTree({"--db", db.string()}, out, extra);
}

/// Byte-for-byte equality of two exports; a file that differs is named with its first
/// differing line on both sides.
inline void ExpectSameTables(const Tree& expected, const Tree& actual) {
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(expected[i].first, actual[i].first);
    const auto& e = expected[i].second;
    const auto& f = actual[i].second;
    if (e == f) {
      continue;
    }
    const auto at = static_cast<std::size_t>(
        std::mismatch(e.begin(),
                      e.begin() + static_cast<std::ptrdiff_t>(std::min(e.size(), f.size())),
                      f.begin())
            .first -
        e.begin());
    const auto line_start = at == 0 ? std::string::npos : e.rfind('\n', at - 1);
    const auto from = line_start == std::string::npos ? 0 : line_start + 1;
    ADD_FAILURE() << expected[i].first << " differs (" << Lines(e) << " vs " << Lines(f)
                  << " lines) at line " << Lines(e.substr(0, from)) + 1
                  << ":\n  expected: " << e.substr(from, e.find('\n', from) - from)
                  << "\n  actual:   " << f.substr(from, f.find('\n', from) - from);
  }
}

}  // namespace frota::testing
