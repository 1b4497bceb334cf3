#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "frota/model/mode.h"
#include "frota/model/record_interner.h"
#include "frota/model/rejection.h"
#include "frota/model/rejection_record.h"
#include "frota/model/source.h"
#include "frota/model/string_dictionary.h"

namespace frota::model {
namespace {

TEST(RejectReason, EveryReasonHasAUniqueNameThatParsesBack) {
  std::set<std::string_view> names;
  for (const auto reason : kAllRejectReasons) {
    const auto name = RejectReasonName(reason);
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_EQ(ParseRejectReason(name), reason);
  }
  EXPECT_EQ(names.size(), kRejectReasonCount);
  EXPECT_EQ(RejectReasonName(RejectReason::kTimestampInMilliseconds), "timestamp_in_milliseconds");
}

TEST(Mode, GtfsRouteTypesMapToModes) {
  EXPECT_EQ(ModeFromGtfsRouteType(3), Mode::kBus);
  EXPECT_EQ(ModeFromGtfsRouteType(2), Mode::kRail);
  EXPECT_EQ(ModeFromGtfsRouteType(4), Mode::kFerry);
  EXPECT_EQ(ModeFromGtfsRouteType(700), Mode::kBus);
  EXPECT_EQ(ParseMode("brt"), Mode::kBrt);
  EXPECT_EQ(ParseMode("tram"), std::nullopt);
}

TEST(SourceCatalog, InterningTheSameNameGivesTheSameId) {
  SourceCatalog catalog;
  const auto a = catalog.Intern("13.csv.gz");
  const auto b = catalog.Intern("18.csv.gz");
  EXPECT_NE(a, b);
  EXPECT_EQ(catalog.Intern("13.csv.gz"), a);
  EXPECT_EQ(catalog.Name(b), "18.csv.gz");
}

TEST(DuplicateDetail, IsTheIsoTextOfTheEventTime) {
  // base::FormatIso8601 is held to fmt's text on 200 k instants (time_test.cc).
  for (const std::int64_t us : {std::int64_t{0}, std::int64_t{1'717'600'000'123'456},
                                std::int64_t{-62'167'219'200'000'001}}) {
    const auto t = base::FromUnixMicros(us);
    ASSERT_EQ(DuplicateDetail(t), fmt::format("event_time={}", base::FormatIso8601(t))) << us;
  }
}

TEST(RejectionRecord, ADuplicateDerivesItsDetailAndRoundTrips) {
  StringDictionary strings;
  Rejection duplicate;
  duplicate.reason = RejectReason::kDuplicate;
  duplicate.feed_id = "rio-brt";
  duplicate.vehicle_id = "B-1";
  duplicate.event_time = base::FromUnixMicros(1'717'600'000'000'000);
  duplicate.ingest_time = base::FromUnixMicros(1'717'600'005'000'000);
  duplicate.source = {3, 17};
  const RejectionRecord record = InternRejection(Rejection(duplicate), strings);
  EXPECT_TRUE(HasDerivedDetail(record));
  EXPECT_EQ(DetailOf(record), DuplicateDetail(*duplicate.event_time));
  const Rejection back = MaterializeRejection(record, strings);
  EXPECT_EQ(back.feed_id, "rio-brt");
  EXPECT_EQ(back.vehicle_id, "B-1");
  EXPECT_EQ(back.detail, DuplicateDetail(*duplicate.event_time));
  EXPECT_EQ(back.source.offset, 17);

  // Any other reason keeps its own text, even an empty one.
  Rejection jump = duplicate;
  jump.reason = RejectReason::kJump;
  jump.detail = "implied_speed_kmh=300.0";
  const RejectionRecord jump_record = InternRejection(Rejection(jump), strings);
  EXPECT_FALSE(HasDerivedDetail(jump_record));
  EXPECT_EQ(DetailOf(jump_record), "implied_speed_kmh=300.0");
  jump.detail.clear();
  EXPECT_EQ(DetailOf(InternRejection(Rejection(jump), strings)), "");
}

TEST(StringDictionary, KeepsEveryTextUnderItsFirstIdAcrossGrowth) {
  StringDictionary strings;
  EXPECT_EQ(strings.Intern(""), StringDictionary::kEmpty);
  EXPECT_EQ(strings.View(StringDictionary::kEmpty), "");
  // More texts than one block of entries (65,536) and several index growths.
  constexpr int kTexts = 200'000;
  std::vector<StringDictionary::Id> ids;
  ids.reserve(kTexts);
  for (int i = 0; i < kTexts; ++i) {
    ids.push_back(strings.Intern(fmt::format("vehicle-{}", i)));
    ASSERT_EQ(ids.back(), static_cast<StringDictionary::Id>(i + 1));
  }
  EXPECT_EQ(strings.size(), static_cast<std::size_t>(kTexts + 1));
  for (int i = 0; i < kTexts; i += 7) {
    const std::string text = fmt::format("vehicle-{}", i);
    ASSERT_EQ(strings.Intern(text), ids[static_cast<std::size_t>(i)]) << text;
    ASSERT_EQ(strings.View(ids[static_cast<std::size_t>(i)]), text);
    ASSERT_EQ(strings.Hash(ids[static_cast<std::size_t>(i)]), StringDictionary::TextHash(text));
  }
}

TEST(StringDictionary, GivesKeysDenseOrdinalsWhateverTheOtherTextsInBetween) {
  StringDictionary strings;
  using Kind = StringDictionary::Kind;
  // A vehicle id and a trip id per vehicle, interleaved, across several blocks of ids.
  constexpr int kVehicles = 150'000;
  std::vector<StringDictionary::Id> keys;
  for (int v = 0; v < kVehicles; ++v) {
    const std::string vehicle = fmt::format("B{:07d}", v);
    keys.push_back(strings.Intern(vehicle, StringDictionary::TextHash(vehicle), Kind::kKey));
    const auto trip = strings.Intern(fmt::format("trip-{}", v));
    ASSERT_EQ(strings.KeyOrdinal(trip), StringDictionary::kNoOrdinal);
  }
  for (int v = 0; v < kVehicles; ++v) {
    const auto id = keys[static_cast<std::size_t>(v)];
    // Keys fill their own blocks in order: ordinals are 0, 1, 2...
    ASSERT_EQ(strings.KeyOrdinal(id), static_cast<std::uint32_t>(v));
    ASSERT_EQ(strings.View(id), fmt::format("B{:07d}", v));
    ASSERT_EQ(strings.InternKey(fmt::format("B{:07d}", v)), id);
    ASSERT_EQ(strings.View(strings.Intern(fmt::format("trip-{}", v))), fmt::format("trip-{}", v));
  }
  EXPECT_EQ(strings.size(), static_cast<std::size_t>(2 * kVehicles + 1));
  // A text first interned as another kind keeps its id, and has no ordinal.
  const auto route = strings.Intern("100");
  EXPECT_EQ(strings.InternKey("100"), route);
  EXPECT_EQ(strings.KeyOrdinal(route), StringDictionary::kNoOrdinal);
}

TEST(StringDictionary, StoresTextsOfEveryLengthIncludingLongerThanAChunk) {
  StringDictionary strings;
  // Lengths around the length prefix's byte boundaries, and texts of several MiB (the
  // arena's chunks are 1 MiB) between short ones, so some straddle where a chunk ends.
  std::vector<std::string> texts;
  for (const std::size_t size : {1UL, 127UL, 128UL, 16'383UL, 16'384UL, 1'048'575UL, 1'048'576UL,
                                 3'000'001UL, 5UL, 700'000UL, 700'000UL}) {
    std::string text(size, 'x');
    text.front() = static_cast<char>('a' + texts.size());
    text.back() = 'z';
    texts.push_back(std::move(text));
  }
  for (int i = 0; i < 20'000; ++i) {
    texts.push_back(fmt::format("{}-{}", i, std::string(static_cast<std::size_t>(i % 300), 'y')));
  }
  std::vector<StringDictionary::Id> ids;
  for (const auto& text : texts) {
    ids.push_back(strings.Intern(text));
  }
  for (std::size_t i = 0; i < texts.size(); ++i) {
    ASSERT_EQ(strings.View(ids[i]), texts[i]) << i;
    ASSERT_EQ(strings.Intern(texts[i]), ids[i]) << i;
  }
}

TEST(StringDictionary, TellsApartTextsWhoseHashesCollide) {
  StringDictionary strings;
  // The same hash for every text: each probe must compare the texts themselves.
  const auto a = strings.Intern("a", 42);
  const auto b = strings.Intern("b", 42);
  const auto c = strings.Intern("c", 42 + (std::uint64_t{1} << 32));  // same low half
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  EXPECT_EQ(strings.Intern("b", 42), b);
  EXPECT_EQ(strings.Intern("c", 42 + (std::uint64_t{1} << 32)), c);
  EXPECT_EQ(strings.View(a), "a");
  EXPECT_EQ(strings.View(c), "c");
}

TEST(RecordInterner, GivesTheDictionarysIdsWhateverTheCachesHold) {
  // A stream of records whose vehicles change route, trip, date and start time back and
  // forth, a vehicle id first seen as a route's text (no cache slot), an empty vehicle
  // id and two feeds in turn: every id is the dictionary's own for the text, every hash
  // the text's.
  auto strings = std::make_shared<StringDictionary>();
  RecordInterner interner(strings);
  std::size_t checked = 0;
  for (int i = 0; i < 2000; ++i) {
    Position p;
    p.feed_id = i % 3 == 0 ? "rio-brt" : "rio-sppo";
    p.vehicle_id = i % 101 == 0 ? "" : (i % 37 == 0 && i > 200 ? "R7" : fmt::format("V{}", i % 29));
    p.route_id = fmt::format("R{}", (i / 13) % 9);
    p.trip_id = i % 5 == 0 ? "" : fmt::format("T{}", (i / 7) % 11);
    p.trip_start_date = (i / 50) % 2 == 0 ? "20240605" : "20240606";
    p.trip_start_time = fmt::format("{:02d}:00:00", (i / 17) % 24);
    p.source = {1, i};
    if (i % 4 == 0) {  // an aircraft's two fields
      p.origin_country = i % 8 == 0 ? "Brazil" : "";
      p.has_origin_country = i % 12 != 4;  // sometimes blank, sometimes none
      p.last_contact = 1'717'581'600 + i;
    }
    KeyTextHashes hashes;
    if (i % 19 == 0) {
      Rejection rejection;
      rejection.reason = RejectReason::kMalformedRecord;
      rejection.feed_id = p.feed_id;
      rejection.vehicle_id = p.vehicle_id;
      rejection.detail = "x";
      const RejectionRecord r = interner.Intern(std::move(rejection), &hashes);
      EXPECT_EQ(strings->View(r.feed_id), p.feed_id);
      EXPECT_EQ(strings->View(r.vehicle_id), p.vehicle_id);
      EXPECT_EQ(r.detail, "x");
    } else {
      const PositionRecord r = interner.Intern(p, &hashes);
      EXPECT_EQ(r.feed_id, strings->Intern(p.feed_id)) << i;
      EXPECT_EQ(r.vehicle_id, strings->Intern(p.vehicle_id)) << i;
      EXPECT_EQ(r.route_id, strings->Intern(p.route_id)) << i;
      EXPECT_EQ(r.trip_id, strings->Intern(p.trip_id)) << i;
      EXPECT_EQ(r.trip_start_date, strings->Intern(p.trip_start_date)) << i;
      EXPECT_EQ(r.trip_start_time, strings->Intern(p.trip_start_time)) << i;
      EXPECT_EQ(r.origin_country, strings->Intern(p.origin_country)) << i;
      EXPECT_EQ(r.last_contact, p.last_contact) << i;
      EXPECT_EQ(r.source.offset, i);
      const Position back = MaterializePosition(r, *strings);
      EXPECT_EQ(back.origin_country, p.origin_country) << i;
      EXPECT_EQ(back.has_origin_country, p.has_origin_country) << i;
      EXPECT_EQ(back.last_contact, p.last_contact) << i;
      ++checked;
    }
    EXPECT_EQ(hashes.feed, StringDictionary::TextHash(p.feed_id));
    EXPECT_EQ(hashes.vehicle, StringDictionary::TextHash(p.vehicle_id));
  }
  EXPECT_GT(checked, 1800U);
  // "R7" was first a route: interned as text, it has no key ordinal, and still the id.
  EXPECT_EQ(strings->KeyOrdinal(strings->Intern("R7")), StringDictionary::kNoOrdinal);
}

TEST(RecordInterner, ResponsesInMuchTheSameOrderGiveTheSameIdsAsRecordByRecord) {
  // A fleet's responses: mostly the same vehicles in the same order, but vehicles leave
  // and join, two swap places, one is listed twice, trips and start times change, a text
  // is too long to remember. Interned with BeginResponse() between responses, every id
  // is the one an interner without it gives, from a dictionary that assigned them in the
  // same order, and every hash is the text's.
  auto remembered = std::make_shared<StringDictionary>();
  auto plain = std::make_shared<StringDictionary>();
  RecordInterner with_responses(remembered);
  RecordInterner record_by_record(plain);
  const std::string long_trip(70'000, 't');
  std::size_t checked = 0;
  for (int response = 0; response < 40; ++response) {
    with_responses.BeginResponse();
    std::vector<int> vehicles;
    for (int v = 0; v < 300; ++v) {
      if ((v + response) % 23 != 0) {  // a few are missing from each response
        vehicles.push_back(v);
      }
    }
    std::swap(vehicles[10], vehicles[11 + response % 5]);
    vehicles.insert(vehicles.begin() + 50, 49);                // listed twice
    vehicles.insert(vehicles.begin() + 100, 1000 + response);  // new this response
    for (const int v : vehicles) {
      Position p;
      p.feed_id = "rio-sppo";
      p.vehicle_id = fmt::format("V{}", v);
      p.route_id = fmt::format("R{}", v % 17);
      p.trip_id = v == 7 ? long_trip : fmt::format("T{}-{}", v, (response + v) / 9);
      p.trip_start_date = "20240605";
      p.trip_start_time = fmt::format("{:02d}:00:00", (response + v) / 6 % 24);
      KeyTextHashes a;
      KeyTextHashes b;
      const PositionRecord r = with_responses.Intern(p, &a);
      const PositionRecord q = record_by_record.Intern(p, &b);
      ASSERT_EQ(r.vehicle_id, q.vehicle_id) << response << " " << v;
      ASSERT_EQ(r.route_id, q.route_id) << response << " " << v;
      ASSERT_EQ(r.trip_id, q.trip_id) << response << " " << v;
      ASSERT_EQ(r.trip_start_date, q.trip_start_date) << response << " " << v;
      ASSERT_EQ(r.trip_start_time, q.trip_start_time) << response << " " << v;
      ASSERT_EQ(remembered->View(r.trip_id), p.trip_id);
      ASSERT_EQ(remembered->View(r.vehicle_id), p.vehicle_id);
      ASSERT_NE(remembered->KeyOrdinal(r.vehicle_id), StringDictionary::kNoOrdinal);
      ASSERT_EQ(a.vehicle, StringDictionary::TextHash(p.vehicle_id));
      ASSERT_EQ(a.feed, b.feed);
      ++checked;
    }
  }
  EXPECT_EQ(remembered->size(), plain->size());
  EXPECT_GT(checked, 40U * 280U);
}

}  // namespace
}  // namespace frota::model
