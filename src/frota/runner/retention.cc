#include "frota/runner/retention.h"

namespace frota::runner {

engine::Retention RetentionPolicy::CutsAt(base::Timestamp newest,
                                          const base::TimeZone& zone) const {
  const base::LocalDate newest_date = zone.ToLocalHour(newest).date;
  const auto cut = [&](std::int32_t days) {
    engine::RetentionCut c;
    c.before = newest_date - std::chrono::days(days - 1);
    c.before_instant = zone.FromLocal(std::chrono::local_time<base::Micros>(c.before));
    return c;
  };
  engine::Retention cuts;
  if (raw_days) {
    cuts.raw = cut(*raw_days);
  }
  if (results_days) {
    cuts.results = cut(*results_days);
  }
  return cuts;
}

base::Status RetentionPolicy::Validate() const {
  if (raw_days && *raw_days < 1) {
    return base::InvalidInput("--retain-days {}: keep at least 1 day", *raw_days);
  }
  if (results_days && *results_days < 1) {
    return base::InvalidInput("--retain-results-days {}: keep at least 1 day", *results_days);
  }
  return base::Status::Ok();
}

}  // namespace frota::runner
