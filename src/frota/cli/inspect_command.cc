#include <fmt/core.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "frota/cli/commands.h"
#include "frota/geo/area.h"
#include "frota/job/rules.h"
#include "frota/job/validation.h"
#include "frota/source/replay_source.h"

namespace frota::cli {

namespace {

struct InspectFlags {
  std::vector<std::string> inputs;
  std::string area;
  std::string feed_id;
  std::string time_zone = "America/Sao_Paulo";
  std::vector<std::string> rules;
  bool json = false;
};

int RunInspect(const InspectFlags& flags) {
  std::vector<source::InputSpec> specs;
  for (const auto& text : flags.inputs) {
    auto spec = source::ParseInputSpec(text);
    if (!spec.ok()) {
      return ReportError(spec.error());
    }
    specs.push_back(*spec);
  }
  auto partitions = source::ExpandInputs(specs, flags.feed_id);
  if (!partitions.ok()) {
    return ReportError(partitions.error());
  }
  job::JobConfig config;
  if (const auto set = job::ApplyRuleFlags(config, flags.rules); !set.ok()) {
    return ReportError(set.error());
  }
  std::optional<geo::Area> area;
  if (!flags.area.empty()) {
    auto loaded = geo::Area::LoadSpec(flags.area);
    if (!loaded.ok()) {
      return ReportError(loaded.error());
    }
    area.emplace(std::move(*loaded));
    config.area = &*area;
  }
  model::SourceCatalog catalog;
  source::ReplayOptions options;
  options.time_zone = flags.time_zone;
  auto source = source::ReplaySource::Open(std::move(*partitions), &catalog, options, {});
  if (!source.ok()) {
    return ReportError(source.error());
  }
  std::int64_t records = 0;
  std::int64_t accepted = 0;
  std::map<std::string, std::int64_t> rejected;
  std::set<std::pair<std::string, std::string>> vehicles;
  std::optional<base::Timestamp> min_time;
  std::optional<base::Timestamp> max_time;
  std::vector<source::SourceRecord> batch;
  while (true) {
    auto more = (*source)->Next(batch, 16384);
    if (!more.ok()) {
      return ReportError(more.error());
    }
    if (!*more) {
      break;
    }
    for (const auto& record : batch) {
      ++records;
      if (const auto* r = std::get_if<model::Rejection>(&record.record)) {
        ++rejected[std::string(model::RejectReasonName(r->reason))];
        continue;
      }
      const auto& p = std::get<model::Position>(record.record);
      if (const auto reason = job::CheckRecordRules(p, config)) {
        ++rejected[std::string(model::RejectReasonName(*reason))];
        continue;
      }
      ++accepted;
      vehicles.emplace(p.feed_id, p.vehicle_id);
      min_time = min_time ? std::min(*min_time, p.event_time) : p.event_time;
      max_time = max_time ? std::max(*max_time, p.event_time) : p.event_time;
    }
  }
  nlohmann::ordered_json j;
  j["records"] = records;
  j["accepted"] = accepted;
  j["rejected"] = rejected;
  j["vehicles"] = vehicles.size();
  j["event_time_min"] =
      min_time ? nlohmann::json(base::FormatIso8601(*min_time)) : nlohmann::json();
  j["event_time_max"] =
      max_time ? nlohmann::json(base::FormatIso8601(*max_time)) : nlohmann::json();
  nlohmann::ordered_json rules = nlohmann::ordered_json::object();
  for (const auto& [key, value] : job::RuleValues(config)) {
    rules[key] = value;
  }
  j["rules"] = rules;
  if (flags.json) {
    fmt::print("{}\n", j.dump());
    return kExitOk;
  }
  // The population of `accepted`: records that pass rules 1-3 (and 4 with --area). Rules
  // 5-7 (duplicate, jump, late) judge a record against the others of its vehicle: replay
  // applies them, so it accepts fewer of the same input.
  fmt::print(
      "records         {}\naccepted        {}  (by rules 1-{}; replay also refuses duplicates, "
      "jumps and late records)\nvehicles        {}\n",
      records, accepted, flags.area.empty() ? 3 : 4, vehicles.size());
  fmt::print("event time      {} .. {}\n", min_time ? base::FormatIso8601(*min_time) : "-",
             max_time ? base::FormatIso8601(*max_time) : "-");
  for (const auto& [reason, n] : rejected) {
    fmt::print("rejected        {:<26} {}\n", reason, n);
  }
  return kExitOk;
}

}  // namespace

void AddInspectCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<InspectFlags>();
  auto* sub = app.add_subcommand("inspect",
                                 "Decode inputs, apply the record-level rules and summarise them");
  sub->add_option("inputs", flags->inputs, "FORMAT:PATH or PATH (format detected)")->required();
  sub->add_option("--area", flags->area, "GeoJSON area: also apply rule 4 (out_of_area)");
  sub->add_option("--feed-id", flags->feed_id, "Feed id for every input");
  sub->add_option("--time-zone", flags->time_zone, "Zone of naive local timestamps")
      ->capture_default_str();
  sub->add_flag("--json", flags->json, "One JSON document on stdout");
  AddRuleOption(*sub, flags->rules);
  sub->callback([flags, &run] { run = [flags] { return RunInspect(*flags); }; });
}

}  // namespace frota::cli
