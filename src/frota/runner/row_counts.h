// The per-table row counts every runner's report carries, added up epoch by epoch.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "frota/model/rejection.h"
#include "frota/model/rows.h"

namespace frota::runner {

/// Adds an epoch's rows to `report`, any report with `accepted`, `rejected` (by reason
/// name, duplicates counted from duplicate_counts: the refusals, not the rows) and `rows`
/// (by table name: the tables of the core jobs always, the others once they have rows).
template <typename Report>
void CountEpochRows(const model::EpochRows& rows, Report& report) {
  const auto n = [](const auto& v) { return static_cast<std::int64_t>(v.size()); };
  report.accepted += n(rows.positions);
  std::array<std::int64_t, model::kRejectReasonCount> by_reason{};
  for (const auto& r : rows.rejected) {
    ++by_reason[static_cast<std::size_t>(r.reason)];
  }
  for (const auto& d : rows.of<model::DuplicateCountRow>()) {
    by_reason[static_cast<std::size_t>(model::RejectReason::kDuplicate)] += d.records;
  }
  for (const auto reason : model::kAllRejectReasons) {
    if (const auto count = by_reason[static_cast<std::size_t>(reason)]; count > 0) {
      report.rejected[std::string(model::RejectReasonName(reason))] += count;
    }
  }
  report.rows["positions"] += n(rows.positions);
  report.rows["rejected"] += n(rows.rejected);
  model::ForEachTableCount(rows, [&](const model::TableSpec& table, std::size_t count) {
    if (count > 0 || table.reconcile == model::Reconcile::kByKey) {
      report.rows[std::string(table.name)] += static_cast<std::int64_t>(count);
    }
  });
}

}  // namespace frota::runner
