// Positions written as a GTFS-Realtime VehiclePositions FeedMessage (the reverse of the
// decoder in decode.h, for feeds frota publishes: `frota serve`'s cleaned feed).
#pragma once

#include <string>
#include <vector>

#include "frota/base/time.h"
#include "frota/model/position.h"

namespace frota::codec {

/// A FeedMessage (gtfs_realtime_version 2.0, FULL_DATASET, header timestamp
/// `header_time` in whole seconds) with one VehiclePosition entity per position, in the
/// given order. Entity id "FEED/VEHICLE"; vehicle.id the vehicle id; the trip descriptor
/// carries the route, and the trip id, start date and time and direction when known;
/// latitude and longitude; bearing and speed (m/s) when reported; timestamp the event
/// time in whole seconds. Decoding the bytes with DecodeResponse gives the same feed's
/// positions back (times to the second, coordinates to float precision).
std::string EncodeVehiclePositions(const std::vector<model::Position>& positions,
                                   base::Timestamp header_time);

}  // namespace frota::codec
