// The position record: one observation of one vehicle (semantics.md section 1).
#pragma once

#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/time.h"
#include "frota/model/mode.h"
#include "frota/model/source.h"

namespace frota::model {

/// Position::last_contact when the feed gave none (every feed but OpenSky).
inline constexpr std::int64_t kNoLastContact = INT64_MIN;

/// One observation of one vehicle, decoded from any feed. Plain data.
///
/// Key: (feed_id, vehicle_id). Optional numbers are NaN when absent; optional
/// strings are empty; direction_id and on_ground are -1 when absent, last_contact is
/// kNoLastContact; origin_country is present (even blank, as a feed may send it) only
/// with has_origin_country.
struct Position {
  // Every member has its initializer. Provided (not defaulted) so that value
  // initialisation, as vector::emplace_back() does, does not first zero all ~260 bytes
  // (about 2 % of the CSV decoder's time).
  Position() {}  // NOLINT(modernize-use-equals-default)

  std::string feed_id;
  std::string vehicle_id;
  std::string route_id;  // GTFS-RT route_id; Rio `linha`/`servico`; OpenSky callsign
  std::string trip_id;
  std::string trip_start_date;  // YYYYMMDD as the feed wrote it (the Rio archive: `data`)
  std::string trip_start_time;  // HH:MM:SS
  std::int8_t direction_id = -1;
  Mode mode = Mode::kOther;
  bool event_time_from_header = false;  // GTFS-RT vehicle without its own timestamp
  double lat = 0;
  double lon = 0;
  float reported_speed_kmh = NAN;
  float bearing_deg = NAN;
  float altitude_m = NAN;      // aircraft: barometric, else geometric altitude
  std::int8_t on_ground = -1;  // aircraft: 1 on ground, 0 airborne
  base::Timestamp event_time;
  base::Timestamp ingest_time;
  SourceRef source;
  std::string origin_country;                  // aircraft: OpenSky's origin_country
  bool has_origin_country = false;             // the feed sent one ("" is blank, not absent)
  std::int64_t last_contact = kNoLastContact;  // aircraft: OpenSky's Unix seconds
};

/// A Position whose texts are borrowed: views into a decoder's buffer, valid until it
/// decodes on. What a reader that interns as it decodes (model::RecordInterner) takes, so
/// that no text is copied into a Position only to be looked up and dropped.
struct PositionView {
  std::string_view feed_id;
  std::string_view vehicle_id;
  std::string_view route_id;
  std::string_view trip_id;
  std::string_view trip_start_date;
  std::string_view trip_start_time;
  std::int8_t direction_id = -1;
  Mode mode = Mode::kOther;
  bool event_time_from_header = false;
  double lat = 0;
  double lon = 0;
  float reported_speed_kmh = NAN;
  float bearing_deg = NAN;
  float altitude_m = NAN;
  std::int8_t on_ground = -1;
  base::Timestamp event_time;
  base::Timestamp ingest_time;
  SourceRef source;
  std::string_view origin_country;
  bool has_origin_country = false;
  std::int64_t last_contact = kNoLastContact;
};

/// Copies what a Position, a PositionView and a PositionRecord (position_record.h) hold
/// alike, all but the texts: direction, mode, flags, coordinates and kinematics, times,
/// provenance and the aircraft's last contact. Each of them converts to another with this
/// and its own texts.
template <typename From, typename To>
void CopyNonTextFields(const From& from, To& to) {
  to.direction_id = from.direction_id;
  to.mode = from.mode;
  to.event_time_from_header = from.event_time_from_header;
  to.lat = from.lat;
  to.lon = from.lon;
  to.reported_speed_kmh = from.reported_speed_kmh;
  to.bearing_deg = from.bearing_deg;
  to.altitude_m = from.altitude_m;
  to.on_ground = from.on_ground;
  to.event_time = from.event_time;
  to.ingest_time = from.ingest_time;
  to.source = from.source;
  to.has_origin_country = from.has_origin_country;
  to.last_contact = from.last_contact;
}

/// Whether a position has a row in `aircraft_positions` (docs/tables.md): an aircraft's,
/// or any position with an origin country or a last contact.
inline bool HasAircraftFields(const Position& p) {
  return p.mode == Mode::kAircraft || p.has_origin_country || p.last_contact != kNoLastContact;
}

/// `position`'s fields, its texts borrowed.
PositionView ViewOf(const Position& position);
/// The Position of `view`, its texts copied, appended to `out`.
void AppendPosition(const PositionView& view, std::vector<Position>& out);

}  // namespace frota::model
