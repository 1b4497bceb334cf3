#include "frota/testing/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace frota::testing {

namespace fs = std::filesystem;

fs::path FrotaBinary() {
  if (const char* dir = std::getenv("FROTA_BINARY_DIR"); dir != nullptr && *dir != '\0') {
    return fs::path(dir) / "frota";
  }
  return fs::path(FROTA_BINARY_DIR_DEFAULT) / "frota";
}

namespace {

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

ProcessResult Run(const std::vector<std::string>& argv,
                  std::optional<std::chrono::milliseconds> kill_after) {
  ProcessResult result;
  const auto base = fs::temp_directory_path() /
                    ("frota-proc-" + std::to_string(::getpid()) + "-" +
                     std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  const auto out_path = base.string() + ".out";
  const auto err_path = base.string() + ".err";
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    std::vector<char*> args;
    for (const auto& a : argv) {
      args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  if (kill_after) {
    const auto deadline = std::chrono::steady_clock::now() + *kill_after;
    while (true) {
      const pid_t done = ::waitpid(pid, &status, WNOHANG);
      if (done == pid) {
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  } else {
    ::waitpid(pid, &status, 0);
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  result.out = Slurp(out_path);
  result.err = Slurp(err_path);
  fs::remove(out_path);
  fs::remove(err_path);
  return result;
}

}  // namespace

ProcessResult RunProcess(const std::vector<std::string>& argv) { return Run(argv, std::nullopt); }

ProcessResult RunAndKillAfter(const std::vector<std::string>& argv,
                              std::chrono::milliseconds after) {
  return Run(argv, after);
}

TempDir::TempDir(const std::string& name) {
  const char* binary_dir = std::getenv("FROTA_BINARY_DIR");
  const fs::path root =
      (binary_dir != nullptr ? fs::path(binary_dir) : fs::path(FROTA_BINARY_DIR_DEFAULT)) /
      "test-tmp";
  path_ = root / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(path_);
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  if (std::getenv("FROTA_KEEP_TEST_TMP") != nullptr) {
    return;  // left for a post-mortem
  }
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::vector<std::pair<std::string, std::string>> ReadTree(const fs::path& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      out.emplace_back(fs::relative(entry.path(), dir).string(), Slurp(entry.path()));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace frota::testing
