// Reading the stage reports back: what `frota status` shows about recent runs and feeds.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "frota/base/status.h"

namespace frota::collect {

/// One feed's health as the latest report of its run saw it.
struct FeedHealthRow {
  std::string feed;
  std::string health;
  std::int64_t requests = 0;
  std::int64_t responses = 0;
  std::int64_t failures = 0;
  double error_rate = 0;
  std::string last_success;
  std::string last_failure;
};

/// One run's reports (REPORTS/RUN_ID/{bronze,silver,gold,run}.json) in brief.
struct RunSummary {
  std::string run_id;
  std::string command;
  std::string status;
  std::string started_at;
  std::string updated_at;
  double duration_s = 0;
  std::int64_t requests = 0;
  std::int64_t responses = 0;
  std::int64_t failures = 0;
  double error_rate = 0;
  std::int64_t accepted = 0;                     // silver
  std::map<std::string, std::int64_t> rejected;  // silver, by reason
  std::string engine_status;                     // run.json, `frota run` only
  std::int64_t epochs = 0;
  std::string watermark;
  std::vector<FeedHealthRow> feeds;
  std::filesystem::path dir;
};

/// The `limit` most recent runs under `reports` (newest first). Folders without a
/// readable bronze.json are skipped; a reports folder that does not exist is an error.
base::Result<std::vector<RunSummary>> ListRuns(const std::filesystem::path& reports,
                                               std::size_t limit);
/// `frota status --json`.
std::string StatusJson(const std::vector<RunSummary>& runs);
/// `frota status`: recent runs, then the feeds of the newest one.
std::string StatusText(const std::vector<RunSummary>& runs);

}  // namespace frota::collect
