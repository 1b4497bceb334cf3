// Why a record was refused, and the rejection record that keeps it (semantics.md section 2).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "frota/base/time.h"
#include "frota/model/source.h"

namespace frota::model {

/// Every reason a record can be refused, in the order the rules apply.
///
/// Rule 1 (decoder) reasons come first; kMalformedRecord covers a row or element that
/// cannot be read at all (wrong column count, not a JSON object), kStateVectorTooShort
/// is OpenSky's (section 8), kBadPayload a Kafka message that does not decode.
enum class RejectReason : std::uint8_t {
  kMissingVehicleId,
  kMissingCoordinates,
  kLatitudeOutOfRange,
  kLongitudeOutOfRange,
  kNullIsland,
  kMissingTimestamp,
  kTimestampInMilliseconds,
  kStateVectorTooShort,
  kMalformedRecord,
  kBadPayload,
  kFuture,
  kStale,
  kOutOfArea,
  kDuplicate,
  kJump,
  kLate,
};
inline constexpr std::size_t kRejectReasonCount = 16;

inline constexpr std::array<RejectReason, kRejectReasonCount> kAllRejectReasons = {
    RejectReason::kMissingVehicleId,
    RejectReason::kMissingCoordinates,
    RejectReason::kLatitudeOutOfRange,
    RejectReason::kLongitudeOutOfRange,
    RejectReason::kNullIsland,
    RejectReason::kMissingTimestamp,
    RejectReason::kTimestampInMilliseconds,
    RejectReason::kStateVectorTooShort,
    RejectReason::kMalformedRecord,
    RejectReason::kBadPayload,
    RejectReason::kFuture,
    RejectReason::kStale,
    RejectReason::kOutOfArea,
    RejectReason::kDuplicate,
    RejectReason::kJump,
    RejectReason::kLate,
};

/// The snake_case name used in tables, reports and JSON ("missing_vehicle_id", ...).
std::string_view RejectReasonName(RejectReason reason);
std::optional<RejectReason> ParseRejectReason(std::string_view name);
/// Duplicates are counted but are not feed errors (kept out of the error rate).
constexpr bool IsError(RejectReason reason) { return reason != RejectReason::kDuplicate; }

/// A record that was not accepted, with enough to find it and see why.
struct Rejection {
  RejectReason reason = RejectReason::kMalformedRecord;
  std::string feed_id;
  std::string vehicle_id;                     // empty when missing
  std::optional<base::Timestamp> event_time;  // when the record had a usable one
  std::optional<base::Timestamp> ingest_time;
  SourceRef source;
  /// The raw field values that failed, e.g. `latitude="-122,5"` or `implied_speed_kmh=214.3`.
  std::string detail;
};

}  // namespace frota::model
