// The configurable rules: the thresholds of semantics.md sections 2-3 by name, as the
// TOML `[rules]` table and `--rule KEY=VALUE` set them and as reports and databases
// record them.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frota/base/status.h"
#include "frota/job/config.h"

namespace frota::job {

/// One rule's key and value, in the key's unit (seconds or km/h).
using RuleValue = std::pair<std::string, double>;

/// Every rule key, in the order RuleValues lists them: future_tolerance_s,
/// stale_after_s, max_speed_kmh.<mode> for each mode (model::kAllModes' order),
/// watermark_slack_s, idle_timeout_s, max_segment_speed_kmh.<mode> for each mode.
std::vector<std::string> RuleKeys();

/// Sets one rule. Seconds are >= 0 (whole microseconds; finer is rounded), speeds and
/// the idle timeout > 0; both finite. An unknown key or a bad value is an error naming
/// the key and listing the keys or the accepted range.
base::Status SetRule(JobConfig& config, std::string_view key, double value);
/// The same from text: `value` must be a whole decimal number ("600", "0.5", "1e3").
base::Status SetRule(JobConfig& config, std::string_view key, std::string_view value);
/// `--rule KEY=VALUE`, each in turn (a later one wins over an earlier one).
base::Status ApplyRuleFlags(JobConfig& config, const std::vector<std::string>& flags);

/// Every rule's current value, keyed as RuleKeys; what reports and databases record.
std::vector<RuleValue> RuleValues(const JobConfig& config);

}  // namespace frota::job
