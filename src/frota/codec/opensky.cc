// OpenSky Network `states/all` responses → aircraft positions (semantics.md section 8).
#include <algorithm>
#include <array>
#include <cmath>

#include "frota/codec/decode_internal.h"
#include "frota/codec/json_internal.h"

namespace frota::codec::internal {

namespace {

using model::RejectReason;
namespace ondemand = simdjson::ondemand;

// State vector positions (section 8); 17 fields, 18 with extended=1.
constexpr std::size_t kIcao24 = 0;
constexpr std::size_t kCallsign = 1;
constexpr std::size_t kOriginCountry = 2;
constexpr std::size_t kTimePosition = 3;
constexpr std::size_t kLastContact = 4;
constexpr std::size_t kLongitude = 5;
constexpr std::size_t kLatitude = 6;
constexpr std::size_t kBaroAltitude = 7;
constexpr std::size_t kOnGround = 8;
constexpr std::size_t kVelocity = 9;
constexpr std::size_t kTrueTrack = 10;
constexpr std::size_t kGeoAltitude = 13;
constexpr std::size_t kMinStateFields = 17;
constexpr std::size_t kReadFields = 14;  // fields past geo_altitude are not read

constexpr std::array<std::string_view, kReadFields> kFieldNames = {
    "icao24",     "callsign",      "origin_country", "time_position", "last_contact",
    "longitude",  "latitude",      "baro_altitude",  "on_ground",     "velocity",
    "true_track", "vertical_rate", "sensors",        "geo_altitude"};

struct StateVector {
  std::array<Field, kReadFields> fields;
  std::size_t size = 0;  // how many fields the array had
};

// A JSON number that is an integer (written as one, or integral and below 9e15 as a
// double); nullopt for anything else.
std::optional<std::int64_t> IntegerSeconds(const Field& field) {
  if (!field.present || field.quoted || field.container) {
    return std::nullopt;
  }
  if (const auto integer = ParseInteger(field.raw)) {
    return integer;
  }
  const auto real = ParseDecimal(field.raw);
  if (real && *real == std::floor(*real) && std::fabs(*real) < 9e15) {
    return static_cast<std::int64_t>(*real);
  }
  return std::nullopt;
}

// Ingest times are patched in once the whole response is read: `time` may come after
// `states` in the object.
void EmitState(const StateVector& state, RecordSink& sink) {
  const auto& f = state.fields;
  const std::string_view vehicle_id =
      f[kIcao24].present && !f[kIcao24].container ? Trim(f[kIcao24].raw) : std::string_view();
  DetailWriter detail;
  std::optional<RejectReason> reason;

  // time_position, else last_contact; a present but unreadable time_position is an
  // error of its own, not a reason to fall back.
  const Field& time_field = f[kTimePosition].HasValue() ? f[kTimePosition] : f[kLastContact];
  const std::string_view time_name =
      f[kTimePosition].HasValue() ? kFieldNames[kTimePosition] : kFieldNames[kLastContact];
  base::Timestamp event_time;
  const auto time_reason = ReadEpoch(time_field, EpochUnit::kSeconds, event_time);

  double lat = 0;
  double lon = 0;
  const Number baro_altitude = ReadNumber(f[kBaroAltitude]);
  const Number geo_altitude = ReadNumber(f[kGeoAltitude]);
  const Number velocity = ReadNumber(f[kVelocity]);
  const Number true_track = ReadNumber(f[kTrueTrack]);
  const Field& on_ground = f[kOnGround];
  const bool on_ground_valid =
      !on_ground.HasValue() || on_ground.raw == "true" || on_ground.raw == "false";

  if (state.size < kMinStateFields) {
    reason = RejectReason::kStateVectorTooShort;
    detail.AddNote(fmt::format("{} fields, expected at least {}", state.size, kMinStateFields));
  } else if (vehicle_id.empty()) {
    reason = RejectReason::kMissingVehicleId;
    detail.Add(kFieldNames[kIcao24], f[kIcao24]);
  } else if ((reason = ReadCoordinates(kFieldNames[kLatitude], f[kLatitude],
                                       kFieldNames[kLongitude], f[kLongitude], lat, lon, detail))) {
  } else if (time_reason) {
    reason = time_reason;
    if (time_reason == RejectReason::kMissingTimestamp) {
      detail.Add(kFieldNames[kTimePosition], f[kTimePosition])
          .Add(kFieldNames[kLastContact], f[kLastContact]);
    } else {
      detail.Add(time_name, time_field);
    }
  } else {
    for (const std::size_t index : {kBaroAltitude, kVelocity, kTrueTrack, kGeoAltitude}) {
      if (ReadNumber(f[index]).state == NumberState::kInvalid) {
        reason = RejectReason::kMalformedRecord;
        detail.Add(kFieldNames[index], f[index]);
      }
    }
    if (!on_ground_valid) {
      reason = RejectReason::kMalformedRecord;
      detail.Add(kFieldNames[kOnGround], on_ground);
    }
  }
  if (reason) {
    sink.AddRejection(*reason, vehicle_id,
                      time_reason ? std::nullopt : std::optional<base::Timestamp>(event_time),
                      std::nullopt, detail.Take());
    return;
  }
  model::Position& position = sink.AddPosition();
  position.vehicle_id = vehicle_id;
  if (f[kCallsign].present && !f[kCallsign].container) {
    position.route_id = Trim(f[kCallsign].raw);  // blank callsigns become empty
  }
  position.lat = lat;
  position.lon = lon;
  position.event_time = event_time;
  if (baro_altitude.state == NumberState::kOk) {
    position.altitude_m = static_cast<float>(baro_altitude.value);
  } else if (geo_altitude.state == NumberState::kOk) {
    position.altitude_m = static_cast<float>(geo_altitude.value);
  }
  if (on_ground.HasValue()) {
    position.on_ground = on_ground.raw == "true" ? 1 : 0;
  }
  if (velocity.state == NumberState::kOk) {
    position.reported_speed_kmh = static_cast<float>(velocity.value * 3.6);
  }
  if (true_track.state == NumberState::kOk) {
    position.bearing_deg = static_cast<float>(true_track.value);
  }
  // As the silver layer reads them (aircraft_state.cc): the string as sent, and an
  // integer (or an integral number) of seconds; anything else is no value.
  const Field& country = f[kOriginCountry];
  if (country.present && country.quoted && !country.container) {
    position.origin_country = country.raw;
    position.has_origin_country = true;  // blank ("") included: the feed sent it so
  }
  if (const auto contact = IntegerSeconds(f[kLastContact])) {
    position.last_contact = *contact;
  }
}

simdjson::error_code DecodeStates(ondemand::array states, RecordSink& sink) {
  for (auto element_result : states) {
    ondemand::value element;
    if (const auto error = element_result.get(element)) {
      return error;
    }
    ondemand::json_type type{};
    if (const auto error = element.type().get(type)) {
      return error;
    }
    if (type != ondemand::json_type::array) {
      DetailWriter detail;
      detail.AddNote(fmt::format("state vector is {}, not an array", JsonTypeName(type)));
      sink.AddRejection(RejectReason::kMalformedRecord, {}, std::nullopt, std::nullopt,
                        detail.Take());
      continue;
    }
    ondemand::array vector;
    if (const auto error = element.get_array().get(vector)) {
      return error;
    }
    StateVector state;
    for (auto value_result : vector) {
      ondemand::value value;
      if (const auto error = value_result.get(value)) {
        return error;
      }
      if (state.size < kReadFields) {
        if (const auto error = ReadField(value, state.fields[state.size])) {
          return error;
        }
      }
      ++state.size;
    }
    EmitState(state, sink);
  }
  return simdjson::SUCCESS;
}

simdjson::error_code DecodeRoot(ondemand::document& doc, RecordSink& sink, Field& time,
                                bool& found_key, bool& states_not_array) {
  ondemand::object root;
  if (const auto error = doc.get_object().get(root)) {
    return error;
  }
  for (auto field_result : root) {
    ondemand::field field;
    std::string_view key;
    if (const auto error = std::move(field_result).get(field)) {
      return error;
    }
    if (const auto error = ReadKey(field, key)) {
      return error;
    }
    if (KeyIs(key, "time")) {
      found_key = true;
      if (const auto error = ReadField(field.value(), time)) {
        return error;
      }
    } else if (KeyIs(key, "states")) {
      found_key = true;
      ondemand::value states = field.value();
      ondemand::json_type type{};
      if (const auto error = states.type().get(type)) {
        return error;
      }
      if (type == ondemand::json_type::null) {
        continue;  // no aircraft in the box: not an error
      }
      if (type != ondemand::json_type::array) {
        states_not_array = true;
        continue;
      }
      ondemand::array array;
      if (const auto error = states.get_array().get(array)) {
        return error;
      }
      if (const auto error = DecodeStates(array, sink)) {
        return error;
      }
    }
  }
  return simdjson::SUCCESS;
}

}  // namespace

base::Result<ResponseInfo> DecodeOpenSky(std::string_view bytes, const DecodeOptions& options,
                                         DecodedBatch& out) {
  constexpr std::string_view kWhat = "OpenSky states response (a JSON object with \"states\")";
  const std::size_t positions_before = out.positions.size();
  const std::size_t rejections_before = out.rejections.size();
  RecordSink sink(Format::kOpenSky, options, out);
  ondemand::document doc;
  Field time;
  bool found_key = false;
  bool states_not_array = false;
  simdjson::error_code error = JsonScratch::ForThisThread().Iterate(bytes, doc);
  if (!error) {
    error = DecodeRoot(doc, sink, time, found_key, states_not_array);
  }
  if (!error && HasTrailingContent(doc)) {
    error = simdjson::TAPE_ERROR;
  }
  if (error) {
    sink.Rollback();
    return base::InvalidInput("not an {}: invalid JSON ({})", kWhat,
                              simdjson::error_message(error));
  }
  if (!found_key) {
    return base::InvalidInput("not an {}: neither \"time\" nor \"states\"", kWhat);
  }
  if (states_not_array) {
    sink.Rollback();
    return base::InvalidInput("not an {}: \"states\" is neither an array nor null", kWhat);
  }

  ResponseInfo info;
  base::Timestamp response_time;
  if (time.HasValue() && !ReadEpoch(time, EpochUnit::kSeconds, response_time)) {
    info.header_time = response_time;
  }
  // The collector's clock, else the response's `time`, else its newest state.
  std::optional<base::Timestamp> ingest_time =
      options.ingest_time ? options.ingest_time : info.header_time;
  if (!ingest_time) {
    for (std::size_t i = positions_before; i < out.positions.size(); ++i) {
      ingest_time = ingest_time ? std::max(*ingest_time, out.positions[i].event_time)
                                : out.positions[i].event_time;
    }
  }
  for (std::size_t i = positions_before; i < out.positions.size(); ++i) {
    out.positions[i].ingest_time = *ingest_time;
  }
  for (std::size_t i = rejections_before; i < out.rejections.size(); ++i) {
    out.rejections[i].ingest_time = ingest_time;
  }
  info.records = sink.records();
  return info;
}

}  // namespace frota::codec::internal
