#include <fmt/core.h>

#include "frota/cli/commands.h"
#include "frota/version.h"

namespace frota::cli {

void AddVersionCommand(CLI::App& app, CommandMain& run) {
  auto* sub = app.add_subcommand("version", "Print the version and the library versions");
  sub->callback([&run] {
    run = [] {
      fmt::print("frota {}\n", kVersion);
      return kExitOk;
    };
  });
}

}  // namespace frota::cli
