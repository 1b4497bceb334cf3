#include "frota/cli/command.h"

#include <fmt/core.h>

namespace frota::cli {

int ReportError(const base::Error& error) {
  fmt::print(stderr, "frota: {}\n", error.message());
  return error.kind() == base::Error::Kind::kInvalidInput ||
                 error.kind() == base::Error::Kind::kNotFound ||
                 error.kind() == base::Error::Kind::kIo
             ? kExitBadInput
             : kExitFailedCheck;
}

}  // namespace frota::cli
