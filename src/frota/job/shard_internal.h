// Helpers shared by the shard (shard.cc) and its snapshot format (shard_snapshot.cc).
#pragma once

#include <cstdint>

#include "frota/base/time.h"
#include "frota/job/shard.h"

namespace frota::job::shard_internal {

inline std::int64_t Micros(Timestamp t) { return base::ToUnixMicros(t); }

// The vehicle's current trip as an open trip: its last position is the vehicle's.
inline OpenTrip CurrentTrip(const VehicleState& state) {
  OpenTrip trip;
  static_cast<TripStart&>(trip) = state.trips.current();
  trip.last_time = state.last_time;
  trip.last_lat = state.last_lat;
  trip.last_lon = state.last_lon;
  return trip;
}

// Visits a vehicle's open trips in the order they opened, each with its last position:
// f(const OpenTrip&).
template <typename F>
void ForEachTripInOpenOrder(const VehicleState& state, F&& f) {
  const OpenTrips& trips = state.trips;
  bool current_done = !trips.has_current();
  for (std::size_t i = 0; i < trips.other_count(); ++i) {
    if (!current_done && trips.current().first_time < trips.other(i).first_time) {
      f(CurrentTrip(state));
      current_done = true;
    }
    f(trips.other(i));
  }
  if (!current_done) {
    f(CurrentTrip(state));
  }
}

}  // namespace frota::job::shard_internal
