#include "frota/base/file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace frota::base {
namespace {

namespace fs = std::filesystem;

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("frota-file-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path Write(const std::string& name, const std::string& bytes) {
    const auto path = dir_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  fs::path dir_;
};

TEST_F(FileTest, ReadsWholeFilesWithTheirZeroBytes) {
  std::string bytes(300'000, 'a');
  bytes[1] = '\0';
  bytes.back() = 'z';
  const auto read = ReadFile(Write("big", bytes));
  ASSERT_TRUE(read.ok()) << read.error().message();
  EXPECT_EQ(*read, bytes);
  const auto empty = ReadFile(Write("empty", ""));
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST_F(FileTest, ReadFileIntoReplacesTheContentAndKeepsTheBuffer) {
  std::string buffer = "left over from before";
  ASSERT_TRUE(ReadFileInto(Write("long", std::string(100'000, 'x')), buffer).ok());
  EXPECT_EQ(buffer, std::string(100'000, 'x'));
  const char* storage = buffer.data();
  ASSERT_TRUE(ReadFileInto(Write("short", "abc"), buffer).ok());
  EXPECT_EQ(buffer, "abc");
  EXPECT_EQ(buffer.data(), storage);  // a smaller file reuses the allocation
}

TEST_F(FileTest, ReadsFilesThatReportNoSize) {
  // /proc files report size 0 and are read to their end all the same.
  std::string status;
  ASSERT_TRUE(ReadFileInto("/proc/self/status", status).ok());
  EXPECT_NE(status.find("VmRSS"), std::string::npos);
  EXPECT_EQ(status.back(), '\n');
}

TEST_F(FileTest, AMissingFileIsAnErrorNamingIt) {
  std::string buffer = "kept?";
  const auto status = ReadFileInto(dir_ / "nope", buffer);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message().find("nope"), std::string::npos);
  EXPECT_NE(status.error().message().find("cannot open"), std::string::npos);
  EXPECT_TRUE(buffer.empty());        // never a previous file's bytes taken for this one
  EXPECT_FALSE(ReadFile(dir_).ok());  // a folder opens but does not read
}

TEST_F(FileTest, FileBytesMapsARegularFileAndReadsWhatCannotBeMapped) {
  std::string bytes(300'000, 'a');
  bytes[1] = '\0';
  bytes.back() = 'z';
  const auto big = Write("big", bytes);
  FileBytes file;
  ASSERT_TRUE(file.Load(big).ok());
  EXPECT_EQ(file.bytes(), bytes);
  // Mapped, not copied: the process maps the file while it is held...
  std::string maps;
  ASSERT_TRUE(ReadFileInto("/proc/self/maps", maps).ok());
  EXPECT_NE(maps.find(big.string()), std::string::npos);
  // ...and no longer once the next file replaces it.
  ASSERT_TRUE(file.Load(Write("small", "abc")).ok());
  EXPECT_EQ(file.bytes(), "abc");
  ASSERT_TRUE(ReadFileInto("/proc/self/maps", maps).ok());
  EXPECT_EQ(maps.find(big.string()), std::string::npos);
  // An empty file, and one that reports no size, are read.
  ASSERT_TRUE(file.Load(Write("empty", "")).ok());
  EXPECT_TRUE(file.bytes().empty());
  ASSERT_TRUE(file.Load("/proc/self/status").ok());
  EXPECT_NE(file.bytes().find("VmRSS"), std::string_view::npos);
}

TEST_F(FileTest, FileBytesOfAMissingFileIsAnErrorNamingItAndHoldsNothing) {
  FileBytes file;
  ASSERT_TRUE(file.Load(Write("first", "first file")).ok());
  const auto status = file.Load(dir_ / "nope");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message().find("nope"), std::string::npos);
  EXPECT_TRUE(file.bytes().empty());   // never a previous file's bytes taken for this one
  EXPECT_FALSE(file.Load(dir_).ok());  // a folder opens but does not read
  EXPECT_TRUE(file.bytes().empty());
}

}  // namespace
}  // namespace frota::base
