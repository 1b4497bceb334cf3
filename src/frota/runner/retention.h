// How long raw input and results are kept: the cuts retention removes before.
#pragma once

#include <cstdint>
#include <optional>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/base/time_zone.h"
#include "frota/engine/transactional_sink.h"

namespace frota::runner {

/// How long raw input and results are kept (`--retain-days`, `--retain-results-days`,
/// `[retention]`): whole local days counted back from the newest data's local date, that
/// day included (docs/tables.md "Retention"). Nothing is removed where a count is absent.
struct RetentionPolicy {
  std::optional<std::int32_t> raw_days;
  std::optional<std::int32_t> results_days;
  [[nodiscard]] bool enabled() const { return raw_days.has_value() || results_days.has_value(); }
  /// The policy's cuts with the newest data at `newest`, in the feed's `zone`.
  [[nodiscard]] engine::Retention CutsAt(base::Timestamp newest, const base::TimeZone& zone) const;
  /// An error naming the flag when a count is not a whole number of days >= 1.
  [[nodiscard]] base::Status Validate() const;
};

}  // namespace frota::runner
