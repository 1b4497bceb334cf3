// The per-table row counts every runner's report carries, added up epoch by epoch.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "frota/model/rejection.h"
#include "frota/model/rows.h"

namespace frota::runner {

/// Adds an epoch's rows to `report`, any report with `accepted`, `rejected` (by reason
/// name) and `rows` (by table name).
template <typename Report>
void CountEpochRows(const model::EpochRows& rows, Report& report) {
  const auto n = [](const auto& v) { return static_cast<std::int64_t>(v.size()); };
  report.accepted += n(rows.positions);
  std::array<std::int64_t, model::kRejectReasonCount> by_reason{};
  for (const auto& r : rows.rejected) {
    ++by_reason[static_cast<std::size_t>(r.reason)];
  }
  for (const auto reason : model::kAllRejectReasons) {
    if (const auto count = by_reason[static_cast<std::size_t>(reason)]; count > 0) {
      report.rejected[std::string(model::RejectReasonName(reason))] += count;
    }
  }
  report.rows["positions"] += n(rows.positions);
  report.rows["rejected"] += n(rows.rejected);
  report.rows["speed_cells"] += n(rows.speed_cells);
  report.rows["speed_lines"] += n(rows.speed_lines);
  report.rows["fleet_hours"] += n(rows.fleet_hours);
  report.rows["stops"] += n(rows.stops);
  report.rows["trips"] += n(rows.trips);
  report.rows["quality"] += n(rows.quality);
  if (!rows.polls.empty()) {
    report.rows["collector_polls"] += n(rows.polls);
  }
  for (const auto& [table, count] :
       {std::pair{"departures", n(rows.departures)}, std::pair{"headways", n(rows.headways)},
        std::pair{"alerts", n(rows.alerts)}}) {
    if (count > 0) {
      report.rows[table] += count;
    }
  }
}

}  // namespace frota::runner
