// A position as the engine holds it: the Position record with its strings interned.
#pragma once

#include <cstdint>

#include "frota/base/time.h"
#include "frota/model/mode.h"
#include "frota/model/position.h"
#include "frota/model/source.h"
#include "frota/model/string_dictionary.h"

namespace frota::model {

/// Position (semantics.md section 1) with every string replaced by its id in a
/// StringDictionary: 104 bytes instead of ~300, moved and compared cheaply. The
/// dictionary that issued the ids is needed to read the strings back.
struct PositionRecord {
  using Id = StringDictionary::Id;
  base::Timestamp event_time;
  base::Timestamp ingest_time;
  std::int64_t last_contact = kNoLastContact;  // aircraft (position.h)
  double lat = 0;
  double lon = 0;
  SourceRef source;
  float reported_speed_kmh = 0;
  float bearing_deg = 0;
  float altitude_m = 0;
  Id feed_id = 0;
  Id vehicle_id = 0;
  Id route_id = 0;
  Id trip_id = 0;
  Id trip_start_date = 0;
  Id trip_start_time = 0;
  Id origin_country = 0;  // aircraft; StringDictionary::kEmpty when none or blank
  std::int8_t direction_id = -1;
  std::int8_t on_ground = -1;
  Mode mode = Mode::kOther;
  bool event_time_from_header = false;
  bool has_origin_country = false;  // in what was padding: still 104 bytes
};

static_assert(sizeof(PositionRecord) == 104, "the record's size, as its comment says");

/// HasAircraftFields (position.h) of the interned record.
inline bool HasAircraftFields(const PositionRecord& r) {
  return r.mode == Mode::kAircraft || r.has_origin_country || r.last_contact != kNoLastContact;
}

/// Interns `position`'s strings.
PositionRecord InternPosition(const Position& position, StringDictionary& strings);
/// The Position back, strings copied out of the dictionary.
Position MaterializePosition(const PositionRecord& record, const StringDictionary& strings);

}  // namespace frota::model
