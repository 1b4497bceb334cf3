#include "frota/testing/shared_data.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace frota::testing {

std::filesystem::path SourceDir() {
  if (const char* dir = std::getenv("FROTA_SOURCE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return FROTA_SOURCE_DIR_DEFAULT;
}

std::filesystem::path SharedDataDir() {
  if (const char* dir = std::getenv("FROTA_SHARED_DATA"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return FROTA_SHARED_DATA_DEFAULT;
}

bool SharedDataOptional() {
  const char* optional = std::getenv("FROTA_SHARED_DATA_OPTIONAL");
  return optional != nullptr && std::string_view(optional) == "1";
}

std::optional<std::filesystem::path> SharedFile(std::string_view relative) {
  auto path = SharedDataDir() / relative;
  if (!std::filesystem::exists(path)) {
    return std::nullopt;
  }
  return path;
}

std::optional<BrtArchive> FindBrtArchive(const std::vector<std::string>& only) {
  const auto gps = SharedFile("rio-brt-2022/gps");
  const auto gtfs = SharedFile("rio-brt-2022/gtfs");
  const auto area = SharedFile("rio-boundary/rio-de-janeiro-3304557.geojson");
  if (!gps || !gtfs || !area) {
    return std::nullopt;
  }
  BrtArchive a;
  for (const auto& entry : std::filesystem::directory_iterator(*gps)) {
    const auto name = entry.path().filename().string();
    if (only.empty() || std::find(only.begin(), only.end(), name) != only.end()) {
      a.files.push_back(entry.path().string());
    }
  }
  std::sort(a.files.begin(), a.files.end());
  // Every file asked for, or none: a test of one named file must not get another, or
  // an empty list it would loop over without checking anything.
  if (a.files.empty() || (!only.empty() && a.files.size() != only.size())) {
    return std::nullopt;
  }
  a.gtfs = gtfs->string();
  a.area = area->string();
  return a;
}

}  // namespace frota::testing
