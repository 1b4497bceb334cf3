// A deliberately naive reference of rules 2-7 and every job: sort everything, then loop.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "frota/base/strong_id.h"
#include "frota/job/config.h"
#include "frota/model/rows.h"
#include "frota/model/source.h"

namespace frota::job::testing {

/// A record as offered to the pipeline: its source partition and the decoded record.
struct OfferedRecord {
  base::PartitionId partition;
  model::Position position;
};

/// The result tables with partitions summed away: what `frota export` shows. Keys are
/// natural keys; values are the rest of the row.
struct ReferenceTables {
  // (feed, vehicle, event_time, source name, offset)
  std::set<std::tuple<std::string, std::string, std::int64_t, std::string, std::int64_t>> positions;
  // (source name, offset) -> reason, for every refusal but duplicates
  std::map<std::pair<std::string, std::int64_t>, model::RejectReason> rejected;
  // (feed, vehicle, date, hour) -> refused duplicates
  std::map<std::tuple<std::string, std::string, std::int32_t, int>, std::int64_t> duplicate_counts;
  // (mode, date, hour, x, y) -> (segments, mm, us, implausible segments)
  std::map<std::tuple<int, std::int32_t, int, std::int32_t, std::int32_t>,
           std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>>
      speed_cells;
  // (mode, route, date, hour) -> (segments, mm, us, implausible segments)
  std::map<std::tuple<int, std::string, std::int32_t, int>,
           std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>>
      speed_lines;
  // (mode, date, hour) -> (vehicles, positions)
  std::map<std::tuple<int, std::int32_t, int>, std::pair<std::int64_t, std::int64_t>> fleet_hours;
  // (feed, vehicle, start_us) -> (route, end_us, lat, lon, positions, near_terminal)
  std::map<std::tuple<std::string, std::string, std::int64_t>,
           std::tuple<std::string, std::int64_t, double, double, std::int64_t, std::optional<bool>>>
      stops;
  // (feed, vehicle, trip, date, first_us) -> (last_us, positions, mm, first lat, last lat)
  std::map<std::tuple<std::string, std::string, std::string, std::string, std::int64_t>,
           std::tuple<std::int64_t, std::int64_t, std::int64_t, double, double>>
      trips;
  // (feed, date, hour) -> accepted, vehicles, rejected per reason, latency histogram
  struct Quality {
    std::int64_t accepted = 0;
    std::int64_t vehicles = 0;
    std::array<std::int64_t, model::kRejectReasonCount> rejected{};
    std::map<int, std::int64_t> latency;
    bool operator==(const Quality&) const = default;
  };
  std::map<std::tuple<std::string, std::int32_t, int>, Quality> quality;

  bool operator==(const ReferenceTables&) const = default;
};

/// Computes every table from the records in arrival order, the naive way: a per-record
/// watermark recomputed from scratch, all accepted records of a key sorted, then plain
/// loops for each rule and job. Decoder rejections are passed in `decoded_rejections`
/// (they only count).
ReferenceTables RunReference(
    const std::vector<OfferedRecord>& arrival,
    const std::vector<std::pair<base::PartitionId, model::Rejection>>& decoded_rejections,
    const JobConfig& config, const model::SourceCatalog& catalog);

/// The same tables from the rows one or more Pipelines emitted (summing partitions).
ReferenceTables FromRows(const std::vector<model::EpochRows>& batches, const JobConfig& config,
                         const model::SourceCatalog& catalog);

}  // namespace frota::job::testing
