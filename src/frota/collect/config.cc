#include "frota/collect/config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "frota/base/file.h"
#include "frota/base/log.h"
#include "frota/job/rules.h"

namespace frota::collect {

namespace fs = std::filesystem;

namespace {

// Reads one TOML table, remembering which keys were used so that the rest can be
// reported as unknown (a typo must not silently fall back to a default).
class TableReader {
 public:
  TableReader(const toml::table& table, std::string name, std::string file)
      : table_(table), name_(std::move(name)), file_(std::move(file)) {}

  base::Error ErrorAt(const toml::node& node, std::string_view what) const {
    return base::InvalidInput("{}:{}: {}", file_, node.source().begin.line, what);
  }

  template <typename T>
  base::Status Read(std::string_view key, T& out) {
    used_.emplace(key);
    const toml::node* node = table_.get(key);
    if (node == nullptr) {
      return base::Status::Ok();
    }
    if constexpr (std::is_same_v<T, std::string>) {
      if (const auto v = node->value<std::string>()) {
        out = *v;
        return base::Status::Ok();
      }
      return ErrorAt(*node, fmt::format("{}.{} must be a string", name_, key));
    } else if constexpr (std::is_same_v<T, bool>) {
      if (const auto v = node->value<bool>()) {
        out = *v;
        return base::Status::Ok();
      }
      return ErrorAt(*node, fmt::format("{}.{} must be true or false", name_, key));
    } else {
      if (const auto v = node->value<std::int64_t>()) {
        out = static_cast<T>(*v);
        return base::Status::Ok();
      }
      return ErrorAt(*node, fmt::format("{}.{} must be an integer", name_, key));
    }
  }

  // Seconds as an integer or a decimal ("0.5"), into milliseconds.
  base::Status ReadSeconds(std::string_view key, milliseconds& out) {
    used_.emplace(key);
    const toml::node* node = table_.get(key);
    if (node == nullptr) {
      return base::Status::Ok();
    }
    const auto v = node->value<double>();
    if (!v || !std::isfinite(*v) || *v < 0) {
      return ErrorAt(*node, fmt::format("{}.{} must be a number of seconds >= 0", name_, key));
    }
    out = milliseconds(static_cast<std::int64_t>(std::llround(*v * 1000)));
    return base::Status::Ok();
  }

  // A path given under `key` (relative to base_dir); `out` keeps its value otherwise (the
  // defaults are resolved against base_dir once, by the caller).
  base::Status ReadPath(std::string_view key, fs::path& out, const fs::path& base_dir) {
    std::string text;
    FROTA_RETURN_IF_ERROR(Read(key, text));
    if (!text.empty()) {
      out = fs::path(text).is_absolute() ? fs::path(text) : base_dir / text;
    }
    return base::Status::Ok();
  }

  const toml::table* SubTable(std::string_view key) {
    used_.emplace(key);
    const toml::node* node = table_.get(key);
    return node != nullptr ? node->as_table() : nullptr;
  }
  const toml::node* Node(std::string_view key) {
    used_.emplace(key);
    return table_.get(key);
  }

  base::Status CheckUnknown() const {
    for (const auto& [key, node] : table_) {
      if (used_.count(std::string(key.str())) == 0) {
        return ErrorAt(node, fmt::format("unknown key '{}' in [{}]", key.str(), name_));
      }
    }
    return base::Status::Ok();
  }

 private:
  const toml::table& table_;
  std::string name_;
  std::string file_;
  std::set<std::string, std::less<>> used_;
};

base::Status ReadPoliteness(TableReader& r, FeedConfig& feed) {
  FROTA_RETURN_IF_ERROR(r.ReadSeconds("interval_s", feed.interval));
  FROTA_RETURN_IF_ERROR(r.ReadSeconds("timeout_s", feed.timeout));
  FROTA_RETURN_IF_ERROR(r.ReadSeconds("connect_timeout_s", feed.connect_timeout));
  FROTA_RETURN_IF_ERROR(r.Read("max_retries", feed.max_retries));
  FROTA_RETURN_IF_ERROR(r.ReadSeconds("backoff_initial_s", feed.backoff_initial));
  FROTA_RETURN_IF_ERROR(r.ReadSeconds("backoff_max_s", feed.backoff_max));
  FROTA_RETURN_IF_ERROR(r.ReadSeconds("rate_limit_initial_s", feed.rate_limit_initial));
  FROTA_RETURN_IF_ERROR(r.ReadSeconds("rate_limit_max_s", feed.backoff_max_429));
  FROTA_RETURN_IF_ERROR(r.Read("max_body_bytes", feed.max_body_bytes));
  FROTA_RETURN_IF_ERROR(r.Read("gzip", feed.gzip));
  FROTA_RETURN_IF_ERROR(r.Read("conditional", feed.conditional));
  FROTA_RETURN_IF_ERROR(r.Read("time_zone", feed.time_zone));
  FROTA_RETURN_IF_ERROR(r.Read("daily_budget", feed.daily_budget));
  return base::Status::Ok();
}

base::Status ReadAuth(const toml::table& table, const std::string& file, const std::string& name,
                      AuthConfig& auth) {
  TableReader r(table, name, file);
  std::string type;
  FROTA_RETURN_IF_ERROR(r.Read("type", type));
  FROTA_RETURN_IF_ERROR(r.Read("header", auth.header));
  FROTA_RETURN_IF_ERROR(r.Read("query", auth.query));
  FROTA_RETURN_IF_ERROR(r.Read("env", auth.env));
  FROTA_RETURN_IF_ERROR(r.Read("token_url", auth.token_url));
  FROTA_RETURN_IF_ERROR(r.Read("client_id_env", auth.client_id_env));
  FROTA_RETURN_IF_ERROR(r.Read("client_secret_env", auth.client_secret_env));
  FROTA_RETURN_IF_ERROR(r.Read("anonymous_fallback", auth.anonymous_fallback));
  FROTA_RETURN_IF_ERROR(r.CheckUnknown());
  if (type.empty() || type == "none") {
    auth.kind = AuthConfig::Kind::kNone;
  } else if (type == "header") {
    auth.kind = AuthConfig::Kind::kHeader;
  } else if (type == "query") {
    auth.kind = AuthConfig::Kind::kQuery;
  } else if (type == "bearer") {
    auth.kind = AuthConfig::Kind::kBearer;
  } else if (type == "oauth2") {
    auth.kind = AuthConfig::Kind::kOAuth2;
  } else {
    return base::InvalidInput("{}:{}: {}.type '{}': not one of none, header, query, bearer, oauth2",
                              file, table.source().begin.line, name, type);
  }
  return base::Status::Ok();
}

// [rules]: `key = number`, and max_speed_kmh as a table (`max_speed_kmh.bus = 100` or
// [rules.max_speed_kmh]). Each value is checked as job::SetRule checks it.
base::Status ReadRules(const toml::table& table, const std::string& file,
                       std::vector<std::string>& out) {
  job::JobConfig scratch;
  const auto add = [&](const std::string& key, const toml::node& node) -> base::Status {
    const auto value = node.value<double>();
    if (!value || node.is_boolean()) {
      return base::InvalidInput("{}:{}: rules.{} must be a number", file, node.source().begin.line,
                                key);
    }
    if (const auto set = job::SetRule(scratch, key, *value); !set.ok()) {
      return base::InvalidInput("{}:{}: {}", file, node.source().begin.line, set.error().message());
    }
    out.push_back(fmt::format("{}={}", key, *value));
    return base::Status::Ok();
  };
  for (const auto& [key, node] : table) {
    if (const auto* sub = node.as_table()) {
      if (sub->empty()) {
        FROTA_RETURN_IF_ERROR(add(std::string(key.str()), node));
      }
      for (const auto& [sub_key, sub_node] : *sub) {
        FROTA_RETURN_IF_ERROR(add(fmt::format("{}.{}", key.str(), sub_key.str()), sub_node));
      }
    } else {
      FROTA_RETURN_IF_ERROR(add(std::string(key.str()), node));
    }
  }
  return base::Status::Ok();
}

// [collector]: where the medallion layers go, logging, the area.
base::Status ReadCollector(const toml::table& table, const std::string& file,
                           const fs::path& base_dir, CollectorConfig& config) {
  TableReader r(table, "collector", file);
  FROTA_RETURN_IF_ERROR(r.ReadPath("archive", config.archive, base_dir));
  FROTA_RETURN_IF_ERROR(r.ReadPath("silver", config.silver, base_dir));
  FROTA_RETURN_IF_ERROR(r.ReadPath("gold", config.gold, base_dir));
  FROTA_RETURN_IF_ERROR(r.ReadPath("reports", config.reports, base_dir));
  FROTA_RETURN_IF_ERROR(r.Read("medallion", config.medallion));
  FROTA_RETURN_IF_ERROR(r.Read("compact", config.compact));
  FROTA_RETURN_IF_ERROR(r.ReadSeconds("flush_interval_s", config.flush_interval));
  FROTA_RETURN_IF_ERROR(r.Read("metrics_listen", config.metrics_listen));
  fs::path log_file;
  FROTA_RETURN_IF_ERROR(r.ReadPath("log_file", log_file, base_dir));
  config.log_file = log_file.string();
  FROTA_RETURN_IF_ERROR(r.Read("log_level_file", config.log_level_file));
  if (!config.log_level_file.empty() && !base::ParseLogLevel(config.log_level_file)) {
    return base::InvalidInput(
        "{}: collector.log_level_file '{}': not one of trace, debug, "
        "info, warn, error, critical, off",
        file, config.log_level_file);
  }
  FROTA_RETURN_IF_ERROR(r.Read("user_agent", config.user_agent));
  fs::path area;
  FROTA_RETURN_IF_ERROR(r.ReadPath("area", area, base_dir));
  config.area = area.string();
  FROTA_RETURN_IF_ERROR(r.CheckUnknown());
  return base::Status::Ok();
}

// [run]: frota run's database, epochs and partitions, and the topic it publishes to.
base::Status ReadRun(const toml::table& table, const std::string& file, const fs::path& base_dir,
                     CollectorConfig& config) {
  TableReader r(table, "run", file);
  fs::path db = base_dir / config.db;
  FROTA_RETURN_IF_ERROR(r.ReadPath("db", db, base_dir));
  config.db = db.string();
  FROTA_RETURN_IF_ERROR(r.ReadSeconds("epoch_s", config.epoch_interval));
  FROTA_RETURN_IF_ERROR(r.Read("partitions", config.partitions));
  FROTA_RETURN_IF_ERROR(r.Read("kafka_brokers", config.kafka_brokers));
  FROTA_RETURN_IF_ERROR(r.Read("kafka_topic", config.kafka_topic));
  FROTA_RETURN_IF_ERROR(r.CheckUnknown());
  return base::Status::Ok();
}

// [retention]: days of bronze and of results kept (each at least 1).
base::Status ReadRetention(const toml::table& table, const std::string& file,
                           CollectorConfig& config) {
  TableReader r(table, "retention", file);
  for (auto [key, days] : {std::pair{"days", &config.retain_days},
                           std::pair{"results_days", &config.retain_results_days}}) {
    std::int32_t value = 0;
    const bool given = table.contains(key);
    FROTA_RETURN_IF_ERROR(r.Read(key, value));
    if (given) {
      if (value < 1) {
        return base::InvalidInput("{}: retention.{} = {}: keep at least 1 day", file, key, value);
      }
      *days = value;
    }
  }
  FROTA_RETURN_IF_ERROR(r.CheckUnknown());
  return base::Status::Ok();
}

// One [[feed]], over the [defaults].
base::Result<FeedConfig> ReadFeed(const toml::table& table, const std::string& file,
                                  const FeedConfig& defaults) {
  FeedConfig feed = defaults;
  TableReader r(table, "feed", file);
  FROTA_RETURN_IF_ERROR(r.Read("id", feed.id));
  std::string format;
  FROTA_RETURN_IF_ERROR(r.Read("format", format));
  const auto parsed = codec::ParseFormat(format);
  if (!parsed || *parsed == codec::Format::kRioArchiveCsv) {
    return r.ErrorAt(table, fmt::format("feed '{}': format '{}' is not one of gtfs-rt, "
                                        "rio-sppo, rio-brt, opensky",
                                        feed.id, format));
  }
  feed.format = *parsed;
  std::string mode;
  FROTA_RETURN_IF_ERROR(r.Read("mode", mode));
  if (!mode.empty()) {
    feed.mode = model::ParseMode(mode);
    if (!feed.mode) {
      return r.ErrorAt(table, fmt::format("feed '{}': mode '{}' is not one of bus, brt, "
                                          "rail, ferry, aircraft, other",
                                          feed.id, mode));
    }
  }
  FROTA_RETURN_IF_ERROR(r.Read("url", feed.url));
  FROTA_RETURN_IF_ERROR(r.ReadSeconds("window_s", feed.window));
  FROTA_RETURN_IF_ERROR(ReadPoliteness(r, feed));
  if (const auto* headers = r.SubTable("headers")) {
    for (const auto& [key, value] : *headers) {
      const auto v = value.value<std::string>();
      if (!v) {
        return r.ErrorAt(
            value, fmt::format("feed '{}': header '{}' must be a string", feed.id, key.str()));
      }
      feed.headers[std::string(key.str())] = *v;
    }
  }
  if (const auto* auth = r.SubTable("auth")) {
    FROTA_RETURN_IF_ERROR(ReadAuth(*auth, file, "feed.auth", feed.auth));
  }
  FROTA_RETURN_IF_ERROR(r.CheckUnknown());
  return feed;
}

}  // namespace

base::Result<CollectorConfig> ParseConfig(std::string_view text, std::string_view name,
                                          const fs::path& base_dir) {
  const std::string file(name);
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    return base::InvalidInput("{}:{}:{}: {}", file, e.source().begin.line, e.source().begin.column,
                              e.description());
  }
  CollectorConfig config;
  config.archive = base_dir / config.archive;
  config.silver = base_dir / config.silver;
  config.gold = base_dir / config.gold;
  config.reports = base_dir / config.reports;
  TableReader top(root, "top level", file);
  FeedConfig defaults;
  if (const auto* collector = top.SubTable("collector")) {
    FROTA_RETURN_IF_ERROR(ReadCollector(*collector, file, base_dir, config));
  }
  if (const auto* run = top.SubTable("run")) {
    FROTA_RETURN_IF_ERROR(ReadRun(*run, file, base_dir, config));
  }
  if (const auto* rules = top.SubTable("rules")) {
    FROTA_RETURN_IF_ERROR(ReadRules(*rules, file, config.rules));
  }
  if (const auto* retention = top.SubTable("retention")) {
    FROTA_RETURN_IF_ERROR(ReadRetention(*retention, file, config));
  }
  if (const auto* d = top.SubTable("defaults")) {
    TableReader r(*d, "defaults", file);
    FROTA_RETURN_IF_ERROR(ReadPoliteness(r, defaults));
    FROTA_RETURN_IF_ERROR(r.CheckUnknown());
  }
  if (const auto* feeds = top.Node("feed")) {
    const auto* array = feeds->as_array();
    if (array == nullptr) {
      return base::InvalidInput("{}:{}: feeds are [[feed]] tables", file,
                                feeds->source().begin.line);
    }
    for (const auto& node : *array) {
      const auto* table = node.as_table();
      if (table == nullptr) {
        return base::InvalidInput("{}:{}: a [[feed]] must be a table", file,
                                  node.source().begin.line);
      }
      FROTA_ASSIGN_OR_RETURN(auto feed, ReadFeed(*table, file, defaults));
      config.feeds.push_back(std::move(feed));
    }
  }
  FROTA_RETURN_IF_ERROR(top.CheckUnknown());
  const auto valid = Validate(config);
  if (!valid.ok()) {
    return valid.error().WithContext(file);
  }
  return config;
}

base::Result<CollectorConfig> LoadConfig(const fs::path& path) {
  FROTA_ASSIGN_OR_RETURN(const auto text, base::ReadFile(path));
  return ParseConfig(text, path.string(),
                     path.parent_path().empty() ? fs::path(".") : path.parent_path());
}

base::Result<FeedConfig> ParseFeedFlag(std::string_view text) {
  const auto eq = text.find('=');
  const auto comma = text.find(',', eq == std::string_view::npos ? 0 : eq);
  if (eq == std::string_view::npos || comma == std::string_view::npos || eq == 0) {
    return base::InvalidInput("--feed {}: expected NAME=FORMAT,URL", text);
  }
  FeedConfig feed;
  feed.id = std::string(text.substr(0, eq));
  const auto format_name = text.substr(eq + 1, comma - eq - 1);
  const auto format = codec::ParseFormat(format_name);
  if (!format || *format == codec::Format::kRioArchiveCsv) {
    return base::InvalidInput(
        "--feed {}: format '{}' is not one of gtfs-rt, rio-sppo, "
        "rio-brt, opensky",
        text, format_name);
  }
  feed.format = *format;
  feed.url = std::string(text.substr(comma + 1));
  return feed;
}

base::Status Validate(const CollectorConfig& config) {
  if (config.feeds.empty()) {
    return base::InvalidInput("no feeds configured ([[feed]] or --feed NAME=FORMAT,URL)");
  }
  std::set<std::string> ids;
  for (const auto& feed : config.feeds) {
    if (feed.id.empty() || feed.id == "." || feed.id == ".." ||
        feed.id.find_first_of("/\\ \t\n") != std::string::npos) {
      return base::InvalidInput("feed id '{}' cannot be a folder name", feed.id);
    }
    if (!ids.insert(feed.id).second) {
      return base::InvalidInput("feed id '{}' appears twice", feed.id);
    }
    if (feed.url.rfind("http://", 0) != 0 && feed.url.rfind("https://", 0) != 0) {
      return base::InvalidInput("feed '{}': url '{}' must start with http:// or https://", feed.id,
                                RedactUrl(feed.url));
    }
    if (feed.interval.count() <= 0) {
      return base::InvalidInput("feed '{}': interval_s must be > 0", feed.id);
    }
    if (feed.timeout.count() <= 0 || feed.max_retries < 0 || feed.max_body_bytes <= 0) {
      return base::InvalidInput(
          "feed '{}': timeout_s, max_retries and max_body_bytes must be "
          "positive",
          feed.id);
    }
    const auto& auth = feed.auth;
    using Kind = AuthConfig::Kind;
    if ((auth.kind == Kind::kHeader || auth.kind == Kind::kQuery || auth.kind == Kind::kBearer) &&
        auth.env.empty()) {
      return base::InvalidInput("feed '{}': auth needs `env`, the variable holding the secret",
                                feed.id);
    }
    if (auth.kind == Kind::kHeader && auth.header.empty()) {
      return base::InvalidInput("feed '{}': auth type header needs `header`", feed.id);
    }
    if (auth.kind == Kind::kQuery && auth.query.empty()) {
      return base::InvalidInput("feed '{}': auth type query needs `query`", feed.id);
    }
    if (auth.kind == Kind::kOAuth2 &&
        (auth.token_url.empty() || auth.client_id_env.empty() || auth.client_secret_env.empty())) {
      return base::InvalidInput(
          "feed '{}': auth type oauth2 needs token_url, client_id_env and client_secret_env",
          feed.id);
    }
  }
  if (config.flush_interval.count() <= 0) {
    return base::InvalidInput("collector.flush_interval_s must be > 0");
  }
  return base::Status::Ok();
}

std::string RedactUrl(std::string_view url, std::string_view secret_param) {
  static constexpr std::string_view kSecretNames[] = {
      "key", "apikey", "api_key", "token", "access_token", "secret", "password", "client_secret"};
  const auto q = url.find('?');
  if (q == std::string_view::npos) {
    return std::string(url);
  }
  std::string out(url.substr(0, q + 1));
  std::string_view rest = url.substr(q + 1);
  bool first = true;
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const auto part = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const auto eq = part.find('=');
    const auto key = part.substr(0, eq);
    std::string lower(key);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const bool secret = (!secret_param.empty() && key == secret_param) ||
                        std::find(std::begin(kSecretNames), std::end(kSecretNames), lower) !=
                            std::end(kSecretNames);
    if (!first) {
      out += '&';
    }
    first = false;
    if (secret && eq != std::string_view::npos) {
      out += std::string(key) + "=***";
    } else {
      out += std::string(part);
    }
  }
  return out;
}

}  // namespace frota::collect
