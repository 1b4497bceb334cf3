// A process a test starts in the background, watches through its log, and kills.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace frota::testing {

/// A child process with stdout and stderr going to `log`; killed (SIGKILL) and reaped by
/// the destructor if still running. Not thread-safe.
class ChildProcess {
 public:
  /// Starts `argv` with `env` added to (or replacing in) this process's environment.
  ChildProcess(const std::vector<std::string>& argv, std::filesystem::path log,
               const std::map<std::string, std::string>& env = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  [[nodiscard]] int pid() const { return pid_; }
  /// Whether it still runs (reaps it if it ended).
  bool Running();
  /// Sends `signal` (if still running).
  void Signal(int signal);
  /// Waits until it ends or `limit` passes; true if it ended.
  bool Wait(std::chrono::milliseconds limit);
  /// After it ended: the exit code (-1 when a signal ended it) and the signal.
  [[nodiscard]] int exit_code() const { return exit_code_; }
  [[nodiscard]] int term_signal() const { return signal_; }
  /// Everything it wrote so far.
  [[nodiscard]] std::string Log() const;
  /// Waits until its log contains `text` (true), it ends, or `limit` passes.
  bool WaitForLog(const std::string& text, std::chrono::milliseconds limit, std::size_t from = 0);
  [[nodiscard]] const std::filesystem::path& log_path() const { return log_; }

 private:
  void Reaped(int status);
  int pid_ = -1;
  bool done_ = false;
  int exit_code_ = -1;
  int signal_ = 0;
  std::filesystem::path log_;
};

}  // namespace frota::testing
