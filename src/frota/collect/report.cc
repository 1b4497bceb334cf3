#include "frota/collect/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "frota/base/file.h"

namespace frota::collect {

namespace fs = std::filesystem;

namespace {

std::optional<nlohmann::json> ReadJson(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return std::nullopt;
  }
  auto text = base::ReadFile(path);
  if (!text.ok()) {
    return std::nullopt;
  }
  try {
    return nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

base::Result<std::vector<RunSummary>> ListRuns(const fs::path& reports, std::size_t limit) {
  std::error_code ec;
  if (!fs::is_directory(reports, ec)) {
    return base::NotFound("{}: no reports folder (has frota collect or run written here?)",
                          reports.string());
  }
  std::vector<RunSummary> runs;
  for (const auto& entry : fs::directory_iterator(reports, ec)) {
    if (!entry.is_directory()) {
      continue;
    }
    const auto bronze = ReadJson(entry.path() / "bronze.json");
    if (!bronze) {
      continue;
    }
    RunSummary run;
    run.dir = entry.path();
    const auto& b = *bronze;
    run.run_id = b.value("run_id", entry.path().filename().string());
    run.command = b.value("command", "");
    run.status = b.value("status", "");
    run.started_at = b.value("started_at", "");
    run.updated_at = b.value("updated_at", "");
    run.duration_s = b.value("duration_s", 0.0);
    run.requests = b.value("requests", std::int64_t{0});
    run.responses = b.contains("outputs") ? b["outputs"].value("responses", std::int64_t{0}) : 0;
    run.failures = b.value("failures_total", std::int64_t{0});
    run.error_rate = b.value("error_rate", 0.0);
    if (b.contains("feeds") && b["feeds"].is_object()) {
      for (const auto& [feed, f] : b["feeds"].items()) {
        FeedHealthRow row;
        row.feed = feed;
        row.health = f.value("health", "");
        row.requests = f.value("requests", std::int64_t{0});
        row.responses = f.value("responses", std::int64_t{0});
        row.failures = f.value("failures_total", std::int64_t{0});
        row.error_rate = f.value("error_rate", 0.0);
        row.last_success = f.value("last_success", "");
        row.last_failure = f.value("last_failure", "");
        run.feeds.push_back(std::move(row));
      }
    }
    if (const auto silver = ReadJson(entry.path() / "silver.json")) {
      if (silver->contains("outputs")) {
        run.accepted = (*silver)["outputs"].value("accepted", std::int64_t{0});
      }
      if (silver->contains("rejected") && (*silver)["rejected"].is_object()) {
        run.rejected = (*silver)["rejected"].get<std::map<std::string, std::int64_t>>();
      }
    }
    if (const auto engine = ReadJson(entry.path() / "run.json")) {
      run.engine_status = engine->value("status", "");
      run.epochs = engine->value("epochs", std::int64_t{0});
      run.watermark = engine->value("watermark", "");
    }
    runs.push_back(std::move(run));
  }
  std::sort(runs.begin(), runs.end(), [](const RunSummary& a, const RunSummary& b) {
    return std::tie(a.started_at, a.run_id) > std::tie(b.started_at, b.run_id);
  });
  if (runs.size() > limit) {
    runs.resize(limit);
  }
  return runs;
}

std::string StatusJson(const std::vector<RunSummary>& runs) {
  nlohmann::ordered_json j;
  j["runs"] = nlohmann::ordered_json::array();
  for (const auto& r : runs) {
    nlohmann::ordered_json run;
    run["run_id"] = r.run_id;
    run["command"] = r.command;
    run["status"] = r.status;
    run["started_at"] = r.started_at;
    run["updated_at"] = r.updated_at;
    run["duration_s"] = r.duration_s;
    run["requests"] = r.requests;
    run["responses"] = r.responses;
    run["failures"] = r.failures;
    run["error_rate"] = r.error_rate;
    run["accepted"] = r.accepted;
    run["rejected"] = r.rejected;
    if (!r.engine_status.empty()) {
      run["engine"] = {
          {"status", r.engine_status}, {"epochs", r.epochs}, {"watermark", r.watermark}};
    }
    run["feeds"] = nlohmann::ordered_json::array();
    for (const auto& f : r.feeds) {
      run["feeds"].push_back({{"feed", f.feed},
                              {"health", f.health},
                              {"requests", f.requests},
                              {"responses", f.responses},
                              {"failures", f.failures},
                              {"error_rate", f.error_rate},
                              {"last_success", f.last_success},
                              {"last_failure", f.last_failure}});
    }
    run["reports"] = r.dir.string();
    j["runs"].push_back(std::move(run));
  }
  return j.dump(2);
}

std::string StatusText(const std::vector<RunSummary>& runs) {
  if (runs.empty()) {
    return "no runs reported yet\n";
  }
  std::string out =
      fmt::format("{:<28} {:<8} {:<9} {:<21} {:>10} {:>9} {:>8} {:>7}\n", "run", "command",
                  "status", "started", "duration", "responses", "failures", "errors");
  for (const auto& r : runs) {
    out += fmt::format("{:<28} {:<8} {:<9} {:<21} {:>9.0f}s {:>9} {:>8} {:>6.1f}%\n", r.run_id,
                       r.command, r.status, r.started_at.substr(0, 20), r.duration_s, r.responses,
                       r.failures, 100 * r.error_rate);
  }
  const auto& latest = runs.front();
  out += fmt::format("\nfeeds of {} (as of {}):\n", latest.run_id, latest.updated_at);
  out += fmt::format("  {:<20} {:<13} {:>9} {:>9} {:>8} {:>7}  {}\n", "feed", "health", "requests",
                     "responses", "failures", "errors", "last success");
  for (const auto& f : latest.feeds) {
    out += fmt::format("  {:<20} {:<13} {:>9} {:>9} {:>8} {:>6.1f}%  {}\n", f.feed, f.health,
                       f.requests, f.responses, f.failures, 100 * f.error_rate,
                       f.last_success.empty() ? "never" : f.last_success);
  }
  if (!latest.engine_status.empty()) {
    out += fmt::format("engine: {} epochs={} watermark={}\n", latest.engine_status, latest.epochs,
                       latest.watermark);
  }
  return out;
}

}  // namespace frota::collect
