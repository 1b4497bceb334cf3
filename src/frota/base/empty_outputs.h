// A stage report's `"empty"` list and its log sentence: a stage that produced no valid
// or no rejected records says so, rather than leaving a reader to infer it from zeros.
#pragma once

#include <spdlog/spdlog.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace frota::base {

/// The names whose count is zero, in the order given: EmptyOutputs({{"valid", 0},
/// {"rejected", 3}}) is {"valid"}.
inline std::vector<std::string> EmptyOutputs(
    std::initializer_list<std::pair<std::string_view, std::int64_t>> counts) {
  std::vector<std::string> empty;
  for (const auto& [name, count] : counts) {
    if (count == 0) {
      empty.emplace_back(name);
    }
  }
  return empty;
}

/// One INFO line per empty output of a finished stage, e.g.
/// `silver produced no rejected records run_id=...`.
inline void LogEmptyOutputs(std::string_view stage, std::string_view run_id,
                            const std::vector<std::string>& empty) {
  for (const auto& name : empty) {
    spdlog::info("{} produced no {} records run_id={}", stage, name, run_id);
  }
}

}  // namespace frota::base
