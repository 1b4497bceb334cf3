#include "frota/engine/keyed_processor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <span>

namespace frota::engine {
namespace {

struct Event {
  Timestamp time;
  int seq;  // tie-break
  std::string key;
};

struct Collected {
  std::vector<std::pair<std::string, int>> records;  // (key, seq) in release order
  std::vector<std::pair<std::string, Timestamp>> timers;
};

struct Traits {
  using Record = Event;
  using Key = std::string;
  [[nodiscard]] std::uint64_t HashKey(const Key& key) const { return base::FastStableHash(key); }
  struct State {
    std::string key;
    std::optional<Timestamp> timer;
  };
  [[nodiscard]] Timestamp EventTime(const Event& e) const { return e.time; }
  [[nodiscard]] bool Before(const Event& a, const Event& b) const {
    return a.time != b.time ? a.time < b.time : a.seq < b.seq;
  }
};

// Releases records, and sets a timer 10 s after each record.
struct Op {
  Collected* out;
  void OnRecord(Traits::State& s, Event&& e) {
    s.key = e.key;
    out->records.emplace_back(e.key, e.seq);
    s.timer = e.time + std::chrono::seconds(10);
  }
  void OnTimer(const Traits::Key& key, Traits::State& s, Timestamp) {
    EXPECT_EQ(key, s.key);  // the processor names the key whose timer fired
    out->timers.emplace_back(s.key, *s.timer);
    s.timer.reset();
  }
  [[nodiscard]] std::optional<Timestamp> NextTimer(const Traits::State& s) const { return s.timer; }
};

Timestamp T(int s) { return base::FromUnixSeconds(s); }

TEST(KeyedProcessor, ReleasesEachKeyInEventTimeOrderOnceTheWatermarkPasses) {
  KeyedProcessor<Traits> p;
  Collected out;
  Op op{&out};
  p.Add(std::string("a"), {T(30), 1, "a"});
  p.Add(std::string("a"), {T(10), 2, "a"});
  p.Add(std::string("b"), {T(20), 3, "b"});
  p.Add(std::string("a"), {T(20), 4, "a"});
  p.Advance(T(19), op);
  EXPECT_EQ(out.records, (std::vector<std::pair<std::string, int>>{{"a", 2}}));
  p.Advance(T(20), op);
  ASSERT_EQ(out.records.size(), 3U);
  EXPECT_EQ(out.records[1].second + out.records[2].second, 7);  // a@20 and b@20, any key order
  EXPECT_EQ(p.pending_records(), 1U);
}

TEST(KeyedProcessor, EqualEventTimesAreOrderedByTheTieBreakNotByArrival) {
  KeyedProcessor<Traits> p;
  Collected out;
  Op op{&out};
  p.Add(std::string("a"), {T(10), 9, "a"});
  p.Add(std::string("a"), {T(10), 3, "a"});
  p.Advance(T(10), op);
  EXPECT_EQ(out.records, (std::vector<std::pair<std::string, int>>{{"a", 3}, {"a", 9}}));
}

TEST(KeyedProcessor, TimersFireAfterTheKeysRecordsUpToTheWatermark) {
  KeyedProcessor<Traits> p;
  Collected out;
  Op op{&out};
  p.Add(std::string("a"), {T(10), 1, "a"});
  p.Advance(T(15), op);
  EXPECT_TRUE(out.timers.empty());
  p.Add(std::string("a"), {T(20), 2, "a"});  // moves the timer to 30 before it fires
  p.Advance(T(25), op);
  EXPECT_TRUE(out.timers.empty());
  p.Advance(T(30), op);
  ASSERT_EQ(out.timers.size(), 1U);
  EXPECT_EQ(out.timers[0].second, T(30));
}

TEST(KeyedProcessor, ReleaseTimingDoesNotChangeWhatEachKeySees) {
  // The same records advanced in many small steps or one big one give the same
  // per-key sequences.
  std::mt19937 rng(7);
  std::vector<Event> events;
  for (int i = 0; i < 2000; ++i) {
    events.push_back({T(static_cast<int>(rng() % 500)), i, std::string(1, 'a' + rng() % 5)});
  }
  auto per_key = [](const Collected& c) {
    std::map<std::string, std::vector<int>> m;
    for (const auto& [k, s] : c.records) {
      m[k].push_back(s);
    }
    return m;
  };
  KeyedProcessor<Traits> once;
  Collected once_out;
  Op once_op{&once_out};
  for (auto e : events) {
    once.Add(e.key, std::move(e));
  }
  once.Advance(T(1000), once_op);

  // Stepwise: add records in time order in chunks, advancing behind them.
  auto sorted = events;
  std::sort(sorted.begin(), sorted.end(),
            [](const Event& a, const Event& b) { return a.time < b.time; });
  KeyedProcessor<Traits> steps;
  Collected steps_out;
  Op steps_op{&steps_out};
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    steps.Add(sorted[i].key, Event(sorted[i]));
    if (i % 37 == 0) {
      steps.Advance(sorted[i].time - std::chrono::seconds(1), steps_op);
    }
  }
  steps.Advance(T(1000), steps_op);
  EXPECT_EQ(per_key(once_out), per_key(steps_out));
  EXPECT_EQ(once_out.timers.size(), 5U);
}

TEST(KeyedProcessor, AddAllGivesWhatAddInALoopGives) {
  // Batches of records over 300 keys, in arrival order with some out of order, each
  // batch added with AddAll in one processor and Add in another, advancing in between:
  // the same records and timers in the same order, and the same keys in the same order.
  std::mt19937 rng(11);
  KeyedProcessor<Traits> loop;
  KeyedProcessor<Traits> all;
  Collected loop_out;
  Collected all_out;
  Op loop_op{&loop_out};
  Op all_op{&all_out};
  int seq = 0;
  for (int batch = 0; batch < 60; ++batch) {
    std::vector<Event> events;
    const int size = static_cast<int>(rng() % 400);
    for (int i = 0; i < size; ++i) {
      const int late = rng() % 8 == 0 ? static_cast<int>(rng() % 20) : 0;
      events.push_back({T(batch * 10 + static_cast<int>(rng() % 10) - late), seq++,
                        "k" + std::to_string(rng() % 300)});
    }
    for (auto e : events) {
      loop.Add(e.key, std::move(e));
    }
    all.AddAll(std::span<Event>(events), [](const Event& e) { return e.key; });
    EXPECT_EQ(all.pending_records(), loop.pending_records());
    loop.Advance(T(batch * 10 - 25), loop_op);
    all.Advance(T(batch * 10 - 25), all_op);
  }
  loop.Advance(T(100000), loop_op);
  all.Advance(T(100000), all_op);
  EXPECT_EQ(all_out.records, loop_out.records);
  EXPECT_EQ(all_out.timers, loop_out.timers);
  EXPECT_EQ(all_out.records.size(), static_cast<std::size_t>(seq));
  std::vector<std::string> loop_keys;
  std::vector<std::string> all_keys;
  loop.ForEach([&](const std::string& key, const auto&, auto) { loop_keys.push_back(key); });
  all.ForEach([&](const std::string& key, const auto&, auto) { all_keys.push_back(key); });
  EXPECT_EQ(all_keys, loop_keys);
}

// Traits whose records repeat when a key's event times are equal (as rule 5's duplicates).
struct RepeatTraits : Traits {
  [[nodiscard]] static bool Repeats(const Event& earlier, const Event& later) {
    return earlier.time == later.time;
  }
};

// Releases only the first record of each event time per key, as an operator that refuses
// repeats on release does; the refused are collected.
struct FirstOfEachTimeOp {
  Collected* out;
  std::map<std::string, Timestamp> last;
  std::vector<std::pair<std::string, int>> refused;
  void OnRecord(Traits::State& s, Event&& e) {
    s.key = e.key;
    if (const auto it = last.find(e.key); it != last.end() && it->second == e.time) {
      refused.emplace_back(e.key, e.seq);
      return;
    }
    last[e.key] = e.time;
    out->records.emplace_back(e.key, e.seq);
  }
  void OnTimer(const Traits::Key&, Traits::State&, Timestamp) {}
  [[nodiscard]] std::optional<Timestamp> NextTimer(const Traits::State&) const {
    return std::nullopt;
  }
};

// RepeatTraits with marks (the tie-break), which cannot tell for every third record; it
// counts the repeats it recognised.
struct MarkedRepeatTraits : RepeatTraits {
  using Mark = int;
  [[nodiscard]] static Mark MarkOf(const Event& e) { return e.seq; }
  [[nodiscard]] bool RepeatsMarked(const Mark& earlier, const Event& later) const {
    if (later.seq % 3 == 0 || earlier >= later.seq) {
      return false;
    }
    ++*recognised;
    return true;
  }
  int* recognised = nullptr;
};

// Random records of 10 keys with many equal event times per key, arriving in random order
// or (`as_a_feed`) mostly in event-time order, repeats after what they repeat, as a feed
// polled again sends them (never late: each batch holds only records after the
// watermark), each added to a processor with a discard and to one without, whose operator
// refuses repeats on release. The same records are released in the same order; the
// discarded ones are exactly those the operator refused; and the first of equal times in
// Before() order is the one kept, whichever came first.
template <typename WithTraits>
void ExpectRepeatsDiscardedAsTheyCome(WithTraits with_traits, std::uint32_t seed, bool as_a_feed) {
  std::mt19937 rng(seed);
  std::vector<Event> events;
  for (int i = 0; i < 6000; ++i) {
    // As a feed: 2 records a second per key, one in four a second behind.
    const int time =
        as_a_feed ? i / 20 - static_cast<int>(rng() % 4 == 0) : static_cast<int>(rng() % 300);
    events.push_back({T(time), i, std::string(1, static_cast<char>('a' + rng() % 10))});
  }
  KeyedProcessor<WithTraits> with(with_traits);
  KeyedProcessor<RepeatTraits> without(RepeatTraits{});
  Collected with_out;
  Collected without_out;
  FirstOfEachTimeOp with_op{&with_out, {}, {}};
  FirstOfEachTimeOp without_op{&without_out, {}, {}};
  std::vector<std::pair<std::string, int>> discarded;
  if (!as_a_feed) {
    std::shuffle(events.begin(), events.end(), rng);
  }
  Timestamp watermark = T(-1);
  std::size_t added = 0;
  for (std::size_t from = 0; from < events.size(); from += 250) {
    std::vector<Event> batch;
    for (std::size_t i = from; i < std::min(events.size(), from + 250); ++i) {
      if (events[i].time > watermark) {
        batch.push_back(events[i]);
      }
    }
    added += batch.size();
    for (const Event& e : batch) {
      without.Add(e.key, Event(e));
    }
    with.AddAll(
        std::span<Event>(batch), [](const Event& e) { return e.key; },
        [&discarded](Traits::State&, Event&& e) { discarded.emplace_back(e.key, e.seq); });
    watermark = watermark + std::chrono::seconds(10);
    with.Advance(watermark, with_op);
    without.Advance(watermark, without_op);
  }
  with.Advance(T(1000), with_op);
  without.Advance(T(1000), without_op);

  EXPECT_EQ(with_out.records, without_out.records);
  EXPECT_TRUE(with_op.refused.empty()) << "a repeat was buffered";
  std::sort(discarded.begin(), discarded.end());
  std::sort(without_op.refused.begin(), without_op.refused.end());
  EXPECT_EQ(discarded, without_op.refused);
  EXPECT_EQ(with_out.records.size() + discarded.size(), added);
  EXPECT_GT(discarded.size(), 1000U);  // the test saw many repeats
  EXPECT_EQ(with.pending_records(), 0U);
}

TEST(KeyedProcessor, RepeatsGoToTheDiscardAsTheyComeAndTheRestIsReleasedAsBefore) {
  ExpectRepeatsDiscardedAsTheyCome(RepeatTraits{}, 5, /*as_a_feed=*/false);
  ExpectRepeatsDiscardedAsTheyCome(RepeatTraits{}, 5, /*as_a_feed=*/true);
}

TEST(KeyedProcessor, RepeatsKnownByTheLastRecordsMarkAreDiscardedAsThoseFoundByReadingIt) {
  // The same with marks: nothing changes (the results equal the unmarked run's), and in
  // a feed's order many repeats are recognised from the last record's mark.
  for (const std::uint32_t seed : {5U, 6U, 7U}) {
    for (const bool as_a_feed : {false, true}) {
      int recognised = 0;
      MarkedRepeatTraits traits;
      traits.recognised = &recognised;
      ExpectRepeatsDiscardedAsTheyCome(traits, seed, as_a_feed);
      if (as_a_feed) {
        EXPECT_GT(recognised, 1000) << "seed " << seed;
      }
    }
  }
}

TEST(KeyedProcessor, RecordsAddedAfterARestoreAreOrderedWithTheRestoredOnes) {
  // Put() restores pending records; what is added next, later than all of them, equal to
  // the last or earlier, is ordered among them as if it had been there all along.
  KeyedProcessor<Traits> p;
  Collected out;
  Op op{&out};
  p.Put("a", {}, {{T(10), 1, "a"}, {T(20), 2, "a"}});
  p.RescheduleAll(op);
  p.Add(std::string("a"), {T(30), 3, "a"});  // later than all
  p.Add(std::string("a"), {T(30), 0, "a"});  // equal time, earlier tie-break
  p.Add(std::string("a"), {T(15), 4, "a"});  // in between
  p.Add(std::string("a"), {T(40), 5, "a"});  // later than all again
  p.Advance(T(100), op);
  EXPECT_EQ(out.records, (std::vector<std::pair<std::string, int>>{
                             {"a", 1}, {"a", 4}, {"a", 2}, {"a", 0}, {"a", 3}, {"a", 5}}));
}

TEST(KeyedProcessor, ARestoredLastRecordsMarkDecidesItsRepeats) {
  // After Put(), the last record's mark is the restored record's: a repeat with an earlier
  // tie-break replaces it (it is not taken for one that comes after), one with a later
  // tie-break goes, and the same after a swap has put another record last.
  int recognised = 0;
  MarkedRepeatTraits traits;
  traits.recognised = &recognised;
  KeyedProcessor<MarkedRepeatTraits> p(traits);
  Collected out;
  Op op{&out};
  std::vector<int> discarded;
  const auto discard = [&discarded](Traits::State&, Event&& e) { discarded.push_back(e.seq); };
  p.Put("a", {}, {{T(10), 1, "a"}, {T(20), 10, "a"}});
  p.RescheduleAll(op);
  p.AddAt(p.KeyIndex("a"), {T(20), 4, "a"}, discard);   // before the last: replaces it
  p.AddAt(p.KeyIndex("a"), {T(20), 5, "a"}, discard);   // after the new last (4)
  p.AddAt(p.KeyIndex("a"), {T(20), 11, "a"}, discard);  // after both
  p.AddAt(p.KeyIndex("a"), {T(20), 2, "a"}, discard);   // before: replaces 4
  p.AddAt(p.KeyIndex("a"), {T(20), 3, "a"}, discard);   // every third: read, not marked
  p.Advance(T(100), op);
  EXPECT_EQ(out.records, (std::vector<std::pair<std::string, int>>{{"a", 1}, {"a", 2}}));
  EXPECT_EQ(discarded, (std::vector<int>{10, 5, 11, 4, 3}));
  EXPECT_EQ(recognised, 2);  // 5 and 11
}

TEST(KeyRef, CombineHashesIsFixedForever) {
  // The job's key (feed, vehicle) goes to shard CombineHashes(...) % shards, and a resumed
  // run restores each shard's state in place: the value must never change. Computed
  // separately (Python integers) from FastStableHash("rio-brt") and ("86811").
  EXPECT_EQ(KeyRef::CombineHashes(0xa44d74f97946e9aaULL, 0xa4229e413dbe5077ULL),
            0xda87c76e145218dcULL);
  EXPECT_EQ(KeyRef::CombineHashes(base::FastStableHash("rio-brt"), base::FastStableHash("86811")),
            0xda87c76e145218dcULL);
}

}  // namespace
}  // namespace frota::engine
