// Every field of OpenSky's state vectors, typed, for the silver layer (semantics.md section 8).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"

namespace frota::codec {

/// One element of a `states/all` response's `states` array, every field as OpenSky
/// documents it (docs/state-vectors.rst): units are the API's (metres, m/s, degrees,
/// Unix seconds). A field that is null, absent (a short vector) or not of its documented
/// type is nullopt; `raw` keeps the element as received (minified JSON), so a reader can
/// always see what the feed said.
struct AircraftState {
  std::string raw;
  std::size_t fields = 0;  // length of the array; 0 when the element is not an array
  std::optional<std::string> icao24;
  std::optional<std::string> callsign;  // trimmed; blank is nullopt
  std::optional<std::string> origin_country;
  std::optional<std::int64_t> time_position;
  std::optional<std::int64_t> last_contact;
  std::optional<double> longitude;
  std::optional<double> latitude;
  std::optional<double> barometric_altitude_m;
  std::optional<bool> on_ground;
  std::optional<double> velocity_mps;
  std::optional<double> true_track_deg;
  std::optional<double> vertical_rate_mps;
  std::optional<std::vector<std::int64_t>> sensors;
  std::optional<double> geo_altitude_m;
  std::optional<std::string> squawk;
  std::optional<bool> spi;
  std::optional<std::int32_t> position_source;
  std::optional<std::int32_t> category;  // only in responses with 18 fields (extended=1)
};

/// The `states` of one OpenSky response in array order: element i is the record of
/// ordinal i that DecodeResponse(kOpenSky, ...) produced (a position or a rejection),
/// so `offset - first_offset` finds a record's state. `"states": null` gives none; bytes
/// that are not an OpenSky response are an error.
base::Result<std::vector<AircraftState>> DecodeAircraftStates(std::string_view bytes);

}  // namespace frota::codec
