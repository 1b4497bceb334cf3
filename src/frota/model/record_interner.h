// Records' strings as ids of a StringDictionary, looked up through caches of what the
// same feed and vehicle had last time.
#pragma once

#include <array>
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
/// A feed lists its vehicles in much the same order in every response. Between
/// BeginResponse() calls the interner remembers each position's texts and ids in order
/// (one sequential buffer); in the next response a record whose vehicle id equals the
/// remembered one at the cursor, or one or two past it (a vehicle that left), takes its
/// ids from there, compared by text. That reads memory in order instead of the
/// dictionary's index, entries and texts and the vehicle's recent ids, which once a
/// fleet's texts outgrow the processor's caches cost a miss each. Any other record, or
/// every record when BeginResponse() is never called, takes the lookups above.
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
  /// The records that follow are one response (a feed's snapshot): the positions of the
  /// previous one become what the next are matched against.
  void BeginResponse();

  [[nodiscard]] const std::shared_ptr<StringDictionary>& strings() const { return strings_; }

 private:
  using Id = StringDictionary::Id;
  struct FieldCache {
    std::string text;
    Id id = StringDictionary::kEmpty;
    std::uint64_t hash = StringDictionary::TextHash({});
  };
  Id Feed(std::string_view text);
  // The vehicle, route, trip, date and start time through the dictionary and the
  // vehicle's recent ids.
  void InternTexts(const PositionView& p, PositionRecord& r, KeyTextHashes* hashes);
  // The last route, trip, date and start time ids seen with each vehicle id, indexed by
  // the vehicle id's StringDictionary::KeyOrdinal: vehicle ids are interned as keys, so
  // other texts (trip ids, one per vehicle too) take no slot.
  struct RecentStrings {
    Id route = StringDictionary::kEmpty;
    Id trip = StringDictionary::kEmpty;
    Id date = StringDictionary::kEmpty;
    Id time = StringDictionary::kEmpty;
  };

  // A position's texts as the previous response had them: vehicle, route, trip, date,
  // start time, their ids, and where their bytes start in the response's text buffer.
  static constexpr int kFields = 5;
  struct Remembered {
    std::uint64_t vehicle_hash;
    std::uint32_t at;
    std::array<std::uint16_t, kFields> size;
    std::array<Id, kFields> id;
  };
  struct Response {
    std::vector<Remembered> positions;
    std::string texts;
    void clear() {
      positions.clear();
      texts.clear();
    }
  };
  [[nodiscard]] std::string_view TextOf(const Remembered& r, int field) const;
  const Remembered* Match(std::string_view vehicle);
  void Remember(const PositionView& p, std::uint64_t vehicle_hash, const PositionRecord& r);

  std::shared_ptr<StringDictionary> strings_;
  FieldCache feed_;
  std::vector<RecentStrings> recent_by_vehicle_;
  bool remembering_ = false;  // BeginResponse() was called
  Response previous_;
  Response current_;
  std::size_t cursor_ = 0;  // in previous_.positions: where the next record should be
};

}  // namespace frota::model
