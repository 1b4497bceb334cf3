#include <algorithm>
#include <cassert>
#include <iterator>

#include "frota/base/time.h"
#include "frota/model/mode.h"
#include "frota/model/position_record.h"
#include "frota/model/rejection.h"
#include "frota/model/rejection_record.h"
#include "frota/model/rows.h"
#include "frota/model/source.h"

namespace frota::model {

std::string_view ModeName(Mode mode) {
  switch (mode) {
    case Mode::kBus:
      return "bus";
    case Mode::kBrt:
      return "brt";
    case Mode::kRail:
      return "rail";
    case Mode::kFerry:
      return "ferry";
    case Mode::kAircraft:
      return "aircraft";
    case Mode::kOther:
      return "other";
  }
  return "other";
}

std::optional<Mode> ParseMode(std::string_view name) {
  for (const Mode mode : kAllModes) {
    if (ModeName(mode) == name) {
      return mode;
    }
  }
  return std::nullopt;
}

Mode ModeFromGtfsRouteType(int route_type) {
  // Basic route types (GTFS reference) and the extended ranges (Google's HVT types).
  switch (route_type) {
    case 0:
    case 1:
    case 2:
    case 5:
    case 7:
    case 12:
      return Mode::kRail;
    case 3:
    case 11:
      return Mode::kBus;
    case 4:
      return Mode::kFerry;
    default:
      break;
  }
  // Extended types: 1xx railway, 2xx coach, 4xx urban railway, 7xx-8xx bus and
  // trolleybus, 9xx tram, 10xx water transport.
  if ((route_type >= 100 && route_type < 200) || (route_type >= 400 && route_type < 500) ||
      (route_type >= 900 && route_type < 1000)) {
    return Mode::kRail;
  }
  if ((route_type >= 200 && route_type < 300) || (route_type >= 700 && route_type < 900)) {
    return Mode::kBus;
  }
  if (route_type >= 1000 && route_type < 1100) {
    return Mode::kFerry;
  }
  return Mode::kOther;
}

std::string_view RejectReasonName(RejectReason reason) {
  switch (reason) {
    case RejectReason::kMissingVehicleId:
      return "missing_vehicle_id";
    case RejectReason::kMissingCoordinates:
      return "missing_coordinates";
    case RejectReason::kLatitudeOutOfRange:
      return "latitude_out_of_range";
    case RejectReason::kLongitudeOutOfRange:
      return "longitude_out_of_range";
    case RejectReason::kNullIsland:
      return "null_island";
    case RejectReason::kMissingTimestamp:
      return "missing_timestamp";
    case RejectReason::kTimestampInMilliseconds:
      return "timestamp_in_milliseconds";
    case RejectReason::kStateVectorTooShort:
      return "state_vector_too_short";
    case RejectReason::kMalformedRecord:
      return "malformed_record";
    case RejectReason::kBadPayload:
      return "bad_payload";
    case RejectReason::kFuture:
      return "future";
    case RejectReason::kStale:
      return "stale";
    case RejectReason::kOutOfArea:
      return "out_of_area";
    case RejectReason::kDuplicate:
      return "duplicate";
    case RejectReason::kJump:
      return "jump";
    case RejectReason::kLate:
      return "late";
  }
  return "malformed_record";
}

std::optional<RejectReason> ParseRejectReason(std::string_view name) {
  for (const RejectReason reason : kAllRejectReasons) {
    if (RejectReasonName(reason) == name) {
      return reason;
    }
  }
  return std::nullopt;
}

SourceId SourceCatalog::Intern(std::string_view name) {
  const std::lock_guard lock(mutex_);
  if (const auto it = ids_.find(name); it != ids_.end()) {
    return it->second;
  }
  const auto id = static_cast<SourceId>(names_.size());
  names_.emplace_back(name);
  ids_.emplace(names_.back(), id);
  return id;
}

const std::string& SourceCatalog::Name(SourceId id) const {
  const std::lock_guard lock(mutex_);
  return names_.at(id);
}

std::size_t SourceCatalog::size() const {
  const std::lock_guard lock(mutex_);
  return names_.size();
}

namespace {
template <typename T>
void MoveAppend(std::vector<T>& into, std::vector<T>&& from) {
  if (into.empty()) {
    into = std::move(from);
  } else {
    into.insert(into.end(), std::make_move_iterator(from.begin()),
                std::make_move_iterator(from.end()));
  }
  from.clear();
}
}  // namespace

template <>
std::vector<QualityLatencyRow> DeriveRows(const EpochRows& rows) {
  std::vector<QualityLatencyRow> out;
  for (const QualityRow& r : rows.of<QualityRow>()) {
    for (const auto& [bucket, count] : r.latency) {
      out.push_back({r.partition_id, r.feed_id, r.local_date, r.hour,
                     static_cast<std::int16_t>(bucket + kLatencyMinSeconds), count});
    }
  }
  return out;
}

template <>
std::vector<AircraftPositionRow> DeriveRows(const EpochRows& rows) {
  std::vector<AircraftPositionRow> out;
  if (rows.positions.empty() || !rows.strings) {
    return out;
  }
  const StringDictionary& strings = *rows.strings;
  for (const PositionRecord& p : rows.positions) {
    if (!HasAircraftFields(p)) {
      continue;
    }
    AircraftPositionRow& row = out.emplace_back();
    row.feed_id = strings.View(p.feed_id);
    row.vehicle_id = strings.View(p.vehicle_id);
    row.event_time = p.event_time;
    if (p.has_origin_country) {
      row.origin_country = strings.View(p.origin_country);
    }
    if (p.last_contact != kNoLastContact) {
      row.last_contact = p.last_contact;
    }
  }
  return out;
}

void EpochRows::Append(EpochRows&& other) {
  if (!strings) {
    strings = other.strings;
  }
  // Ids only mean something with the dictionary that issued them.
  assert((other.positions.empty() && other.rejected.empty()) || other.strings == strings);
  MoveAppend(positions, std::move(other.positions));
  MoveAppend(rejected, std::move(other.rejected));
  std::apply(
      [&](auto&... tables) {
        (MoveAppend(tables,
                    std::move(std::get<std::remove_reference_t<decltype(tables)>>(other.tables_))),
         ...);
      },
      tables_);
}

std::size_t EpochRows::RowCount() const {
  std::size_t count = positions.size() + rejected.size();
  std::apply([&](const auto&... tables) { ((count += tables.size()), ...); }, tables_);
  return count;
}

}  // namespace frota::model

namespace frota::model {

PositionView ViewOf(const Position& p) {
  PositionView v;
  v.feed_id = p.feed_id;
  v.vehicle_id = p.vehicle_id;
  v.route_id = p.route_id;
  v.trip_id = p.trip_id;
  v.trip_start_date = p.trip_start_date;
  v.trip_start_time = p.trip_start_time;
  v.origin_country = p.origin_country;
  CopyNonTextFields(p, v);
  return v;
}

void AppendPosition(const PositionView& v, std::vector<Position>& out) {
  Position& p = out.emplace_back();
  p.feed_id = v.feed_id;
  p.vehicle_id = v.vehicle_id;
  p.route_id = v.route_id;
  p.trip_id = v.trip_id;
  p.trip_start_date = v.trip_start_date;
  p.trip_start_time = v.trip_start_time;
  p.origin_country = v.origin_country;
  CopyNonTextFields(v, p);
}

PositionRecord InternPosition(const Position& p, StringDictionary& strings) {
  PositionRecord r;
  CopyNonTextFields(p, r);
  r.feed_id = strings.Intern(p.feed_id);
  r.vehicle_id = strings.InternKey(p.vehicle_id);
  r.route_id = strings.Intern(p.route_id);
  r.trip_id = strings.Intern(p.trip_id);
  r.trip_start_date = strings.Intern(p.trip_start_date);
  r.trip_start_time = strings.Intern(p.trip_start_time);
  r.origin_country =
      p.origin_country.empty() ? StringDictionary::kEmpty : strings.Intern(p.origin_country);
  return r;
}

Position MaterializePosition(const PositionRecord& r, const StringDictionary& strings) {
  Position p;
  p.feed_id = strings.View(r.feed_id);
  p.vehicle_id = strings.View(r.vehicle_id);
  p.route_id = strings.View(r.route_id);
  p.trip_id = strings.View(r.trip_id);
  p.trip_start_date = strings.View(r.trip_start_date);
  p.trip_start_time = strings.View(r.trip_start_time);
  p.origin_country = strings.View(r.origin_country);
  CopyNonTextFields(r, p);
  return p;
}

}  // namespace frota::model

namespace frota::model {

std::string DuplicateDetail(base::Timestamp event_time) {
  std::string detail;
  detail.reserve(40);
  detail += "event_time=";
  base::AppendIso8601(detail, event_time);
  return detail;
}

std::string DetailOf(const RejectionRecord& r) {
  return HasDerivedDetail(r) ? DuplicateDetail(*r.event_time) : r.detail;
}

RejectionRecord InternRejection(Rejection&& rejection, StringDictionary& strings) {
  RejectionRecord r;
  r.event_time = rejection.event_time;
  r.ingest_time = rejection.ingest_time;
  r.source = rejection.source;
  r.feed_id = strings.Intern(rejection.feed_id);
  r.vehicle_id = strings.InternKey(rejection.vehicle_id);
  r.reason = rejection.reason;
  r.detail = std::move(rejection.detail);
  return r;
}

Rejection MaterializeRejection(const RejectionRecord& r, const StringDictionary& strings) {
  Rejection out;
  out.reason = r.reason;
  out.feed_id = strings.View(r.feed_id);
  out.vehicle_id = strings.View(r.vehicle_id);
  out.event_time = r.event_time;
  out.ingest_time = r.ingest_time;
  out.source = r.source;
  out.detail = DetailOf(r);
  return out;
}

}  // namespace frota::model
