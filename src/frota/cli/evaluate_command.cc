// `frota evaluate (--db FILE | --postgres DSN) --truth FILE [--json]`.
#include <fmt/core.h>

#include <memory>
#include <string>

#include "frota/cli/commands.h"
#include "frota/sim/evaluate.h"

namespace frota::cli {

namespace {

struct EvaluateFlags {
  std::string db;
  std::string postgres;
  std::string truth;
  std::string time_zone;
  WindowFlags window;
  bool json = false;
};

int RunEvaluate(const EvaluateFlags& flags) {
  if (flags.db.empty() && flags.postgres.empty()) {
    return ReportError(base::InvalidInput("one of --db FILE or --postgres DSN is required"));
  }
  // PostgreSQL: its results (with the tables `frota headways --postgres` wrote there)
  // copied into a DuckDB file, read as a --db file is.
  auto results = ResultsFile::OpenWindow(flags.db, flags.postgres, flags.window, flags.time_zone);
  if (!results.ok()) {
    return ReportError(results.error());
  }
  (*results)->Describe();
  if ((*results)->empty()) {
    return kExitOk;
  }
  sim::EvaluateOptions options;
  options.db = (*results)->path();
  options.truth = flags.truth;
  const auto evaluation = sim::Evaluate(options);
  if (!evaluation.ok()) {
    return ReportError(evaluation.error());
  }
  if (flags.json) {
    fmt::print("{}\n", sim::EvaluationJson(*evaluation));
  } else {
    fmt::print("{}", sim::EvaluationText(*evaluation));
  }
  return kExitOk;
}

}  // namespace

void AddEvaluateCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<EvaluateFlags>();
  auto* sub = app.add_subcommand(
      "evaluate",
      "Compare a replay's tables with a simulated day's ground truth: stops, speeds, faults "
      "and rejection counts; and, once frota headways has run on the database, its "
      "departures (true ones hidden by outages and silent lines left out) and each line's "
      "median and CV of measured headways");
  auto* db = sub->add_option("--db", flags->db, "DuckDB database written by frota replay");
  auto* postgres = sub->add_option("--postgres", flags->postgres, "PostgreSQL DSN instead of --db");
  db->excludes(postgres);
  sub->add_option("--truth", flags->truth, "truth.json written by frota simulate")->required();
  AddWindowOptions(*sub, flags->window);
  sub->add_option("--time-zone", flags->time_zone,
                  "IANA zone of the local dates of --from and --to (default: America/Sao_Paulo)");
  sub->add_flag("--json", flags->json, "Print one JSON document on stdout");
  sub->callback([&run, flags] { run = [flags]() -> int { return RunEvaluate(*flags); }; });
}

}  // namespace frota::cli
