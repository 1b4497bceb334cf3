// The collector's configuration: feeds, politeness, credentials by name, output folders.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/codec/format.h"
#include "frota/model/mode.h"

namespace frota::collect {

using std::chrono::milliseconds;

/// How a feed authenticates. Secrets are never in the file: only the names of the
/// environment variables that hold them, read when the collector starts.
struct AuthConfig {
  enum class Kind {
    kNone,
    kHeader,  // header `header` = $env
    kQuery,   // query parameter `query` = $env (redacted in logs and the archive)
    kBearer,  // Authorization: Bearer $env
    kOAuth2,  // client credentials: POST token_url with $client_id_env/$client_secret_env
  };
  Kind kind = Kind::kNone;
  std::string header;
  std::string query;
  std::string env;
  std::string token_url;
  std::string client_id_env;
  std::string client_secret_env;
  /// kOAuth2 without both variables set polls anonymously (OpenSky allows it) instead of
  /// refusing to start.
  bool anonymous_fallback = true;
};

/// One polled feed.
struct FeedConfig {
  std::string id;  // folder name in the archive; feed_id of its records
  codec::Format format = codec::Format::kGtfsRt;
  std::optional<model::Mode> mode;
  std::string url;  // without secrets; may hold {start} and {end} (see `window`)
  std::string time_zone = "America/Sao_Paulo";
  milliseconds interval{15'000};
  milliseconds timeout{10'000};
  milliseconds connect_timeout{5'000};
  int max_retries = 3;  // per poll, on timeouts, connection errors, truncation and 5xx
  milliseconds backoff_initial{1'000};
  milliseconds backoff_max{60'000};
  /// Wait after a 429 without Retry-After; doubles on each further 429 up to backoff_max_429.
  milliseconds rate_limit_initial{60'000};
  milliseconds backoff_max_429{3'600'000};
  std::int64_t max_body_bytes = 64LL << 20;
  bool gzip = true;
  bool conditional = true;  // If-None-Match / If-Modified-Since
  /// {start} and {end} in the URL become local times "YYYY-MM-DD+HH:MM:SS" (Rio SPPO's
  /// dataInicial/dataFinal) of [now - window, now] in `time_zone`; zero: no templating.
  milliseconds window{0};
  /// Requests per UTC day at most (OpenSky's anonymous credits); zero: no budget.
  std::int64_t daily_budget = 0;
  std::map<std::string, std::string> headers;  // extra request headers, not secret
  AuthConfig auth;
};

/// Where the layers go and how the service reports.
struct CollectorConfig {
  std::filesystem::path archive = "bronze";  // bronze root
  std::filesystem::path silver = "silver";
  std::filesystem::path gold = "gold";
  std::filesystem::path reports = "reports";
  bool medallion = true;                 // write silver and gold
  bool compact = true;                   // pack bronze's sealed hours as it goes
  milliseconds flush_interval{300'000};  // silver/gold Parquet and report cadence
  std::string metrics_listen;            // "127.0.0.1:PORT"; empty: no endpoint
  std::string log_file;                  // rotating 5 MB x 3; empty: none
  std::string log_level_file;            // the file's level; empty: info (--verbose: debug)
  std::string user_agent = "frota-collector";
  std::string area;  // GeoJSON for rule 4 in silver; empty: rule off
  /// The [rules] table then `--rule` flags, as KEY=VALUE in that order (job/rules.h's
  /// keys, checked when parsed): silver's rules 2-3 and, in `frota run`, every rule.
  std::vector<std::string> rules;
  std::vector<FeedConfig> feeds;
  // `frota run`.
  std::string db = "frota.duckdb";
  std::string garages;  // GeoJSON of the garages (runner::ReplayConfig::garages); empty: none
  milliseconds epoch_interval{2'000};
  std::int32_t partitions = 1;
  std::string kafka_brokers;
  std::string kafka_topic;
  // [retention]: `days` and `results_days` (docs/tables.md "Retention"); none: keep all.
  std::optional<std::int32_t> retain_days;
  std::optional<std::int32_t> retain_results_days;
};

/// Parses a TOML configuration (config/collector.example.toml documents every key).
/// Unknown keys are errors, so a typo never silently turns a setting off; errors name
/// the file, line and key. Relative paths are resolved against the file's folder.
base::Result<CollectorConfig> LoadConfig(const std::filesystem::path& path);
/// The same from text; `name` stands for the file in errors, `base_dir` for relative paths.
base::Result<CollectorConfig> ParseConfig(std::string_view text, std::string_view name,
                                          const std::filesystem::path& base_dir);

/// The quick form `NAME=FORMAT,URL` of `--feed`.
base::Result<FeedConfig> ParseFeedFlag(std::string_view text);

/// Checks what TOML cannot: unique feed ids usable as folder names, URLs with a scheme,
/// positive intervals, credential variables named for the auth kind.
base::Status Validate(const CollectorConfig& config);

/// `url` with the values of secret query parameters (`key`, `token`, `apikey`, ... and
/// the feed's auth.query) replaced by "***": what logs and reports show.
std::string RedactUrl(std::string_view url, std::string_view secret_param = {});

}  // namespace frota::collect
