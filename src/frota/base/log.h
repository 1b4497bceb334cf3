// Logging setup: structured lowercase fragments to stderr and, optionally, a rotating file.
#pragma once

#include <spdlog/spdlog.h>

#include <string>

namespace frota::base {

struct LogOptions {
  bool verbose = false;  // debug level for frota, info for libraries
  bool quiet = false;    // warnings and errors only
  std::string file;      // rotating file (5 MB x 3) when not empty
};

/// Installs frota's default logger. Call once from main; safe to call again in tests.
void InitLogging(const LogOptions& options);

}  // namespace frota::base
