#include "frota/transport/payload.h"

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

#include "frota/base/bytes.h"
#include "frota/base/time.h"

namespace frota::transport {

namespace {

// Wire values are fixed here, never taken from enum order, so that adding a mode or a
// reason to the model cannot silently renumber what other producers already wrote.
enum class Kind : std::uint8_t { kPosition = 1, kRejection = 2, kEndOfInput = 3, kPoll = 4 };

constexpr std::array<std::pair<model::Mode, std::uint8_t>, 6> kModeWire = {{
    {model::Mode::kBus, 0},
    {model::Mode::kBrt, 1},
    {model::Mode::kRail, 2},
    {model::Mode::kFerry, 3},
    {model::Mode::kAircraft, 4},
    {model::Mode::kOther, 5},
}};

std::uint8_t ModeToWire(model::Mode mode) {
  for (const auto& [m, wire] : kModeWire) {
    if (m == mode) {
      return wire;
    }
  }
  return 5;
}

base::Result<model::Mode> ModeFromWire(std::uint8_t wire) {
  for (const auto& [m, w] : kModeWire) {
    if (w == wire) {
      return m;
    }
  }
  return base::InvalidInput("unknown mode {}", wire);
}

// Position flags.
constexpr std::uint8_t kFromHeader = 1U << 0;
constexpr std::uint8_t kHasSpeed = 1U << 1;
constexpr std::uint8_t kHasBearing = 1U << 2;
constexpr std::uint8_t kHasAltitude = 1U << 3;
constexpr std::uint8_t kHasDirection = 1U << 4;
constexpr std::uint8_t kHasOnGround = 1U << 5;
constexpr std::uint8_t kOnGround = 1U << 6;
// An aircraft's origin country and last contact follow the record (docs/scale-out.md,
// "Payload"): a bit no message written before them sets, so those read as they did.
constexpr std::uint8_t kHasAircraft = 1U << 7;
constexpr std::uint8_t kPositionFlags = 0xFF;
// The aircraft trailer's flags.
constexpr std::uint8_t kHasLastContact = 1U << 0;
constexpr std::uint8_t kHasOriginCountry = 1U << 1;
// Rejection flags.
constexpr std::uint8_t kHasEventTime = 1U << 0;
constexpr std::uint8_t kHasIngestTime = 1U << 1;
// Poll flags.
constexpr std::uint8_t kRepeat = 1U << 0;
constexpr std::uint8_t kHasRecords = 1U << 1;

void Header(base::ByteWriter& w, Kind kind) {
  w.U8(kPayloadMagic);
  w.U8(kPayloadVersion);
  w.U8(static_cast<std::uint8_t>(kind));
}

std::int64_t Us(base::Timestamp t) { return base::ToUnixMicros(t); }

// JSON helpers: optional numbers are null, times are ISO 8601 UTC with microseconds when
// they have a fraction (exact both ways).
nlohmann::json OptionalFloat(float v) {
  return std::isnan(v) ? nlohmann::json() : nlohmann::json(static_cast<double>(v));
}

base::Result<const nlohmann::json*> Field(const nlohmann::json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end()) {
    return base::InvalidInput("JSON payload has no \"{}\"", name);
  }
  return &*it;
}

base::Result<std::string> TextField(const nlohmann::json& j, const char* name) {
  FROTA_ASSIGN_OR_RETURN(const auto* v, Field(j, name));
  if (!v->is_string()) {
    return base::InvalidInput("JSON payload field \"{}\" is not a string", name);
  }
  return v->get<std::string>();
}

base::Result<std::int64_t> IntField(const nlohmann::json& j, const char* name) {
  FROTA_ASSIGN_OR_RETURN(const auto* v, Field(j, name));
  if (!v->is_number_integer()) {
    return base::InvalidInput("JSON payload field \"{}\" is not an integer", name);
  }
  return v->get<std::int64_t>();
}

base::Result<double> DoubleField(const nlohmann::json& j, const char* name) {
  FROTA_ASSIGN_OR_RETURN(const auto* v, Field(j, name));
  if (!v->is_number()) {
    return base::InvalidInput("JSON payload field \"{}\" is not a number", name);
  }
  return v->get<double>();
}

base::Result<float> OptionalFloatField(const nlohmann::json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end() || it->is_null()) {
    return NAN;
  }
  if (!it->is_number()) {
    return base::InvalidInput("JSON payload field \"{}\" is not a number", name);
  }
  return static_cast<float>(it->get<double>());
}

base::Result<std::optional<base::Timestamp>> TimeField(const nlohmann::json& j, const char* name,
                                                       bool required) {
  const auto it = j.find(name);
  if (it == j.end() || it->is_null()) {
    if (required) {
      return base::InvalidInput("JSON payload has no \"{}\"", name);
    }
    return std::optional<base::Timestamp>();
  }
  if (!it->is_string()) {
    return base::InvalidInput("JSON payload field \"{}\" is not a time", name);
  }
  const auto t = base::ParseIso8601(it->get<std::string>());
  if (!t) {
    return base::InvalidInput("JSON payload field \"{}\" is not an ISO 8601 time", name);
  }
  return std::optional<base::Timestamp>(*t);
}

// Feed strings need not be UTF-8 (ids and details quote raw bytes): JSON replaces what is
// not, where the binary form keeps every byte.
std::string Dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

nlohmann::json OptionalTime(const std::optional<base::Timestamp>& t) {
  return t ? nlohmann::json(base::FormatIso8601(*t)) : nlohmann::json();
}

// ---- binary ---------------------------------------------------------------------------

base::Result<PayloadRecord> DecodeBinaryPosition(base::ByteReader& r,
                                                 model::SourceCatalog& catalog) {
  model::Position p;
  for (std::string* s : {&p.feed_id, &p.vehicle_id, &p.route_id, &p.trip_id, &p.trip_start_date,
                         &p.trip_start_time}) {
    FROTA_ASSIGN_OR_RETURN(const auto text, r.String());
    s->assign(text);
  }
  FROTA_ASSIGN_OR_RETURN(const auto mode, r.U8());
  FROTA_ASSIGN_OR_RETURN(p.mode, ModeFromWire(mode));
  FROTA_ASSIGN_OR_RETURN(const auto flags, r.U8());
  if ((flags & ~kPositionFlags) != 0 || ((flags & kOnGround) != 0 && (flags & kHasOnGround) == 0)) {
    return base::InvalidInput("bad position flags {:#04x}", flags);
  }
  p.event_time_from_header = (flags & kFromHeader) != 0;
  if ((flags & kHasDirection) != 0) {
    FROTA_ASSIGN_OR_RETURN(const auto direction, r.U8());
    if (direction > 1) {
      return base::InvalidInput("bad direction_id {}", direction);
    }
    p.direction_id = static_cast<std::int8_t>(direction);
  }
  if ((flags & kHasOnGround) != 0) {
    p.on_ground = (flags & kOnGround) != 0 ? 1 : 0;
  }
  FROTA_ASSIGN_OR_RETURN(p.lat, r.F64());
  FROTA_ASSIGN_OR_RETURN(p.lon, r.F64());
  if ((flags & kHasSpeed) != 0) {
    FROTA_ASSIGN_OR_RETURN(p.reported_speed_kmh, r.F32());
  }
  if ((flags & kHasBearing) != 0) {
    FROTA_ASSIGN_OR_RETURN(p.bearing_deg, r.F32());
  }
  if ((flags & kHasAltitude) != 0) {
    FROTA_ASSIGN_OR_RETURN(p.altitude_m, r.F32());
  }
  FROTA_ASSIGN_OR_RETURN(const auto event_us, r.SignedVarint());
  FROTA_ASSIGN_OR_RETURN(const auto ingest_delta, r.SignedVarint());
  p.event_time = base::FromUnixMicros(event_us);
  p.ingest_time = base::FromUnixMicros(static_cast<std::int64_t>(
      static_cast<std::uint64_t>(event_us) + static_cast<std::uint64_t>(ingest_delta)));
  FROTA_ASSIGN_OR_RETURN(const auto source, r.String());
  FROTA_ASSIGN_OR_RETURN(p.source.offset, r.SignedVarint());
  p.source.source = catalog.Intern(source);
  if ((flags & kHasAircraft) != 0) {
    FROTA_ASSIGN_OR_RETURN(const auto aircraft_flags, r.U8());
    if ((aircraft_flags & ~(kHasLastContact | kHasOriginCountry)) != 0 || aircraft_flags == 0) {
      return base::InvalidInput("bad aircraft flags {:#04x}", aircraft_flags);
    }
    if ((aircraft_flags & kHasOriginCountry) != 0) {
      FROTA_ASSIGN_OR_RETURN(const auto country, r.String());
      p.origin_country.assign(country);
      p.has_origin_country = true;
    }
    if ((aircraft_flags & kHasLastContact) != 0) {
      FROTA_ASSIGN_OR_RETURN(p.last_contact, r.SignedVarint());
      if (p.last_contact == model::kNoLastContact) {
        return base::InvalidInput("bad last_contact");
      }
    }
  }
  return PayloadRecord(std::move(p));
}

base::Result<PayloadRecord> DecodeBinaryRejection(base::ByteReader& r,
                                                  model::SourceCatalog& catalog) {
  model::Rejection j;
  FROTA_ASSIGN_OR_RETURN(const auto reason, r.String());
  const auto parsed = model::ParseRejectReason(reason);
  if (!parsed) {
    return base::InvalidInput("unknown rejection reason \"{}\"", reason);
  }
  j.reason = *parsed;
  FROTA_ASSIGN_OR_RETURN(const auto feed, r.String());
  FROTA_ASSIGN_OR_RETURN(const auto vehicle, r.String());
  j.feed_id.assign(feed);
  j.vehicle_id.assign(vehicle);
  FROTA_ASSIGN_OR_RETURN(const auto flags, r.U8());
  if ((flags & ~(kHasEventTime | kHasIngestTime)) != 0) {
    return base::InvalidInput("bad rejection flags {:#04x}", flags);
  }
  if ((flags & kHasEventTime) != 0) {
    FROTA_ASSIGN_OR_RETURN(const auto us, r.SignedVarint());
    j.event_time = base::FromUnixMicros(us);
  }
  if ((flags & kHasIngestTime) != 0) {
    FROTA_ASSIGN_OR_RETURN(const auto us, r.SignedVarint());
    j.ingest_time = base::FromUnixMicros(us);
  }
  FROTA_ASSIGN_OR_RETURN(const auto source, r.String());
  FROTA_ASSIGN_OR_RETURN(j.source.offset, r.SignedVarint());
  FROTA_ASSIGN_OR_RETURN(const auto detail, r.String());
  j.detail.assign(detail);
  j.source.source = catalog.Intern(source);
  return PayloadRecord(std::move(j));
}

// A poll's attempt counts from 1; an HTTP status has three digits, 0 when none arrived.
base::Status CheckPollNumbers(std::int64_t attempt, std::int64_t status) {
  if (attempt < 1 || attempt > 1'000'000 || status < 0 || status > 999) {
    return base::InvalidInput("bad poll attempt {} or http_status {}", attempt, status);
  }
  return base::Status::Ok();
}

base::Result<PayloadRecord> DecodeBinaryPoll(base::ByteReader& r) {
  model::PollRow p;
  FROTA_ASSIGN_OR_RETURN(const auto feed, r.String());
  p.feed_id.assign(feed);
  FROTA_ASSIGN_OR_RETURN(const auto at, r.SignedVarint());
  p.polled_at = base::FromUnixMicros(at);
  FROTA_ASSIGN_OR_RETURN(const auto attempt, r.SignedVarint());
  FROTA_ASSIGN_OR_RETURN(const auto status, r.SignedVarint());
  FROTA_RETURN_IF_ERROR(CheckPollNumbers(attempt, status));
  p.attempt = static_cast<std::int32_t>(attempt);
  p.http_status = static_cast<std::int32_t>(status);
  FROTA_ASSIGN_OR_RETURN(const auto failure, r.String());
  p.failure.assign(failure);
  FROTA_ASSIGN_OR_RETURN(p.bytes, r.SignedVarint());
  FROTA_ASSIGN_OR_RETURN(p.duration_ms, r.F64());
  if (!std::isfinite(p.duration_ms)) {
    return base::InvalidInput("bad poll duration_ms");
  }
  FROTA_ASSIGN_OR_RETURN(const auto flags, r.U8());
  if ((flags & ~(kRepeat | kHasRecords)) != 0) {
    return base::InvalidInput("bad poll flags {:#04x}", flags);
  }
  p.repeat = (flags & kRepeat) != 0;
  if ((flags & kHasRecords) != 0) {
    FROTA_ASSIGN_OR_RETURN(const auto records, r.SignedVarint());
    p.records = records;
  }
  FROTA_ASSIGN_OR_RETURN(const auto body, r.String());
  FROTA_ASSIGN_OR_RETURN(const auto run_id, r.String());
  p.body.assign(body);
  p.run_id.assign(run_id);
  return PayloadRecord(std::move(p));
}

base::Result<PayloadRecord> DecodeBinary(std::string_view bytes, model::SourceCatalog& catalog) {
  base::ByteReader r(bytes);
  FROTA_ASSIGN_OR_RETURN(const auto magic, r.U8());
  if (magic != kPayloadMagic) {
    return base::InvalidInput("not a frota payload (first byte {:#04x})", magic);
  }
  FROTA_ASSIGN_OR_RETURN(const auto version, r.U8());
  if (version != kPayloadVersion) {
    return base::InvalidInput("payload version {}, this frota reads version {}", version,
                              kPayloadVersion);
  }
  FROTA_ASSIGN_OR_RETURN(const auto kind, r.U8());
  base::Result<PayloadRecord> out = base::InvalidInput("unknown payload kind {}", kind);
  switch (static_cast<Kind>(kind)) {
    case Kind::kPosition:
      out = DecodeBinaryPosition(r, catalog);
      break;
    case Kind::kRejection:
      out = DecodeBinaryRejection(r, catalog);
      break;
    case Kind::kEndOfInput: {
      EndOfInput marker;
      FROTA_ASSIGN_OR_RETURN(const auto run_id, r.String());
      marker.run_id.assign(run_id);
      FROTA_ASSIGN_OR_RETURN(marker.records, r.SignedVarint());
      out = PayloadRecord(std::move(marker));
      break;
    }
    case Kind::kPoll:
      out = DecodeBinaryPoll(r);
      break;
  }
  if (out.ok() && !r.AtEnd()) {
    return base::InvalidInput("{} trailing bytes after the record", r.remaining());
  }
  return out;
}

// ---- JSON -----------------------------------------------------------------------------

base::Result<PayloadRecord> DecodeJsonPosition(const nlohmann::json& j,
                                               model::SourceCatalog& catalog) {
  model::Position p;
  FROTA_ASSIGN_OR_RETURN(p.feed_id, TextField(j, "feed_id"));
  FROTA_ASSIGN_OR_RETURN(p.vehicle_id, TextField(j, "vehicle_id"));
  FROTA_ASSIGN_OR_RETURN(p.route_id, TextField(j, "route_id"));
  FROTA_ASSIGN_OR_RETURN(p.trip_id, TextField(j, "trip_id"));
  FROTA_ASSIGN_OR_RETURN(p.trip_start_date, TextField(j, "trip_start_date"));
  FROTA_ASSIGN_OR_RETURN(p.trip_start_time, TextField(j, "trip_start_time"));
  FROTA_ASSIGN_OR_RETURN(const auto mode_name, TextField(j, "mode"));
  const auto mode = model::ParseMode(mode_name);
  if (!mode) {
    return base::InvalidInput("unknown mode \"{}\"", mode_name);
  }
  p.mode = *mode;
  if (const auto it = j.find("direction_id"); it != j.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > 1) {
      return base::InvalidInput("bad direction_id");
    }
    p.direction_id = static_cast<std::int8_t>(it->get<std::int64_t>());
  }
  if (const auto it = j.find("on_ground"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) {
      return base::InvalidInput("JSON payload field \"on_ground\" is not a boolean");
    }
    p.on_ground = it->get<bool>() ? 1 : 0;
  }
  if (const auto it = j.find("event_time_from_header"); it != j.end()) {
    if (!it->is_boolean()) {
      return base::InvalidInput("JSON payload field \"event_time_from_header\" is not a boolean");
    }
    p.event_time_from_header = it->get<bool>();
  }
  FROTA_ASSIGN_OR_RETURN(p.lat, DoubleField(j, "lat"));
  FROTA_ASSIGN_OR_RETURN(p.lon, DoubleField(j, "lon"));
  FROTA_ASSIGN_OR_RETURN(p.reported_speed_kmh, OptionalFloatField(j, "reported_speed_kmh"));
  FROTA_ASSIGN_OR_RETURN(p.bearing_deg, OptionalFloatField(j, "bearing_deg"));
  FROTA_ASSIGN_OR_RETURN(p.altitude_m, OptionalFloatField(j, "altitude_m"));
  FROTA_ASSIGN_OR_RETURN(const auto event_time, TimeField(j, "event_time", true));
  FROTA_ASSIGN_OR_RETURN(const auto ingest_time, TimeField(j, "ingest_time", true));
  p.event_time = *event_time;
  p.ingest_time = *ingest_time;
  FROTA_ASSIGN_OR_RETURN(const auto source, TextField(j, "source"));
  FROTA_ASSIGN_OR_RETURN(p.source.offset, IntField(j, "offset"));
  p.source.source = catalog.Intern(source);
  // Aircraft only, and absent from messages written before them.
  if (const auto it = j.find("origin_country"); it != j.end() && !it->is_null()) {
    FROTA_ASSIGN_OR_RETURN(p.origin_country, TextField(j, "origin_country"));
    p.has_origin_country = true;
  }
  if (const auto it = j.find("last_contact"); it != j.end() && !it->is_null()) {
    FROTA_ASSIGN_OR_RETURN(p.last_contact, IntField(j, "last_contact"));
    if (p.last_contact == model::kNoLastContact) {
      return base::InvalidInput("bad last_contact");
    }
  }
  return PayloadRecord(std::move(p));
}

base::Result<PayloadRecord> DecodeJsonRejection(const nlohmann::json& j,
                                                model::SourceCatalog& catalog) {
  model::Rejection r;
  FROTA_ASSIGN_OR_RETURN(const auto reason, TextField(j, "reason"));
  const auto parsed = model::ParseRejectReason(reason);
  if (!parsed) {
    return base::InvalidInput("unknown rejection reason \"{}\"", reason);
  }
  r.reason = *parsed;
  FROTA_ASSIGN_OR_RETURN(r.feed_id, TextField(j, "feed_id"));
  FROTA_ASSIGN_OR_RETURN(r.vehicle_id, TextField(j, "vehicle_id"));
  FROTA_ASSIGN_OR_RETURN(r.event_time, TimeField(j, "event_time", false));
  FROTA_ASSIGN_OR_RETURN(r.ingest_time, TimeField(j, "ingest_time", false));
  FROTA_ASSIGN_OR_RETURN(const auto source, TextField(j, "source"));
  FROTA_ASSIGN_OR_RETURN(r.source.offset, IntField(j, "offset"));
  FROTA_ASSIGN_OR_RETURN(r.detail, TextField(j, "detail"));
  r.source.source = catalog.Intern(source);
  return PayloadRecord(std::move(r));
}

base::Result<PayloadRecord> DecodeJson(std::string_view bytes, model::SourceCatalog& catalog) {
  const auto j = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return base::InvalidInput("not a JSON object");
  }
  FROTA_ASSIGN_OR_RETURN(const auto version, IntField(j, "v"));
  if (version != kPayloadVersion) {
    return base::InvalidInput("payload version {}, this frota reads version {}", version,
                              kPayloadVersion);
  }
  FROTA_ASSIGN_OR_RETURN(const auto kind, TextField(j, "kind"));
  if (kind == "position") {
    return DecodeJsonPosition(j, catalog);
  }
  if (kind == "rejection") {
    return DecodeJsonRejection(j, catalog);
  }
  if (kind == "poll") {
    model::PollRow p;
    FROTA_ASSIGN_OR_RETURN(p.feed_id, TextField(j, "feed_id"));
    FROTA_ASSIGN_OR_RETURN(const auto at, TimeField(j, "polled_at", true));
    p.polled_at = *at;
    FROTA_ASSIGN_OR_RETURN(const auto attempt, IntField(j, "attempt"));
    FROTA_ASSIGN_OR_RETURN(const auto status, IntField(j, "http_status"));
    FROTA_RETURN_IF_ERROR(CheckPollNumbers(attempt, status));
    p.attempt = static_cast<std::int32_t>(attempt);
    p.http_status = static_cast<std::int32_t>(status);
    FROTA_ASSIGN_OR_RETURN(p.failure, TextField(j, "failure"));
    FROTA_ASSIGN_OR_RETURN(p.bytes, IntField(j, "bytes"));
    FROTA_ASSIGN_OR_RETURN(p.duration_ms, DoubleField(j, "duration_ms"));
    if (!std::isfinite(p.duration_ms)) {
      return base::InvalidInput("bad poll duration_ms");
    }
    FROTA_ASSIGN_OR_RETURN(const auto* repeat, Field(j, "repeat"));
    if (!repeat->is_boolean()) {
      return base::InvalidInput("JSON payload field \"repeat\" is not a boolean");
    }
    p.repeat = repeat->get<bool>();
    if (const auto it = j.find("records"); it != j.end() && !it->is_null()) {
      FROTA_ASSIGN_OR_RETURN(p.records, IntField(j, "records"));
    }
    FROTA_ASSIGN_OR_RETURN(p.body, TextField(j, "body"));
    FROTA_ASSIGN_OR_RETURN(p.run_id, TextField(j, "run_id"));
    return PayloadRecord(std::move(p));
  }
  if (kind == "end_of_input") {
    EndOfInput marker;
    FROTA_ASSIGN_OR_RETURN(marker.run_id, TextField(j, "run_id"));
    FROTA_ASSIGN_OR_RETURN(marker.records, IntField(j, "records"));
    return PayloadRecord(std::move(marker));
  }
  return base::InvalidInput("unknown payload kind \"{}\"", kind);
}

}  // namespace

void AssignMessageKey(std::string_view feed_id, std::string_view vehicle_id, std::string& out) {
  out.assign(feed_id).append(1, '/').append(vehicle_id);
}

std::string MessageKey(std::string_view feed_id, std::string_view vehicle_id) {
  std::string key;
  AssignMessageKey(feed_id, vehicle_id, key);
  return key;
}

void EncodePosition(const model::Position& p, std::string_view source_name, PayloadFormat format,
                    std::string& out) {
  out.clear();
  if (format == PayloadFormat::kJson) {
    nlohmann::ordered_json j;
    j["v"] = kPayloadVersion;
    j["kind"] = "position";
    j["feed_id"] = p.feed_id;
    j["vehicle_id"] = p.vehicle_id;
    j["mode"] = model::ModeName(p.mode);
    j["route_id"] = p.route_id;
    j["trip_id"] = p.trip_id;
    j["trip_start_date"] = p.trip_start_date;
    j["trip_start_time"] = p.trip_start_time;
    j["direction_id"] = p.direction_id >= 0 ? nlohmann::ordered_json(p.direction_id) : nullptr;
    j["lat"] = p.lat;
    j["lon"] = p.lon;
    j["reported_speed_kmh"] = OptionalFloat(p.reported_speed_kmh);
    j["bearing_deg"] = OptionalFloat(p.bearing_deg);
    j["altitude_m"] = OptionalFloat(p.altitude_m);
    j["on_ground"] = p.on_ground >= 0 ? nlohmann::ordered_json(p.on_ground == 1) : nullptr;
    j["event_time"] = base::FormatIso8601(p.event_time);
    j["event_time_from_header"] = p.event_time_from_header;
    j["ingest_time"] = base::FormatIso8601(p.ingest_time);
    j["source"] = source_name;
    j["offset"] = p.source.offset;
    if (p.has_origin_country) {
      j["origin_country"] = p.origin_country;
    }
    if (p.last_contact != model::kNoLastContact) {
      j["last_contact"] = p.last_contact;
    }
    out = Dump(j);
    return;
  }
  base::ByteWriter w(std::move(out));  // reuses out's capacity
  Header(w, Kind::kPosition);
  for (const std::string* s : {&p.feed_id, &p.vehicle_id, &p.route_id, &p.trip_id,
                               &p.trip_start_date, &p.trip_start_time}) {
    w.String(*s);
  }
  w.U8(ModeToWire(p.mode));
  std::uint8_t flags = 0;
  flags |= p.event_time_from_header ? kFromHeader : 0;
  flags |= !std::isnan(p.reported_speed_kmh) ? kHasSpeed : 0;
  flags |= !std::isnan(p.bearing_deg) ? kHasBearing : 0;
  flags |= !std::isnan(p.altitude_m) ? kHasAltitude : 0;
  flags |= p.direction_id >= 0 ? kHasDirection : 0;
  flags |= p.on_ground >= 0 ? kHasOnGround : 0;
  flags |= p.on_ground == 1 ? kOnGround : 0;
  const bool contact = p.last_contact != model::kNoLastContact;
  const bool aircraft = p.has_origin_country || contact;
  flags |= aircraft ? kHasAircraft : 0;
  w.U8(flags);
  if (p.direction_id >= 0) {
    w.U8(static_cast<std::uint8_t>(p.direction_id));
  }
  w.F64(p.lat);
  w.F64(p.lon);
  if (!std::isnan(p.reported_speed_kmh)) {
    w.F32(p.reported_speed_kmh);
  }
  if (!std::isnan(p.bearing_deg)) {
    w.F32(p.bearing_deg);
  }
  if (!std::isnan(p.altitude_m)) {
    w.F32(p.altitude_m);
  }
  w.SignedVarint(Us(p.event_time));
  // Wrapping arithmetic: any two instants give a delta that adds back exactly.
  w.SignedVarint(static_cast<std::int64_t>(static_cast<std::uint64_t>(Us(p.ingest_time)) -
                                           static_cast<std::uint64_t>(Us(p.event_time))));
  w.String(source_name);
  w.SignedVarint(p.source.offset);
  if (aircraft) {
    w.U8((contact ? kHasLastContact : 0) | (p.has_origin_country ? kHasOriginCountry : 0));
    if (p.has_origin_country) {
      w.String(p.origin_country);
    }
    if (contact) {
      w.SignedVarint(p.last_contact);
    }
  }
  out = w.Take();
}

void EncodeRejection(const model::Rejection& r, std::string_view source_name, PayloadFormat format,
                     std::string& out) {
  out.clear();
  if (format == PayloadFormat::kJson) {
    nlohmann::ordered_json j;
    j["v"] = kPayloadVersion;
    j["kind"] = "rejection";
    j["reason"] = model::RejectReasonName(r.reason);
    j["feed_id"] = r.feed_id;
    j["vehicle_id"] = r.vehicle_id;
    j["event_time"] = OptionalTime(r.event_time);
    j["ingest_time"] = OptionalTime(r.ingest_time);
    j["source"] = source_name;
    j["offset"] = r.source.offset;
    j["detail"] = r.detail;
    out = Dump(j);
    return;
  }
  base::ByteWriter w(std::move(out));  // reuses out's capacity
  Header(w, Kind::kRejection);
  w.String(model::RejectReasonName(r.reason));
  w.String(r.feed_id);
  w.String(r.vehicle_id);
  w.U8((r.event_time ? kHasEventTime : 0) | (r.ingest_time ? kHasIngestTime : 0));
  if (r.event_time) {
    w.SignedVarint(Us(*r.event_time));
  }
  if (r.ingest_time) {
    w.SignedVarint(Us(*r.ingest_time));
  }
  w.String(source_name);
  w.SignedVarint(r.source.offset);
  w.String(r.detail);
  out = w.Take();
}

void EncodeEndOfInput(const EndOfInput& marker, PayloadFormat format, std::string& out) {
  out.clear();
  if (format == PayloadFormat::kJson) {
    nlohmann::ordered_json j;
    j["v"] = kPayloadVersion;
    j["kind"] = "end_of_input";
    j["run_id"] = marker.run_id;
    j["records"] = marker.records;
    out = Dump(j);
    return;
  }
  base::ByteWriter w(std::move(out));  // reuses out's capacity
  Header(w, Kind::kEndOfInput);
  w.String(marker.run_id);
  w.SignedVarint(marker.records);
  out = w.Take();
}

void EncodePoll(const model::PollRow& p, PayloadFormat format, std::string& out) {
  out.clear();
  if (format == PayloadFormat::kJson) {
    nlohmann::ordered_json j;
    j["v"] = kPayloadVersion;
    j["kind"] = "poll";
    j["feed_id"] = p.feed_id;
    j["polled_at"] = base::FormatIso8601(p.polled_at);
    j["attempt"] = p.attempt;
    j["http_status"] = p.http_status;
    j["failure"] = p.failure;
    j["bytes"] = p.bytes;
    j["duration_ms"] = p.duration_ms;
    j["repeat"] = p.repeat;
    j["records"] = p.records ? nlohmann::ordered_json(*p.records) : nlohmann::ordered_json();
    j["body"] = p.body;
    j["run_id"] = p.run_id;
    out = Dump(j);
    return;
  }
  base::ByteWriter w(std::move(out));  // reuses out's capacity
  Header(w, Kind::kPoll);
  w.String(p.feed_id);
  w.SignedVarint(Us(p.polled_at));
  w.SignedVarint(p.attempt);
  w.SignedVarint(p.http_status);
  w.String(p.failure);
  w.SignedVarint(p.bytes);
  w.F64(p.duration_ms);
  w.U8((p.repeat ? kRepeat : 0) | (p.records ? kHasRecords : 0));
  if (p.records) {
    w.SignedVarint(*p.records);
  }
  w.String(p.body);
  w.String(p.run_id);
  out = w.Take();
}

base::Result<PayloadRecord> DecodePayload(std::string_view bytes, model::SourceCatalog& catalog) {
  if (bytes.empty()) {
    return base::InvalidInput("empty payload");
  }
  if (static_cast<std::uint8_t>(bytes[0]) == kPayloadMagic) {
    return DecodeBinary(bytes, catalog);
  }
  if (bytes[0] == '{') {
    return DecodeJson(bytes, catalog);
  }
  return base::InvalidInput("not a frota payload (first byte {:#04x})",
                            static_cast<std::uint8_t>(bytes[0]));
}

}  // namespace frota::transport
