// The rows the jobs emit (semantics.md sections 4-5): plain data shared by jobs, sinks and batch.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frota/base/time.h"
#include "frota/model/mode.h"
#include "frota/model/position.h"
#include "frota/model/position_record.h"
#include "frota/model/rejection.h"
#include "frota/model/rejection_record.h"
#include "frota/model/string_dictionary.h"
#include "frota/model/tables.h"

namespace frota::model {

// The rows of each output table (SpeedCellRow, SpeedLineRow, FleetHourRow, StopRow,
// TripRow, QualityRow, DepartureRow, HeadwayRow, AlertRow, PollRow and the derived
// QualityLatencyRow and AircraftPositionRow) are in tables.h, with their catalog entries.

/// The quality_latency rows of `quality`: each row's histogram, bucket by bucket.
std::vector<QualityLatencyRow> QualityLatencyRows(const std::vector<QualityRow>& quality);

/// The aircraft_positions rows of `positions` (those HasAircraftFields picks), in order,
/// their texts borrowed from `strings`.
std::vector<AircraftPositionRow> AircraftPositionRows(const std::vector<PositionRecord>& positions,
                                                      const StringDictionary& strings);

/// Everything one epoch produced, in no particular order.
struct EpochRows {
  /// Accepted positions (silver) and refused records; their ids are `strings`'s.
  std::vector<PositionRecord> positions;
  std::shared_ptr<const StringDictionary> strings;
  std::vector<RejectionRecord> rejected;
  std::vector<SpeedCellRow> speed_cells;
  std::vector<SpeedLineRow> speed_lines;
  std::vector<FleetHourRow> fleet_hours;
  std::vector<StopRow> stops;
  std::vector<TripRow> trips;
  std::vector<QualityRow> quality;
  /// collector_polls: requests of the collector whose poll journal this run follows.
  std::vector<PollRow> polls;
  /// The regularity jobs (regularity::Stream), when the runner has a GTFS plan.
  std::vector<DepartureRow> departures;
  std::vector<HeadwayRow> headways;
  std::vector<AlertRow> alerts;

  /// Moves `other`'s rows in; both must use the same string dictionary (one pipeline's).
  void Append(EpochRows&& other);
  [[nodiscard]] std::size_t RowCount() const;
};

}  // namespace frota::model
