// Invariants every decoder's output must hold, checked by the fuzz harnesses on any input.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <string_view>

#include "frota/codec/decode.h"
#include "frota/codec/decode_internal.h"

namespace frota::codec::fuzz {

[[noreturn]] inline void Fail(const char* what) {
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
  std::abort();
}

inline void Require(bool condition, const char* what) {
  if (!condition) {
    Fail(what);
  }
}

inline bool SameFloat(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

inline bool SamePosition(const model::Position& a, const model::Position& b) {
  return a.feed_id == b.feed_id && a.vehicle_id == b.vehicle_id && a.route_id == b.route_id &&
         a.trip_id == b.trip_id && a.trip_start_date == b.trip_start_date &&
         a.trip_start_time == b.trip_start_time && a.direction_id == b.direction_id &&
         a.mode == b.mode && a.event_time_from_header == b.event_time_from_header &&
         a.lat == b.lat && a.lon == b.lon &&
         SameFloat(a.reported_speed_kmh, b.reported_speed_kmh) &&
         SameFloat(a.bearing_deg, b.bearing_deg) && SameFloat(a.altitude_m, b.altitude_m) &&
         a.on_ground == b.on_ground && a.event_time == b.event_time &&
         a.ingest_time == b.ingest_time && a.source.source == b.source.source &&
         a.source.offset == b.source.offset && a.origin_country == b.origin_country &&
         a.last_contact == b.last_contact;
}

inline bool SameRejection(const model::Rejection& a, const model::Rejection& b) {
  return a.reason == b.reason && a.feed_id == b.feed_id && a.vehicle_id == b.vehicle_id &&
         a.event_time == b.event_time && a.ingest_time == b.ingest_time &&
         a.source.source == b.source.source && a.source.offset == b.source.offset &&
         a.detail == b.detail;
}

inline bool SameBatch(const DecodedBatch& a, const DecodedBatch& b) {
  if (a.positions.size() != b.positions.size() || a.rejections.size() != b.rejections.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.positions.size(); ++i) {
    if (!SamePosition(a.positions[i], b.positions[i])) {
      return false;
    }
  }
  for (std::size_t i = 0; i < a.rejections.size(); ++i) {
    if (!SameRejection(a.rejections[i], b.rejections[i])) {
      return false;
    }
  }
  return true;
}

/// Checks what one decode appended to an initially empty `batch`: every record is a
/// position or a rejection with its own offset from `first_offset` on; positions are
/// real places with a vehicle; rejections carry a rule-1 reason and a bounded detail.
inline void CheckBatch(const DecodedBatch& batch, std::int64_t records, std::int64_t first_offset,
                       std::string_view feed_id) {
  Require(static_cast<std::int64_t>(batch.size()) == records, "records counted = records appended");
  std::set<std::int64_t> offsets;
  for (const model::Position& position : batch.positions) {
    Require(std::isfinite(position.lat) && position.lat >= -90 && position.lat <= 90,
            "latitude in range");
    Require(std::isfinite(position.lon) && position.lon >= -180 && position.lon <= 180,
            "longitude in range");
    Require(!(position.lat == 0 && position.lon == 0), "no null island");
    Require(!position.vehicle_id.empty(), "positions have a vehicle");
    Require(position.feed_id == feed_id, "feed id");
    Require(position.direction_id >= -1 && position.direction_id <= 1, "direction id");
    Require(position.on_ground >= -1 && position.on_ground <= 1, "on_ground");
    Require(offsets.insert(position.source.offset).second, "offsets unique");
  }
  for (const model::Rejection& rejection : batch.rejections) {
    Require(rejection.reason <= model::RejectReason::kMalformedRecord, "a decoder reason");
    Require(rejection.detail.size() <= internal::kMaxDetailBytes, "detail bounded");
    Require(!rejection.detail.empty(), "a rejection says why");
    Require(rejection.feed_id == feed_id, "feed id");
    Require(offsets.insert(rejection.source.offset).second, "offsets unique");
  }
  if (!offsets.empty()) {
    Require(*offsets.begin() == first_offset, "offsets start at first_offset");
    Require(*offsets.rbegin() == first_offset + records - 1, "offsets are dense");
  }
}

}  // namespace frota::codec::fuzz
