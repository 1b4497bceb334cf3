#include "frota/model/record_interner.h"

#include <utility>

#include "frota/base/bytes.h"
#include "frota/base/vector_growth.h"

namespace frota::model {

RecordInterner::RecordInterner(std::shared_ptr<StringDictionary> strings)
    : strings_(std::move(strings)) {}

RecordInterner::Id RecordInterner::Feed(std::string_view text) {
  if (!base::SameText(text, feed_.text)) {
    feed_.hash = StringDictionary::TextHash(text);
    feed_.id = strings_->Intern(text, feed_.hash);
    feed_.text.assign(text);
  }
  return feed_.id;
}

PositionRecord RecordInterner::Intern(const PositionView& p, KeyTextHashes* hashes) {
  PositionRecord r;
  CopyNonTextFields(p, r);
  StringDictionary& strings = *strings_;
  r.feed_id = Feed(p.feed_id);
  hashes->feed = feed_.hash;
  hashes->vehicle = StringDictionary::TextHash(p.vehicle_id);
  r.vehicle_id = strings.Intern(p.vehicle_id, hashes->vehicle, StringDictionary::Kind::kKey);
  const std::uint32_t ordinal = strings.KeyOrdinal(r.vehicle_id);
  RecentStrings no_recent;  // a vehicle id first seen as another field's text: no cache
  RecentStrings& recent = ordinal == StringDictionary::kNoOrdinal
                              ? no_recent
                              : base::GrowingAt(recent_by_vehicle_, ordinal);
  const auto reuse = [&strings](Id& id, std::string_view text) {
    if (!base::SameText(strings.View(id), text)) {
      id = strings.Intern(text);
    }
    return id;
  };
  r.route_id = reuse(recent.route, p.route_id);
  r.trip_id = reuse(recent.trip, p.trip_id);
  r.trip_start_date = reuse(recent.date, p.trip_start_date);
  r.trip_start_time = reuse(recent.time, p.trip_start_time);
  return r;
}

RejectionRecord RecordInterner::Intern(Rejection&& rejection, KeyTextHashes* hashes) {
  RejectionRecord r;
  r.event_time = rejection.event_time;
  r.ingest_time = rejection.ingest_time;
  r.source = rejection.source;
  r.feed_id = Feed(rejection.feed_id);
  hashes->feed = feed_.hash;
  hashes->vehicle = StringDictionary::TextHash(rejection.vehicle_id);
  r.vehicle_id =
      strings_->Intern(rejection.vehicle_id, hashes->vehicle, StringDictionary::Kind::kKey);
  r.reason = rejection.reason;
  r.detail = std::move(rejection.detail);
  return r;
}

}  // namespace frota::model
