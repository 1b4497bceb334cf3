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

void RecordInterner::BeginResponse() {
  remembering_ = true;
  std::swap(previous_, current_);
  current_.clear();
  cursor_ = 0;
}

std::string_view RecordInterner::TextOf(const Remembered& r, int field) const {
  std::uint32_t at = r.at;
  for (int f = 0; f < field; ++f) {
    at += r.size[f];
  }
  return {previous_.texts.data() + at, r.size[field]};
}

const RecordInterner::Remembered* RecordInterner::Match(std::string_view vehicle) {
  const auto& positions = previous_.positions;
  for (std::size_t k = cursor_; k < positions.size() && k < cursor_ + 3; ++k) {
    if (base::SameText(TextOf(positions[k], 0), vehicle)) {
      cursor_ = k + 1;
      return &positions[k];
    }
  }
  return nullptr;
}

void RecordInterner::Remember(const PositionView& p, std::uint64_t vehicle_hash,
                              const PositionRecord& r) {
  const std::array<std::string_view, kFields> texts = {p.vehicle_id, p.route_id, p.trip_id,
                                                       p.trip_start_date, p.trip_start_time};
  Remembered m{vehicle_hash,
               static_cast<std::uint32_t>(current_.texts.size()),
               {},
               {r.vehicle_id, r.route_id, r.trip_id, r.trip_start_date, r.trip_start_time}};
  std::size_t total = 0;
  for (const auto text : texts) {
    // A text too long to remember, or a response too large: matched the slower way.
    if (text.size() > 0xffff) {
      return;
    }
    total += text.size();
  }
  if (current_.texts.size() + total > 0xffffffffU) {
    return;
  }
  for (int f = 0; f < kFields; ++f) {
    m.size[f] = static_cast<std::uint16_t>(texts[f].size());
    current_.texts.append(texts[f]);
  }
  current_.positions.push_back(m);
}

PositionRecord RecordInterner::Intern(const PositionView& p, KeyTextHashes* hashes) {
  PositionRecord r;
  CopyNonTextFields(p, r);
  StringDictionary& strings = *strings_;
  r.feed_id = Feed(p.feed_id);
  hashes->feed = feed_.hash;
  if (!p.origin_country.empty()) {  // aircraft only: no cache
    r.origin_country = strings.Intern(p.origin_country);
  }
  if (!remembering_) {
    InternTexts(p, r, hashes);
    return r;
  }
  if (const Remembered* m = Match(p.vehicle_id)) {
    hashes->vehicle = m->vehicle_hash;
    r.vehicle_id = m->id[0];
    const auto same = [&](int field, std::string_view text) {
      return base::SameText(TextOf(*m, field), text) ? m->id[field] : strings.Intern(text);
    };
    r.route_id = same(1, p.route_id);
    r.trip_id = same(2, p.trip_id);
    r.trip_start_date = same(3, p.trip_start_date);
    r.trip_start_time = same(4, p.trip_start_time);
  } else {
    InternTexts(p, r, hashes);
  }
  Remember(p, hashes->vehicle, r);
  return r;
}

void RecordInterner::InternTexts(const PositionView& p, PositionRecord& r, KeyTextHashes* hashes) {
  StringDictionary& strings = *strings_;
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
