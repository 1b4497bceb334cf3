#include "frota/testing/shared_data.h"

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

}  // namespace frota::testing
