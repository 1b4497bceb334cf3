// Where tests and benchmarks find the real captures in ../shared/data.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace frota::testing {

/// The shared data folder: $FROTA_SHARED_DATA, else ../shared/data beside the source tree
/// (as configured: FROTA_SHARED_DATA_DEFAULT).
std::filesystem::path SharedDataDir();
/// SharedDataDir() / relative, or nullopt when it does not exist (the test then skips
/// with a message naming the path).
std::optional<std::filesystem::path> SharedFile(std::string_view relative);
/// $FROTA_SOURCE_DIR, else the project root this build was configured from.
std::filesystem::path SourceDir();

}  // namespace frota::testing

/// In a GoogleTest body: `FROTA_REQUIRE_SHARED(path, "rio-brt-2022/gps/13.csv.gz");`
#define FROTA_REQUIRE_SHARED(var, relative)                                          \
  const auto var##_optional = ::frota::testing::SharedFile(relative);                \
  if (!var##_optional) {                                                             \
    GTEST_SKIP() << "real capture not found: " << (::frota::testing::SharedDataDir() / \
                                                   (relative))                       \
                 << " (set FROTA_SHARED_DATA)";                                      \
  }                                                                                  \
  const std::filesystem::path var = *var##_optional
