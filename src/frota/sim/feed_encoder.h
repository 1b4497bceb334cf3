// Simulated records as the bytes of a GTFS-Realtime VehiclePositions response or a Rio SPPO one.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frota/sim/faults.h"
#include "frota/sim/fleet.h"
#include "frota/sim/schedule.h"

namespace frota::sim {

/// One entity of a response, as the simulator decided it.
struct SimRecord {
  std::int32_t vehicle = 0;      // index into Fleet::vehicles
  std::optional<Fault> fault;    // a record fault, or kRepeat / kDelayedReport
  std::int64_t timestamp_s = 0;  // the vehicle's GPS timestamp (after a clock fault)
  std::int64_t fix_s = 0;        // when the fix was really taken, Unix seconds
  float lat = 0;                 // as written (after a position fault)
  float lon = 0;
  float speed_mps = 0;
  float bearing_deg = 0;
  std::int32_t slot = -1;  // plan trip reported, -1: route only
  bool has_timestamp = true;
  bool timestamp_in_ms = false;
  bool has_vehicle_id = true;
  bool has_position = true;
};

/// Builds response bodies. Holds a reusable protobuf message; not thread-safe.
class FeedEncoder {
 public:
  FeedEncoder(const Fleet& fleet, const DayPlan& plan);
  ~FeedEncoder();
  FeedEncoder(const FeedEncoder&) = delete;
  FeedEncoder& operator=(const FeedEncoder&) = delete;

  /// A FeedMessage (gtfs_realtime_version 2.0, FULL_DATASET) with one VehiclePosition
  /// entity per record; no header timestamp when `header_time_s` is empty.
  std::string GtfsRt(const std::vector<SimRecord>& records,
                     std::optional<std::int64_t> header_time_s);
  /// A JSON array as Rio's gps/sppo returns it: string values, comma decimals, epoch
  /// milliseconds; `server_ms` is `datahoraservidor`.
  std::string RioSppo(const std::vector<SimRecord>& records, std::int64_t server_ms) const;

 private:
  struct Message;
  const Fleet& fleet_;
  const DayPlan& plan_;
  std::string start_date_;
  std::unique_ptr<Message> message_;
};

}  // namespace frota::sim
