// Running the frota binary from tests: capture output, kill at a moment, find paths.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace frota::testing {

/// The `frota` binary of this build ($FROTA_BINARY_DIR/frota).
std::filesystem::path FrotaBinary();

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;      // the signal that ended it, if any
  std::string out;     // stdout
  std::string err;     // stderr
};

/// Runs `argv` to completion, capturing stdout and stderr.
ProcessResult RunProcess(const std::vector<std::string>& argv);

/// Runs `argv` and sends SIGKILL after `after` (unless it ends first).
ProcessResult RunAndKillAfter(const std::vector<std::string>& argv,
                              std::chrono::milliseconds after);

/// A fresh empty folder under the build tree, removed by the destructor.
class TempDir {
 public:
  explicit TempDir(const std::string& name);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Every file under `dir` (relative path -> bytes), for byte-for-byte comparisons.
std::vector<std::pair<std::string, std::string>> ReadTree(const std::filesystem::path& dir);

}  // namespace frota::testing
