// Records' strings as ids of a StringDictionary, looked up through caches of what the
// same feed and vehicle had last time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frota/model/position.h"
#include "frota/model/position_record.h"
#include "frota/model/rejection.h"
#include "frota/model/rejection_record.h"
#include "frota/model/string_dictionary.h"

namespace frota::model {

/// The hashes of a record's key texts (StringDictionary::TextHash of its feed id and of
/// its vehicle id), computed once as they are interned: what routing combines.
struct KeyTextHashes {
  std::uint64_t feed = 0;
  std::uint64_t vehicle = 0;
};

/// InternPosition and InternRejection with caches, for a stream of records: the vehicle
/// id is interned as a key (one hash lookup per record); the feed through a one-entry
/// cache (consecutive records mostly share it); route, trip, service date and start time
/// through the ids the same vehicle had last time (a vehicle keeps its trip for many
/// records), compared by text, so that a hit costs a short memcmp and no hashing.
///
/// It is the dictionary's writer: one thread uses it at a time, and no other thread
/// interns into the dictionary meanwhile (StringDictionary's rule). Records it returns
/// may be handed to other threads with proper synchronisation, which may then View
/// their ids. The caches only save lookups: the ids are the dictionary's either way.
class RecordInterner {
 public:
  explicit RecordInterner(std::shared_ptr<StringDictionary> strings);

  PositionRecord Intern(const PositionView& position, KeyTextHashes* hashes);
  PositionRecord Intern(const Position& position, KeyTextHashes* hashes) {
    return Intern(ViewOf(position), hashes);
  }
  RejectionRecord Intern(Rejection&& rejection, KeyTextHashes* hashes);

  [[nodiscard]] const std::shared_ptr<StringDictionary>& strings() const { return strings_; }

 private:
  using Id = StringDictionary::Id;
  struct FieldCache {
    std::string text;
    Id id = StringDictionary::kEmpty;
    std::uint64_t hash = StringDictionary::TextHash({});
  };
  Id Feed(std::string_view text);
  // The last route, trip, date and start time ids seen with each vehicle id, indexed by
  // the vehicle id's StringDictionary::KeyOrdinal: vehicle ids are interned as keys, so
  // other texts (trip ids, one per vehicle too) take no slot.
  struct RecentStrings {
    Id route = StringDictionary::kEmpty;
    Id trip = StringDictionary::kEmpty;
    Id date = StringDictionary::kEmpty;
    Id time = StringDictionary::kEmpty;
  };

  std::shared_ptr<StringDictionary> strings_;
  FieldCache feed_;
  std::vector<RecentStrings> recent_by_vehicle_;
};

}  // namespace frota::model
