// `frota status`: recent runs of collect and run, and the health of their feeds.
#include <fmt/core.h>

#include "frota/cli/commands.h"
#include "frota/collect/config.h"
#include "frota/collect/report.h"

namespace frota::cli {

namespace {

struct StatusFlags {
  std::string config;
  std::string reports;
  std::size_t runs = 10;
  bool json = false;
};

int RunStatus(const StatusFlags& flags) {
  std::filesystem::path reports = flags.reports;
  if (reports.empty() && !flags.config.empty()) {
    const auto config = collect::LoadConfig(flags.config);
    if (!config.ok()) {
      return ReportError(config.error());
    }
    reports = config->reports;
  }
  if (reports.empty()) {
    reports = "reports";
  }
  const auto runs = collect::ListRuns(reports, flags.runs);
  if (!runs.ok()) {
    return ReportError(runs.error());
  }
  fmt::print("{}", flags.json ? collect::StatusJson(*runs) + "\n" : collect::StatusText(*runs));
  return kExitOk;
}

}  // namespace

void AddStatusCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<StatusFlags>();
  auto* sub = app.add_subcommand("status", "Summarise recent collect/run runs and feed health");
  sub->add_option("--config", flags->config, "The collector's configuration (for its reports folder)");
  sub->add_option("--reports", flags->reports, "Reports folder (default: reports)");
  sub->add_option("--runs", flags->runs, "How many recent runs")->capture_default_str();
  sub->add_flag("--json", flags->json, "One JSON document on stdout");
  sub->callback([flags, &run] { run = [flags] { return RunStatus(*flags); }; });
}

}  // namespace frota::cli
