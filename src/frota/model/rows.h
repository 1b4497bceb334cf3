// The rows the jobs emit (semantics.md sections 4-5): plain data shared by jobs, sinks and batch.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/model/mode.h"
#include "frota/model/position.h"
#include "frota/model/position_record.h"
#include "frota/model/rejection.h"
#include "frota/model/rejection_record.h"
#include "frota/model/string_dictionary.h"
#include "frota/model/tables.h"

namespace frota::model {

// The rows of each output table are in tables.h, with their catalog entries.

template <typename Row>
using RowVector = std::vector<Row>;

/// Everything one epoch produced, in no particular order: silver (accepted positions and
/// refused records, their ids `strings`'s) and the rows of every catalog table the jobs
/// emit, stored per table and reached by row type: `rows.of<StopRow>()`.
struct EpochRows {
  std::vector<PositionRecord> positions;
  std::shared_ptr<const StringDictionary> strings;
  std::vector<RejectionRecord> rejected;

  template <typename Row>
  [[nodiscard]] std::vector<Row>& of() {
    static_assert(!kDerivedTable<Row>, "a derived table's rows are made by DeriveRows");
    return std::get<std::vector<Row>>(tables_);
  }
  template <typename Row>
  [[nodiscard]] const std::vector<Row>& of() const {
    static_assert(!kDerivedTable<Row>, "a derived table's rows are made by DeriveRows");
    return std::get<std::vector<Row>>(tables_);
  }

  /// Moves `other`'s rows in; both must use the same string dictionary (one pipeline's).
  void Append(EpochRows&& other);
  /// Rows of silver and of every table the epoch carries.
  [[nodiscard]] std::size_t RowCount() const;

 private:
  SelectTables<IsEmittedTable, RowVector, CatalogRowTypes>::type tables_;
};

/// The rows of a derived table (TableSpec::derived_from) for an epoch's rows.
template <typename Row>
std::vector<Row> DeriveRows(const EpochRows& rows);
/// quality_latency: each quality row's histogram, bucket by bucket.
template <>
std::vector<QualityLatencyRow> DeriveRows(const EpochRows& rows);
/// aircraft_positions: a row for each position HasAircraftFields picks, in order, its
/// texts borrowed from the epoch's dictionary.
template <>
std::vector<AircraftPositionRow> DeriveRows(const EpochRows& rows);

/// Calls `write(rows)` with the epoch's rows of every catalog table, in the catalog's
/// order (a derived table's made by DeriveRows), as `const std::vector<Row>&`; stops at
/// the first error. `write` is generic over the row type; each sink writes an epoch
/// through it, so a table added to the catalog is written everywhere.
template <typename F>
base::Status ForEachTableRows(const EpochRows& rows, F&& write) {
  base::Status status = base::Status::Ok();
  ForEachRowType(CatalogRowTypes{}, [&]<typename Row>() {
    if (!status.ok()) {
      return;
    }
    if constexpr (kDerivedTable<Row>) {
      const std::vector<Row> derived = DeriveRows<Row>(rows);
      status = write(derived);
    } else {
      status = write(rows.of<Row>());
    }
  });
  return status;
}

/// Calls `f(spec, count)` for every table the epoch carries, in the catalog's order.
template <typename F>
void ForEachTableCount(const EpochRows& rows, F&& f) {
  ForEachRowType(CatalogRowTypes{}, [&]<typename Row>() {
    if constexpr (!kDerivedTable<Row>) {
      f(Table<Row>::kSpec, rows.of<Row>().size());
    }
  });
}

}  // namespace frota::model
