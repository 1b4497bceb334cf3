// `frota simulate [--gtfs PATH] --date YYYY-MM-DD [--vehicles N] [--seed S] --out DIR [--truth
// FILE]`.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "frota/base/file.h"
#include "frota/base/time.h"
#include "frota/cli/commands.h"
#include "frota/sim/simulator.h"

namespace frota::cli {

namespace {

struct SimulateFlags {
  std::string gtfs;
  std::string area;
  std::string date;
  std::int32_t vehicles = 3600;
  std::uint64_t seed = 1;
  std::string out;
  std::string truth;
  bool sppo = false;
  bool no_faults = false;
  std::int32_t late_responses = -1;
  std::int32_t writers = 8;
  std::string hours;
  double gps_noise_m = -1;
};

int RunSimulate(const SimulateFlags& flags, bool vehicles_given) {
  const auto date = base::ParseDate(flags.date);
  if (!date) {
    return ReportError(base::InvalidInput("--date {}: not a date (YYYY-MM-DD)", flags.date));
  }
  if (flags.vehicles < 10) {
    return ReportError(base::InvalidInput("--vehicles {}: at least 10", flags.vehicles));
  }
  if (!flags.gtfs.empty() && vehicles_given) {
    return ReportError(base::InvalidInput(
        "--vehicles sizes the built-in city; with --gtfs the timetable decides the fleet"));
  }
  if (flags.gtfs.empty() && !flags.area.empty()) {
    return ReportError(
        base::InvalidInput("--area goes with --gtfs; the built-in city writes its own"));
  }
  sim::SimulateOptions options;
  options.out = flags.out;
  if (!flags.gtfs.empty()) {
    options.gtfs = flags.gtfs;
  }
  if (!flags.area.empty()) {
    options.area = flags.area;
  }
  options.date = *date;
  options.vehicles = flags.vehicles;
  options.seed = flags.seed;
  options.truth = flags.truth;
  options.sppo = flags.sppo;
  options.writers = std::max(flags.writers, 1);
  if (!flags.hours.empty()) {
    int from = 0;
    int to = 0;
    char dash = 0;
    char rest = 0;
    if (std::sscanf(flags.hours.c_str(), "%d%c%d%c", &from, &dash, &to, &rest) != 3 ||
        dash != '-' || from < 0 || to <= from || to > 30) {
      return ReportError(
          base::InvalidInput("--hours {}: expected FROM-TO in local hours, e.g. 6-9", flags.hours));
    }
    options.departures_between_s = std::pair(from * 3600, to * 3600);
  }
  if (flags.no_faults) {
    options.faults = sim::FaultConfig::None();
  }
  if (flags.late_responses >= 0) {
    options.faults.late_responses = flags.late_responses;
  }
  if (flags.gps_noise_m >= 0) {
    options.faults.gps_noise_m = flags.gps_noise_m;
  }
  options.progress = [](const std::string& line) { spdlog::info("simulate {}", line); };
  const auto started = std::chrono::steady_clock::now();
  const auto summary = sim::Simulate(options);
  if (!summary.ok()) {
    return ReportError(summary.error());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto& s = *summary;
  fmt::print("archive     {}\n", s.archive.string());
  fmt::print("gtfs        {}\n", s.gtfs.string());
  fmt::print("area        {}\n", s.area.string());
  fmt::print("truth       {}\n", s.truth.string());
  if (!s.sppo_archive.empty()) {
    fmt::print("sppo        {} ({} bytes)\n", s.sppo_archive.string(), s.sppo_bytes);
  }
  fmt::print("routes      {}\n", s.routes);
  fmt::print("vehicles    {} (peak {} in service)\n", s.vehicles, s.peak_vehicles);
  fmt::print("trips       {} run of {} planned\n", s.run_trips, s.planned_trips);
  fmt::print("responses   {}\n", s.responses);
  fmt::print("positions   {}\n", s.records);
  fmt::print("bytes       {}\n", s.bytes);
  fmt::print("seconds     {:.1f}\n", seconds);
  fmt::print("expected    accepted {}", s.expected_accepted);
  for (const auto& [reason, n] : s.expected_rejected) {
    fmt::print(", {} {}", reason, n);
  }
  fmt::print("\noutages     {}", s.outages_us.size());
  for (const auto& [from, to] : s.outages_us) {
    fmt::print(", {} min from {}", (to - from) / 60'000'000,
               base::FormatIso8601(base::FromUnixMicros(from)));
  }
  fmt::print("\nsilences    {} windows of a silent line; stale plan on {}\n", s.line_silences,
             s.stale_routes.empty() ? std::string("no route")
                                    : fmt::format("routes {}", fmt::join(s.stale_routes, ", ")));
  fmt::print("replay      frota replay archive:{} --gtfs {} --area {} --db FILE\n",
             s.archive.string(), s.gtfs.string(), s.area.string());
  return kExitOk;
}

}  // namespace

void AddSimulateCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<SimulateFlags>();
  auto* sub = app.add_subcommand(
      "simulate",
      "Write a bronze archive of a simulated day of buses (GTFS-RT every 15 s, with the Rio "
      "feeds' faults) and its ground truth");
  sub->add_option("--gtfs", flags->gtfs,
                  "Drive this GTFS (zip or folder); default: the built-in city");
  sub->add_option("--area", flags->area,
                  "With --gtfs: the GeoJSON boundary; default: 3 km around the shapes");
  sub->add_option("--date", flags->date,
                  "Service date to simulate, YYYY-MM-DD (local to the agency)")
      ->required();
  auto* vehicles = sub->add_option("--vehicles", flags->vehicles,
                                   "Built-in city: buses at the weekday peak (Rio: 3600)");
  sub->add_option("--seed", flags->seed, "Seed of every random choice (same seed, same bytes)");
  sub->add_option("--out", flags->out,
                  "Output folder: the archive, gtfs/, area.geojson, truth.json")
      ->required();
  sub->add_option("--truth", flags->truth, "Truth file (default OUT/truth.json)");
  sub->add_flag("--sppo", flags->sppo, "Also write the records as Rio SPPO JSON into OUT/sppo");
  sub->add_flag(
      "--no-faults", flags->no_faults,
      "A clean day: no feed faults (delivery delay, GPS noise, terminal drift and incidents "
      "stay)");
  sub->add_option(
         "--late-responses", flags->late_responses,
         "Responses archived 15 minutes late (default 2, 0 with --no-faults); their records "
         "are older than the watermark")
      ->check(CLI::Range(0, 1000));
  sub->add_option("--writers", flags->writers, "Archive writers in parallel (default 8)");
  sub->add_option("--gps-noise-m", flags->gps_noise_m, "GPS error, metres per axis (default 3)");
  sub->add_option("--hours", flags->hours,
                  "Only trips departing in these local hours, FROM-TO (e.g. 6-9): a shorter day");
  sub->callback([&run, flags, vehicles] {
    run = [flags, vehicles]() -> int { return RunSimulate(*flags, vehicles->count() > 0); };
  });
}

}  // namespace frota::cli
