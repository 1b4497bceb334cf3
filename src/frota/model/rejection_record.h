// A rejection as the engine holds it: the Rejection record with its ids interned.
#pragma once

#include <optional>
#include <string>

#include "frota/base/time.h"
#include "frota/model/rejection.h"
#include "frota/model/source.h"
#include "frota/model/string_dictionary.h"

namespace frota::model {

/// Rejection (semantics.md section 2) with feed_id and vehicle_id replaced by their ids
/// in a StringDictionary, as PositionRecord does for positions: what the jobs emit and
/// the sinks write. The dictionary that issued the ids is needed to read them back.
///
/// `detail` is empty when the rejection's other fields say everything it would: a
/// duplicate's detail is its event time (DuplicateDetail), which sinks derive when they
/// write, so the most common refusal by far carries no text through the engine.
struct RejectionRecord {
  using Id = StringDictionary::Id;
  std::optional<base::Timestamp> event_time;  // when the record had a usable one
  std::optional<base::Timestamp> ingest_time;
  SourceRef source;
  Id feed_id = 0;
  Id vehicle_id = 0;  // kEmpty when missing
  RejectReason reason = RejectReason::kMalformedRecord;
  std::string detail;
};

/// The detail text of a duplicate: "event_time=" and the ISO 8601 time
/// (base::AppendIso8601).
std::string DuplicateDetail(base::Timestamp event_time);

/// Whether a sink derives `r`'s detail (DuplicateDetail of its event time) instead of
/// reading r.detail.
inline bool HasDerivedDetail(const RejectionRecord& r) {
  return r.reason == RejectReason::kDuplicate && r.detail.empty() && r.event_time.has_value();
}

/// r.detail, or the derived text (HasDerivedDetail).
std::string DetailOf(const RejectionRecord& r);

/// Interns `rejection`'s ids (its detail is moved).
RejectionRecord InternRejection(Rejection&& rejection, StringDictionary& strings);
/// The Rejection back, strings copied out of the dictionary, the detail derived if it is.
Rejection MaterializeRejection(const RejectionRecord& record, const StringDictionary& strings);

}  // namespace frota::model
