// Where tests and benchmarks find the real captures in ../shared/data.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace frota::testing {

/// The shared data folder: $FROTA_SHARED_DATA, else ../shared/data beside the source tree
/// (as configured: FROTA_SHARED_DATA_DEFAULT).
std::filesystem::path SharedDataDir();
/// SharedDataDir() / relative, or nullopt when it does not exist (the test then fails,
/// or skips under FROTA_SHARED_DATA_OPTIONAL=1, with a message naming the path).
std::optional<std::filesystem::path> SharedFile(std::string_view relative);
/// True when $FROTA_SHARED_DATA_OPTIONAL is 1: tests whose real captures are missing
/// skip instead of failing (for machines without ../shared/data; CI never sets it).
bool SharedDataOptional();
/// $FROTA_SOURCE_DIR, else the project root this build was configured from.
std::filesystem::path SourceDir();

/// The real Rio BRT archive (rio-brt-2022: GPS files, static GTFS) and Rio's boundary.
struct BrtArchive {
  std::vector<std::string> files;  // sorted
  std::string gtfs;
  std::string area;
};
/// The archive under SharedDataDir() (only the GPS files named in `only`, if given), or
/// nullopt when any part is missing, a file named in `only` among them, or no GPS file
/// is there (see FROTA_SHARED_MISSING).
std::optional<BrtArchive> FindBrtArchive(const std::vector<std::string>& only = {});

}  // namespace frota::testing

/// In a GoogleTest body, when a real capture is missing: fails (skips only under
/// FROTA_SHARED_DATA_OPTIONAL=1). `what` is a stream expression: `"x " << path`.
// Not parenthesized: `(what)` would make `"x " << path` a shift of a pointer.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define FROTA_SHARED_MISSING(what)              \
  if (::frota::testing::SharedDataOptional()) { \
    GTEST_SKIP() << what;                       \
  } else                                        \
    FAIL() << what << " (set FROTA_SHARED_DATA, or FROTA_SHARED_DATA_OPTIONAL=1 to skip)"
// NOLINTEND(bugprone-macro-parentheses)

/// In a GoogleTest body: `FROTA_REQUIRE_SHARED(path, "rio-brt-2022/gps/13.csv.gz");`
#define FROTA_REQUIRE_SHARED(var, relative)                                              \
  auto var##_optional = ::frota::testing::SharedFile(relative);                          \
  if (!var##_optional) {                                                                 \
    FROTA_SHARED_MISSING(                                                                \
        "real capture not found: " << (::frota::testing::SharedDataDir() / (relative))); \
  }                                                                                      \
  const std::filesystem::path var = std::move(*var##_optional)
