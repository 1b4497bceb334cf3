#include "frota/base/log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "frota/base/file.h"

namespace frota::base {
namespace {

namespace fs = std::filesystem;
using L = spdlog::level::level_enum;

// What `write` sends to stderr (file descriptor 2, where the terminal sink writes).
template <typename F>
std::string CaptureStderr(const fs::path& scratch, F&& write) {
  std::fflush(stderr);
  const int saved = ::dup(STDERR_FILENO);
  FILE* out = std::fopen(scratch.c_str(), "w");
  EXPECT_NE(out, nullptr);
  ::dup2(::fileno(out), STDERR_FILENO);
  write();
  spdlog::default_logger()->flush();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::fclose(out);
  auto text = ReadFile(scratch);
  return text.ok() ? *text : std::string();
}

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("frota-log-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ASSERT_TRUE(InitLogging({}).ok());
  }
  void TearDown() override {
    ASSERT_TRUE(InitLogging({}).ok());  // the file closed before it is removed
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(LogTest, TheLevelsOfTheTerminalAndTheFile) {
  LogOptions options;
  EXPECT_EQ(LogLevelsOf(options).terminal, L::info);
  options.verbose = true;  // no file: the detail goes to the terminal
  EXPECT_EQ(LogLevelsOf(options).terminal, L::debug);
  options.file = "frota.log";  // a file: the detail goes there, the terminal keeps info
  EXPECT_EQ(LogLevelsOf(options).terminal, L::info);
  EXPECT_EQ(LogLevelsOf(options).file, L::debug);
  options.verbose = false;
  EXPECT_EQ(LogLevelsOf(options).file, L::info);
  options.file_level = "trace";
  EXPECT_EQ(LogLevelsOf(options).file, L::trace);
  options.quiet = true;
  EXPECT_EQ(LogLevelsOf(options).terminal, L::warn);
  EXPECT_EQ(LogLevelsOf(options).file, L::trace);
}

TEST_F(LogTest, VerboseDetailGoesToTheFileAndNotToTheTerminal) {
  LogOptions options;
  options.verbose = true;
  options.file = (dir_ / "frota.log").string();
  ASSERT_TRUE(InitLogging(options).ok());
  const std::string terminal = CaptureStderr(dir_ / "stderr.txt", [] {
    spdlog::debug("epoch submitted epoch=7");
    spdlog::info("replay done records=3");
    spdlog::error("something failed");
  });
  const auto file = ReadFile(dir_ / "frota.log");
  ASSERT_TRUE(file.ok());
  EXPECT_NE(file->find("debug ["), std::string::npos) << *file;  // level and thread id
  EXPECT_NE(file->find("epoch submitted epoch=7"), std::string::npos) << *file;
  EXPECT_NE(file->find("replay done records=3"), std::string::npos);
  EXPECT_NE(file->find("something failed"), std::string::npos);
  EXPECT_EQ(terminal.find("epoch submitted"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("replay done records=3"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("something failed"), std::string::npos) << terminal;
}

TEST_F(LogTest, AFileLevelAboveTheTerminalsKeepsTheFileQuieter) {
  LogOptions options;
  options.file = (dir_ / "frota.log").string();
  options.file_level = "warn";
  ASSERT_TRUE(InitLogging(options).ok());
  const std::string terminal = CaptureStderr(dir_ / "stderr.txt", [] {
    spdlog::info("collector started");
    spdlog::warn("feed slow");
  });
  const auto file = ReadFile(dir_ / "frota.log");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->find("collector started"), std::string::npos) << *file;
  EXPECT_NE(file->find("feed slow"), std::string::npos) << *file;
  EXPECT_NE(terminal.find("collector started"), std::string::npos) << terminal;
  EXPECT_EQ(CurrentLogOptions().file_level, "warn");
}

TEST_F(LogTest, AnUnknownLevelIsAnErrorAndLeavesLoggingAsItWas) {
  LogOptions options;
  options.file = (dir_ / "frota.log").string();
  options.file_level = "loud";
  const auto status = InitLogging(options);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message().find("'loud'"), std::string::npos);
  EXPECT_TRUE(CurrentLogOptions().file.empty());
  EXPECT_FALSE(fs::exists(dir_ / "frota.log"));
  EXPECT_EQ(ParseLogLevel("warning"), L::warn);
  EXPECT_EQ(ParseLogLevel("DEBUG"), std::nullopt);
}

}  // namespace
}  // namespace frota::base
