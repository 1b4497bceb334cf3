#include "frota/job/rules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>

namespace frota::job {

namespace {

constexpr std::string_view kSpeedPrefix = "max_speed_kmh.";
constexpr std::string_view kSegmentSpeedPrefix = "max_segment_speed_kmh.";

microseconds Seconds(double s) { return microseconds(std::llround(s * 1e6)); }
double ToSeconds(microseconds us) { return static_cast<double>(us.count()) / 1e6; }

// The seconds-valued rules: key and member.
struct SecondsRule {
  std::string_view key;
  microseconds JobConfig::*member;
  bool positive;  // > 0 rather than >= 0
};
constexpr SecondsRule kSecondsRules[] = {
    {"future_tolerance_s", &JobConfig::future_tolerance, false},
    {"stale_after_s", &JobConfig::stale_limit, false},
    {"watermark_slack_s", &JobConfig::watermark_slack, false},
    {"idle_timeout_s", &JobConfig::idle_timeout, true},
};

// Large enough for any real feed, small enough that microseconds stay far from overflow.
constexpr double kMaxSeconds = 366.0 * 86400;

}  // namespace

std::vector<std::string> RuleKeys() {
  std::vector<std::string> keys = {"future_tolerance_s", "stale_after_s"};
  for (const model::Mode mode : model::kAllModes) {
    keys.push_back(fmt::format("{}{}", kSpeedPrefix, model::ModeName(mode)));
  }
  keys.emplace_back("watermark_slack_s");
  keys.emplace_back("idle_timeout_s");
  for (const model::Mode mode : model::kAllModes) {
    keys.push_back(fmt::format("{}{}", kSegmentSpeedPrefix, model::ModeName(mode)));
  }
  return keys;
}

base::Status SetRule(JobConfig& config, std::string_view key, double value) {
  for (const auto& rule : kSecondsRules) {
    if (key != rule.key) {
      continue;
    }
    if (!std::isfinite(value) || value < 0 || (rule.positive && value <= 0) ||
        value > kMaxSeconds) {
      return base::InvalidInput("rule {}: {} is not a number of seconds {} 0 and <= {:.0f}", key,
                                value, rule.positive ? ">" : ">=", kMaxSeconds);
    }
    config.*rule.member = Seconds(value);
    return base::Status::Ok();
  }
  for (const auto& [prefix, speeds] :
       {std::pair{kSpeedPrefix, &JobConfig::max_speed_kmh},
        std::pair{kSegmentSpeedPrefix, &JobConfig::max_segment_speed_kmh}}) {
    if (key.substr(0, prefix.size()) != prefix) {
      continue;
    }
    const auto mode = model::ParseMode(key.substr(prefix.size()));
    if (!mode) {
      return base::InvalidInput(
          "rule {}: no such mode '{}' (one of bus, brt, rail, ferry, aircraft, other)", key,
          key.substr(prefix.size()));
    }
    if (!std::isfinite(value) || value <= 0) {
      return base::InvalidInput("rule {}: {} is not a speed > 0 km/h", key, value);
    }
    (config.*speeds)[static_cast<std::size_t>(*mode)] = value;
    return base::Status::Ok();
  }
  return base::InvalidInput("unknown rule '{}' (the rules: {})", key, fmt::join(RuleKeys(), ", "));
}

base::Status SetRule(JobConfig& config, std::string_view key, std::string_view value) {
  double number = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size()) {
    return base::InvalidInput("rule {}: '{}' is not a number", key, value);
  }
  return SetRule(config, key, number);
}

base::Status ApplyRuleFlags(JobConfig& config, const std::vector<std::string>& flags) {
  for (const auto& flag : flags) {
    const auto eq = flag.find('=');
    if (eq == std::string::npos || eq == 0) {
      return base::InvalidInput("--rule {}: expected KEY=VALUE", flag);
    }
    const auto status = SetRule(config, std::string_view(flag).substr(0, eq),
                                std::string_view(flag).substr(eq + 1));
    if (!status.ok()) {
      return status.error().WithContext("--rule");
    }
  }
  return base::Status::Ok();
}

std::vector<RuleValue> RuleValues(const JobConfig& config) {
  std::vector<RuleValue> values;
  values.emplace_back("future_tolerance_s", ToSeconds(config.future_tolerance));
  values.emplace_back("stale_after_s", ToSeconds(config.stale_limit));
  for (const model::Mode mode : model::kAllModes) {
    values.emplace_back(fmt::format("{}{}", kSpeedPrefix, model::ModeName(mode)),
                        config.MaxSpeedKmh(mode));
  }
  values.emplace_back("watermark_slack_s", ToSeconds(config.watermark_slack));
  values.emplace_back("idle_timeout_s", ToSeconds(config.idle_timeout));
  for (const model::Mode mode : model::kAllModes) {
    values.emplace_back(fmt::format("{}{}", kSegmentSpeedPrefix, model::ModeName(mode)),
                        config.MaxSegmentSpeedKmh(mode));
  }
  return values;
}

}  // namespace frota::job
