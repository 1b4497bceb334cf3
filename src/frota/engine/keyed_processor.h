// Keyed state with per-key buffers released in event-time order once the watermark passes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frota/base/block_vector.h"
#include "frota/base/hash.h"
#include "frota/base/time.h"
#include "frota/base/vector_growth.h"

namespace frota::engine {

using base::Timestamp;

/// Hashing of keys made of two parts (e.g. feed_id and vehicle_id), for callers that
/// route keys to state partitions by their text.
struct KeyRef {
  /// The key's hash from its parts' base::FastStableHash values (which a caller may have
  /// cached, e.g. model::StringDictionary::Hash).
  static std::uint64_t CombineHashes(std::uint64_t first, std::uint64_t second) {
    return first ^ (second + 0x9e3779b97f4a7c15ULL + (first << 6) + (first >> 2));
  }
};

namespace keyed_processor_detail {
// Traits::Mark if the traits have one, else an empty stand-in that takes no room.
struct NoMark {};
template <typename Traits>
struct MarkOf {
  using type = NoMark;
};
template <typename Traits>
requires requires { typename Traits::Mark; }
struct MarkOf<Traits> {
  using type = typename Traits::Mark;
};
}  // namespace keyed_processor_detail

/// Per-key state plus each key's pending records, released to an operator in event-time
/// order once the watermark passes them (semantics.md section 3).
///
/// `Traits` (an instance, given to the constructor) supplies:
///   using Record;  using State;
///   using Key;                                            // copyable, ==; e.g. two ids
///   std::uint64_t HashKey(const Key&) const;              // for the key index
///   Timestamp EventTime(const Record&) const;
///   bool Before(const Record& a, const Record& b) const;  // strict total order of a key's
///                                                         // records (event time, then a
///                                                         // tie-break independent of arrival)
///   bool Repeats(const Record& earlier, const Record& later) const;  // optional: see below;
///                                                         // true only for equal event times
///   using Mark;  Mark MarkOf(const Record&) const;        // optional, with Repeats: below
///   bool RepeatsMarked(const Mark& earlier, const Record& later) const;
/// `Operator` (passed to Advance) supplies:
///   void OnRecord(State&, Record&&);                        // in Before() order per key
///   void OnTimer(const Key&, State&, Timestamp watermark);  // when NextTimer(state) <= W
///   std::optional<Timestamp> NextTimer(const State&) const; // timers are derived from
///                                                           // state, so a restored state
///                                                           // re-arms its own timers
///
/// Records with event time <= W are released; the caller guarantees no record with event
/// time <= W is added afterwards (that is what "late" means). Within one Advance, each
/// due key releases all its records <= W, then fires its timer if due.
///
/// Repeats: given a `discard` (AddAt, AddAll), a record that Traits::Repeats says repeats
/// its neighbour in Before() order (`later` right after `earlier`: e.g. the same event
/// time, which the operator refuses on release whatever else comes) is not buffered: the
/// later of the two goes to discard(State&, Record&&) as it is added. Most records of a
/// feed that repeats positions then never wait for the watermark.
///
/// Marks: a key's last record is, with many keys, a cache miss to read, and a feed's
/// repeats all come after it with its event time. With a `Mark` (a few bytes of a record,
/// say its tie-break), each key keeps its last record's mark, and a record of the same
/// event time that RepeatsMarked(mark of the last, record) says comes after the last and
/// repeats it is discarded without reading the last. RepeatsMarked is called only for
/// equal event times; it must be true only where Repeats(last, record) is true and
/// Before(record, last) false, and may be false where it cannot tell (the record is then
/// compared with the buffered ones as without a mark).
///
/// Not thread-safe; one instance per state partition (shard).
template <typename Traits>
class KeyedProcessor {
 public:
  using Record = typename Traits::Record;
  using State = typename Traits::State;
  using Key = typename Traits::Key;
  using Mark = typename keyed_processor_detail::MarkOf<Traits>::type;
  /// AddAt's and AddAll's default: every record buffered, Traits::Repeats not needed.
  struct NoDiscard {
    void operator()(State& /*state*/, Record&& /*record*/) const {}
  };

  explicit KeyedProcessor(Traits traits = Traits()) : traits_(std::move(traits)) {}

  /// Buffers `record` under `key`.
  void Add(const Key& key, Record&& record) { AddAt(KeyIndex(key), std::move(record)); }

  /// The dense index of `key` (0, 1, 2... in order of first appearance), created with an
  /// empty state if new. Indices stay valid until the processor is replaced (a restore
  /// builds a new one), so a caller may cache them to skip the key lookup.
  std::uint32_t KeyIndex(const Key& key) { return IndexOf(key); }

  /// Add() for a key already looked up with KeyIndex(); with a `discard`, repeats are not
  /// buffered (see the class comment).
  template <typename Discard = NoDiscard>
  void AddAt(std::uint32_t index, Record&& record, Discard&& discard = Discard()) {
    Entry& entry = entries_[index];
    if (!entry.pending) {
      if (spare_.empty()) {
        entry.pending = std::make_unique<Pending>();
      } else {
        entry.pending = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    constexpr bool kDiscards = !std::is_same_v<std::remove_cvref_t<Discard>, NoDiscard>;
    auto& pending = entry.pending->records;
    const Timestamp time = traits_.EventTime(record);
    if (entry.pending->head < pending.size()) {
      if (time > entry.pending->last) {
        // Later than every record the key holds (the common case): it goes last, neither
        // before one nor a repeat, so the last record itself, with many keys a cache miss,
        // is not read.
        SetLast(*entry.pending, record, time);
        pending.push_back(std::move(record));
        ++pending_records_;
        return;
      }
      if constexpr (kMarked && kDiscards) {
        if (time == entry.pending->last &&
            traits_.RepeatsMarked(entry.pending->last_mark, record)) {
          // A repeat of the last record, coming after it: known from its mark alone.
          discard(entry.state, std::move(record));
          return;
        }
      }
    }
    const auto head = pending.begin() + static_cast<std::ptrdiff_t>(entry.pending->head);
    // Mostly in order: search from the back.
    auto it = pending.end();
    while (it != head && traits_.Before(record, *std::prev(it))) {
      --it;
    }
    if constexpr (kDiscards) {
      if (it != head && traits_.Repeats(*std::prev(it), record)) {
        discard(entry.state, std::move(record));
        return;
      }
      if (it != pending.end() && traits_.Repeats(record, *it)) {
        // The buffered one is the later: it goes, `record` takes its place.
        std::swap(record, *it);
        if (it == head) {
          Schedule(index);
        }
        if (std::next(it) == pending.end()) {
          SetLast(*entry.pending, *it, time);  // the same time, another mark
        }
        discard(entry.state, std::move(record));
        return;
      }
    }
    const bool new_earliest = it == head;
    if (it == pending.end()) {
      SetLast(*entry.pending, record, time);
    }
    pending.insert(it, std::move(record));
    ++pending_records_;
    if (new_earliest) {
      Schedule(index);
    }
  }

  /// Add() of every record in turn, `key_of(record)` its key; the same result as the loop,
  /// faster on many keys. Adding a record reads three places of its key, each found
  /// through the one before: the entry (its buffer's address), the buffer (its records'
  /// address) and the last record. With more keys than the cache holds, each read missed
  /// it, one after the other: a batch touches every key of a city's fleet, and looking
  /// them all up first (as this did) evicted the first keys before they were added to. So
  /// the batch goes through in one pass: a record's key is looked up (in the key index
  /// alone, whose slot was fetched kSlot records before) and its entry fetched kLookup
  /// records before the record is added, its buffer kBuffer records before, the place
  /// after its last record kTail before; each fetch needs only what an earlier one
  /// brought in. A record later than all its key holds (Pending::last) is appended
  /// without reading the last record, and so is a repeat that its mark (if the traits
  /// have marks) shows comes after it.
  template <typename KeyOf, typename Discard = NoDiscard>
  void AddAll(std::span<Record> records, KeyOf&& key_of, Discard&& discard = Discard()) {
    constexpr std::size_t kSlot = 8;     // records between fetching a key's slot and its lookup
    constexpr std::size_t kLookup = 12;  // records between a key's lookup and its add
    constexpr std::size_t kBuffer = 8;   // ... between fetching its buffer and its add
    constexpr std::size_t kTail = 4;     // ... between fetching where it goes and its add
    static_assert(kLookup > kBuffer && kBuffer > kTail);
    const std::size_t n = records.size();
    batch_indices_.resize(n);
    for (std::size_t i = 0; i < n + kLookup; ++i) {
      if (i + kSlot < n && !slots_.empty()) {
        // The key index's slot where the lookup kSlot records later starts probing (a
        // lookup that grows the index meanwhile makes this a wasted fetch, no more).
        __builtin_prefetch(
            &slots_[traits_.HashKey(key_of(records[i + kSlot])) & (slots_.size() - 1)]);
      }
      if (i < n) {
        batch_indices_[i] = IndexOf(key_of(records[i]));
        // Its entry, whose buffer address is read kLookup - kBuffer records later.
        __builtin_prefetch(&entries_[batch_indices_[i]].pending);
      }
      if (i >= kLookup - kBuffer && i - (kLookup - kBuffer) < n) {
        if (const Pending* pending =
                entries_[batch_indices_[i - (kLookup - kBuffer)]].pending.get()) {
          __builtin_prefetch(pending);
        }
      }
      if (i >= kLookup - kTail && i - (kLookup - kTail) < n) {
        PrefetchTail(batch_indices_[i - (kLookup - kTail)]);
      }
      if (i >= kLookup) {
        AddAt(batch_indices_[i - kLookup], std::move(records[i - kLookup]), discard);
      }
    }
  }

  /// Releases every record with event time <= watermark and fires due timers.
  ///
  /// Keys come due in the order of their due times. Releasing a key reads its entry, its
  /// buffer and its first record, each found through the one before: with more keys than
  /// the cache holds, three misses one after the other, for nearly every key of a fleet
  /// at each advance. So the due keys are taken off the heap first, in that order, then
  /// released in the same order, each one's three places fetched a few keys ahead (as
  /// AddAll does). A key that comes due again by `watermark` (its timer) is released in
  /// the next round.
  template <typename Operator>
  void Advance(Timestamp watermark, Operator& op) {
    while (!due_.empty() && due_.front().time <= watermark) {
      due_now_.clear();
      while (!due_.empty() && due_.front().time <= watermark) {
        due_now_.push_back(PopDue());
      }
      constexpr std::size_t kEntry = 24;   // keys between fetching an entry and releasing it
      constexpr std::size_t kBuffer = 16;  // ... its buffer
      constexpr std::size_t kHead = 8;     // ... its first pending record
      const std::size_t n = due_now_.size();
      for (std::size_t i = 0; i < n + kEntry; ++i) {
        if (i < n) {
          PrefetchEntry(due_now_[i].index);
        }
        if (i >= kEntry - kBuffer && i - (kEntry - kBuffer) < n) {
          if (const Pending* pending =
                  entries_[due_now_[i - (kEntry - kBuffer)].index].pending.get()) {
            __builtin_prefetch(pending);
          }
        }
        if (i >= kEntry - kHead && i - (kEntry - kHead) < n) {
          PrefetchHead(due_now_[i - (kEntry - kHead)].index);
        }
        if (i >= kEntry) {
          Release(due_now_[i - kEntry], watermark, op);
        }
      }
    }
  }

  /// After a restore: re-arm every key from its pending records and its timer.
  template <typename Operator>
  void RescheduleAll(const Operator& op) {
    due_.clear();
    for (std::uint32_t i = 0; i < entries_.size(); ++i) {
      entries_[i].scheduled = kNever;
      Reschedule(i, op);
    }
  }

  /// The state of `key`, created empty if new (for operators that need to touch a key
  /// outside Advance, e.g. to count a rejection).
  State& StateOf(const Key& key) { return entries_[IndexOf(key)].state; }
  /// The state of the key at `index` (from KeyIndex()).
  State& StateAt(std::uint32_t index) { return entries_[index].state; }

  /// Visits every key in order of first appearance (for snapshots):
  /// f(const Key&, const State&, std::span<const Record> pending).
  template <typename F>
  void ForEach(F&& f) const {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      const Entry& entry = entries_[i];
      if (entry.pending) {
        const auto& records = entry.pending->records;
        f(entry.key, entry.state,
          std::span<const Record>(records.data() + entry.pending->head,
                                  records.size() - entry.pending->head));
      } else {
        f(entry.key, entry.state, std::span<const Record>());
      }
    }
  }

  /// Restores one key's state and pending records (call RescheduleAll afterwards).
  void Put(const Key& key, State state, std::vector<Record> pending) {
    Entry& entry = entries_[IndexOf(key)];
    if (entry.pending) {
      pending_records_ -= entry.pending->records.size() - entry.pending->head;
      entry.pending.reset();
    }
    entry.state = std::move(state);
    if (!pending.empty()) {
      pending_records_ += pending.size();
      entry.pending = std::make_unique<Pending>();
      entry.pending->records = std::move(pending);
      const Record& last = entry.pending->records.back();
      SetLast(*entry.pending, last, traits_.EventTime(last));
    }
  }

  [[nodiscard]] std::size_t key_count() const { return entries_.size(); }
  [[nodiscard]] std::size_t pending_records() const { return pending_records_; }

 private:
  static constexpr Timestamp kNever = Timestamp::max();

  // A key's records waiting for the watermark, sorted by Traits::Before from `head` on;
  // those before `head` were released (moved from) and are dropped in bulk, so releasing
  // never shifts the rest. Allocated only while the key has some: with a million keys,
  // an empty vector and its cursor in every entry were 28 bytes each.
  struct Pending {
    std::vector<Record> records;
    std::uint32_t head = 0;
    // The event time of records.back() while head < records.size(), and its mark (if the
    // traits have marks): AddAt compares with them instead of reading the record.
    Timestamp last{};
    [[no_unique_address]] Mark last_mark{};
  };
  static constexpr bool kMarked = !std::is_same_v<Mark, keyed_processor_detail::NoMark>;
  void SetLast(Pending& pending, const Record& record, Timestamp time) const {
    pending.last = time;
    if constexpr (kMarked) {
      pending.last_mark = traits_.MarkOf(record);
    }
  }

  struct Entry {
    State state{};
    Timestamp scheduled = kNever;  // the time of this key's live entry in due_
    std::unique_ptr<Pending> pending;
    Key key{};
  };

  void Compact(Entry& entry) {
    Pending& p = *entry.pending;
    if (p.head == p.records.size()) {
      // Give the buffer back: a key with nothing pending may stay silent for good, and
      // with many keys the kept capacity would outweigh their state. A few thousand are
      // kept for the next keys, whose records mostly come a poll later: a city's fleet
      // reuses them without an allocation per record.
      if (spare_.size() < kMaxSpare) {
        p.records.clear();
        p.head = 0;
        spare_.push_back(std::move(entry.pending));
      } else {
        entry.pending.reset();
      }
    } else if (p.head >= 16) {
      p.records.erase(p.records.begin(), p.records.begin() + static_cast<std::ptrdiff_t>(p.head));
      p.head = 0;
    }
  }
  // Brings in the place after the last pending record of the key at `index`, where
  // AddAt writes (it compares with Pending::last, not the record); a hint only, so a
  // buffer that changes before then does no harm.
  void PrefetchTail(std::uint32_t index) const {
    const Pending* pending = entries_[index].pending.get();
    if (pending == nullptr || pending->records.empty()) {
      return;
    }
    const Record* end = pending->records.data() + pending->records.size();
    __builtin_prefetch(end, /*rw=*/1);
    __builtin_prefetch(reinterpret_cast<const char*>(end + 1) - 1, /*rw=*/1);
  }

  // 12 bytes, not 16: a million keys each have one, and time needs no 8-byte alignment
  // to be read on the targets we build for.
#pragma pack(push, 4)
  struct Due {
    Timestamp time;
    std::uint32_t index;
  };
#pragma pack(pop)
  static_assert(sizeof(Due) == 12);
  // due_ is a min-heap on time, in a vector grown by an eighth (base::ReserveGrowing).
  struct Later {
    bool operator()(const Due& a, const Due& b) const { return a.time > b.time; }
  };
  void PushDue(Due due) {
    base::ReserveGrowing(due_, due_.size() + 1);
    due_.push_back(due);
    std::push_heap(due_.begin(), due_.end(), Later{});
  }
  Due PopDue() {
    std::pop_heap(due_.begin(), due_.end(), Later{});
    const Due due = due_.back();
    due_.pop_back();
    return due;
  }

  // Advance's work for one key taken off the heap: unless stale (the key was rescheduled
  // since), its records <= watermark go to the operator, then its timer fires if due, then
  // the key is due again at its next record or timer.
  template <typename Operator>
  void Release(const Due& due, Timestamp watermark, Operator& op) {
    Entry& entry = entries_[due.index];
    if (entry.scheduled != due.time) {
      return;
    }
    entry.scheduled = kNever;
    if (entry.pending) {
      auto& pending = entry.pending->records;
      std::uint32_t& head = entry.pending->head;
      std::size_t released = 0;
      while (head < pending.size() && traits_.EventTime(pending[head]) <= watermark) {
        op.OnRecord(entry.state, std::move(pending[head]));
        ++head;
        ++released;
      }
      pending_records_ -= released;
      Compact(entry);
    }
    if (const auto timer = op.NextTimer(entry.state); timer && *timer <= watermark) {
      op.OnTimer(entry.key, entry.state, watermark);
    }
    Reschedule(due.index, op);
  }

  // Hints for Advance, each reading only what the one before brought in: the whole entry
  // (state, due time, buffer address), then (AddAll's too) the buffer, then its first
  // pending record.
  void PrefetchEntry(std::uint32_t index) const {
    const char* entry = reinterpret_cast<const char*>(&entries_[index]);
    for (std::size_t offset = 0; offset < sizeof(Entry); offset += 64) {
      __builtin_prefetch(entry + offset);
    }
    __builtin_prefetch(entry + sizeof(Entry) - 1);
  }
  void PrefetchHead(std::uint32_t index) const {
    const Pending* pending = entries_[index].pending.get();
    if (pending == nullptr || pending->head >= pending->records.size()) {
      return;
    }
    const Record* head = pending->records.data() + pending->head;
    __builtin_prefetch(head);
    __builtin_prefetch(reinterpret_cast<const char*>(head + 1) - 1);
  }

  // Open addressing with linear probing; a slot holds an entry index + 1 (0: empty). At
  // most 70 % full; the hash is recomputed from the key (Traits::HashKey) rather than
  // kept: four bytes a slot and none in the entry, for tables of a million keys
  // (BM_EngineMemoryPerVehicle).
  std::uint32_t IndexOf(const Key& key) {
    if (slots_.empty()) {
      slots_.resize(64);
    }
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = traits_.HashKey(key) & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.index == 0) {
        const auto index = static_cast<std::uint32_t>(entries_.size());
        Entry& entry = entries_.emplace_back();
        entry.key = key;
        slot.key = key;
        slot.index = index + 1;
        if (entries_.size() * 10 > slots_.size() * 7) {
          Grow();
        }
        return index;
      }
      if (slot.key == key) {
        return slot.index - 1;
      }
    }
  }

  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (Slot& slot : old) {
      if (slot.index == 0) {
        continue;
      }
      std::size_t i = traits_.HashKey(slot.key) & mask;
      while (slots_[i].index != 0) {
        i = (i + 1) & mask;
      }
      slots_[i] = std::move(slot);
    }
  }

  // The earliest pending record is new: make sure the key is due no later than it.
  void Schedule(std::uint32_t index) {
    Entry& entry = entries_[index];
    const Timestamp earliest = traits_.EventTime(entry.pending->records[entry.pending->head]);
    if (earliest < entry.scheduled) {
      entry.scheduled = earliest;
      PushDue({earliest, index});
    }
  }

  template <typename Operator>
  void Reschedule(std::uint32_t index, const Operator& op) {
    Entry& entry = entries_[index];
    Timestamp next = kNever;
    if (entry.pending && entry.pending->head < entry.pending->records.size()) {
      next = traits_.EventTime(entry.pending->records[entry.pending->head]);
    }
    if (const auto timer = op.NextTimer(entry.state)) {
      next = std::min(next, *timer);
    }
    if (next < entry.scheduled) {
      entry.scheduled = next;
      PushDue({next, index});
    }
  }

  static constexpr std::size_t kMaxSpare = 4096;

  Traits traits_;
  std::vector<std::unique_ptr<Pending>> spare_;  // emptied buffers, for the next keys
  // The key index: open addressing, each slot the key itself and its entry's index + 1
  // (0: empty). The key is kept here, not only in its entry, so that a lookup reads the
  // slots alone: comparing entries' keys cost a cache miss per record once a fleet's
  // entries outgrew the cache (8 times the Rio day: IndexOf 3.4 % -> 10.3 % of a
  // replay's samples, for a key index of 1 MB against entries of 9 MB).
  struct Slot {
    Key key{};
    std::uint32_t index = 0;
  };
  std::vector<Slot> slots_;
  base::BlockVector<Entry> entries_;  // by index; never moved, so never copied
  std::vector<Due> due_;
  std::vector<Due> due_now_;                  // Advance's keys due in this round, reused
  std::vector<std::uint32_t> batch_indices_;  // AddAll's keys, reused
  std::size_t pending_records_ = 0;
};

}  // namespace frota::engine
