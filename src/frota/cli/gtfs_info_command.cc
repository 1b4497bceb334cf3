// `frota gtfs-info PATH [--json]`: load a static GTFS feed and print its counts.
#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "frota/cli/command.h"
#include "frota/gtfs/static_feed.h"

namespace frota::cli {

void AddGtfsInfoCommand(CLI::App& app, CommandMain& run) {
  auto* sub =
      app.add_subcommand("gtfs-info",
                         "Load a static GTFS feed (zip or folder) and count its agencies, routes, "
                         "trips, shapes, stops, stop_times, frequencies and services");
  struct Options {
    std::string path;
    bool json = false;
  };
  auto options = std::make_shared<Options>();
  sub->add_option("PATH", options->path, "GTFS zip archive or folder (.txt or .csv tables)")
      ->required();
  sub->add_flag("--json", options->json, "Print one JSON document on stdout");
  sub->callback([&run, options] {
    run = [options]() -> int {
      auto feed = gtfs::StaticFeed::Load(options->path);
      if (!feed.ok()) {
        return ReportError(feed.error());
      }
      const gtfs::FeedCounts counts = feed->counts();
      const std::vector<std::pair<const char*, std::int64_t>> rows = {
          {"agencies", counts.agencies},
          {"routes", counts.routes},
          {"trips", counts.trips},
          {"shapes", counts.shapes},
          {"stops", counts.stops},
          {"stop_times", counts.stop_times},
          {"frequencies", counts.frequencies},
          {"services", counts.services},
      };
      if (options->json) {
        nlohmann::ordered_json document = nlohmann::ordered_json::object();
        for (const auto& [key, value] : rows) {
          document[key] = value;
        }
        fmt::print("{}\n", document.dump());
      } else {
        for (const auto& [key, value] : rows) {
          fmt::print("{:<12} {:>9}\n", key, value);
        }
      }
      return kExitOk;
    };
  });
}

}  // namespace frota::cli
