// A GTFS-Realtime VehiclePositions FeedMessage written from plain entities (the reverse
// of the decoder in decode.h, for feeds frota publishes: `frota serve`'s cleaned feed and
// `frota export --gtfs-rt`). What each field says is decided by the caller
// (serve/vehicle_feed.h); this only writes it.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "frota/base/time.h"

namespace frota::codec {

/// TripDescriptor.schedule_relationship; kUnset leaves the field out.
enum class TripSchedule : std::uint8_t { kUnset, kScheduled, kUnscheduled };

/// VehiclePosition.current_status; kUnset leaves the field out.
enum class StopStatus : std::uint8_t { kUnset, kIncomingAt, kStoppedAt, kInTransitTo };

/// One VehiclePosition entity. Empty texts, a negative direction and NaN numbers are
/// left out of the message; the trip descriptor is written when any of its fields is set.
struct VehicleEntity {
  std::string entity_id;
  std::string vehicle_id;
  std::string vehicle_label;
  std::string trip_id;
  std::string route_id;
  int direction_id = -1;
  std::string start_date;  // YYYYMMDD
  std::string start_time;  // HH:MM:SS, may pass 24:00:00
  TripSchedule schedule = TripSchedule::kUnset;
  double lat = 0;
  double lon = 0;
  float bearing_deg = NAN;
  float speed_mps = NAN;
  std::string stop_id;
  StopStatus status = StopStatus::kUnset;
  base::Timestamp time;  // written in whole seconds
};

/// A FeedMessage (gtfs_realtime_version 2.0, FULL_DATASET, header timestamp
/// `header_time` in whole seconds) with one VehiclePosition entity per element, in the
/// given order. Decoding the bytes with DecodeResponse gives the positions back (times
/// to the second, coordinates to float precision, speed from m/s).
std::string EncodeVehicleFeed(const std::vector<VehicleEntity>& entities,
                              base::Timestamp header_time);

}  // namespace frota::codec
