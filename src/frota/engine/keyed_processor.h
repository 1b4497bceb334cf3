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
#include <unordered_map>
#include <utility>
#include <vector>

#include "frota/base/hash.h"
#include "frota/base/time.h"
#include "frota/base/vector_growth.h"

namespace frota::engine {

using base::Timestamp;

/// A key made of two parts (e.g. feed_id and vehicle_id), looked up without joining
/// them, with its hash computed once by the caller (KeyRef::Of computes it).
struct KeyRef {
  std::string_view first;
  std::string_view second;
  std::uint64_t hash = 0;

  /// The key's hash from its parts' base::FastStableHash values (which a caller may have
  /// cached, e.g. model::StringDictionary::Hash).
  static std::uint64_t CombineHashes(std::uint64_t first, std::uint64_t second) {
    return first ^ (second + 0x9e3779b97f4a7c15ULL + (first << 6) + (first >> 2));
  }
  static KeyRef Of(std::string_view first, std::string_view second) {
    return {first, second,
            CombineHashes(base::FastStableHash(first), base::FastStableHash(second))};
  }
  /// Whether `joined`, the stored form (first, a unit separator, second), is this key.
  [[nodiscard]] bool Matches(std::string_view joined) const {
    return joined.size() == first.size() + 1 + second.size() &&
           joined.compare(0, first.size(), first) == 0 && joined[first.size()] == '\x1f' &&
           joined.compare(first.size() + 1, second.size(), second) == 0;
  }
};

/// Per-key state plus each key's pending records, released to an operator in event-time
/// order once the watermark passes them (semantics.md section 3).
///
/// `Traits` (an instance, given to the constructor) supplies:
///   using Record;  using State;
///   Timestamp EventTime(const Record&) const;
///   bool Before(const Record& a, const Record& b) const;  // strict total order of a key's
///                                                         // records (event time, then a
///                                                         // tie-break independent of arrival)
/// `Operator` (passed to Advance) supplies:
///   void OnRecord(State&, Record&&);                        // in Before() order per key
///   void OnTimer(State&, Timestamp watermark);              // when NextTimer(state) <= W
///   std::optional<Timestamp> NextTimer(const State&) const; // timers are derived from
///                                                           // state, so a restored state
///                                                           // re-arms its own timers
///
/// Records with event time <= W are released; the caller guarantees no record with event
/// time <= W is added afterwards (that is what "late" means). Within one Advance, each
/// due key releases all its records <= W, then fires its timer if due.
///
/// Not thread-safe; one instance per state partition (shard).
template <typename Traits>
class KeyedProcessor {
 public:
  using Record = typename Traits::Record;
  using State = typename Traits::State;

  explicit KeyedProcessor(Traits traits = Traits()) : traits_(std::move(traits)) {}

  /// Buffers `record` under `key`.
  void Add(const KeyRef& key, Record&& record) { AddAt(KeyIndex(key), std::move(record)); }

  /// The dense index of `key` (0, 1, 2... in order of first appearance), created with an
  /// empty state if new. Indices stay valid until the processor is replaced (a restore
  /// builds a new one), so a caller may cache them to skip the key lookup.
  std::uint32_t KeyIndex(const KeyRef& key) { return IndexOf(key); }

  /// Add() for a key already looked up with KeyIndex().
  void AddAt(std::uint32_t index, Record&& record) {
    Entry& entry = entries_[index];
    auto& pending = entry.pending;
    const auto head = pending.begin() + static_cast<std::ptrdiff_t>(entry.head);
    // Mostly in order: search from the back.
    auto it = pending.end();
    while (it != head && traits_.Before(record, *std::prev(it))) {
      --it;
    }
    const bool new_earliest = it == head;
    pending.insert(it, std::move(record));
    ++pending_records_;
    if (new_earliest) {
      Schedule(index);
    }
  }

  /// Releases every record with event time <= watermark and fires due timers.
  template <typename Operator>
  void Advance(Timestamp watermark, Operator& op) {
    while (!due_.empty() && due_.top().time <= watermark) {
      const Due due = due_.top();
      due_.pop();
      Entry& entry = entries_[due.index];
      if (entry.scheduled != due.time) {
        continue;  // stale: the key was rescheduled since
      }
      entry.scheduled = kNever;
      auto& pending = entry.pending;
      std::size_t released = 0;
      while (entry.head < pending.size() &&
             traits_.EventTime(pending[entry.head]) <= watermark) {
        op.OnRecord(entry.state, std::move(pending[entry.head]));
        ++entry.head;
        ++released;
      }
      pending_records_ -= released;
      Compact(entry);
      if (const auto timer = op.NextTimer(entry.state); timer && *timer <= watermark) {
        op.OnTimer(entry.state, watermark);
      }
      Reschedule(due.index, op);
    }
  }

  /// After a restore: re-arm every key from its pending records and its timer.
  template <typename Operator>
  void RescheduleAll(const Operator& op) {
    due_ = {};
    for (std::uint32_t i = 0; i < entries_.size(); ++i) {
      entries_[i].scheduled = kNever;
      Reschedule(i, op);
    }
  }

  /// The state of `key`, created empty if new (for operators that need to touch a key
  /// outside Advance, e.g. to count a rejection).
  State& StateOf(const KeyRef& key) { return entries_[IndexOf(key)].state; }
  /// The state of the key at `index` (from KeyIndex()).
  State& StateAt(std::uint32_t index) { return entries_[index].state; }

  /// Visits every key (for snapshots): f(key, const State&, std::span<const Record> pending).
  template <typename F>
  void ForEach(F&& f) const {
    for (const Entry& entry : entries_) {
      f(std::string_view(entry.key, entry.key_size), entry.state,
        std::span<const Record>(entry.pending.data() + entry.head,
                                entry.pending.size() - entry.head));
    }
  }

  /// Restores one key's state and pending records (call RescheduleAll afterwards). `key`
  /// is the joined form ForEach() gave.
  void Put(std::string_view joined_key, State state, std::vector<Record> pending) {
    const auto separator = joined_key.find('\x1f');
    const KeyRef key = separator == std::string_view::npos
                           ? KeyRef::Of(joined_key, {})
                           : KeyRef::Of(joined_key.substr(0, separator),
                                        joined_key.substr(separator + 1));
    Entry& entry = entries_[IndexOf(key)];
    pending_records_ -= entry.pending.size() - entry.head;
    entry.state = std::move(state);
    entry.pending = std::move(pending);
    entry.head = 0;
    pending_records_ += entry.pending.size();
  }

  [[nodiscard]] std::size_t key_count() const { return entries_.size(); }
  [[nodiscard]] std::size_t pending_records() const { return pending_records_; }

 private:
  static constexpr Timestamp kNever = Timestamp::max();

  struct Entry {
    State state{};
    // Sorted by Traits::Before from `head` on; elements before `head` were released
    // (moved from) and are dropped in bulk, so releasing never shifts the rest.
    std::vector<Record> pending;
    Timestamp scheduled = kNever;  // the time of this key's live entry in due_
    std::uint64_t hash = 0;        // KeyRef::hash
    const char* key = nullptr;     // joined, in key_blocks_
    std::uint32_t key_size = 0;
    std::uint32_t head = 0;
  };

  static void Compact(Entry& entry) {
    if (entry.head == entry.pending.size()) {
      // Give the buffer back: a key with nothing pending may stay silent for good, and
      // with many keys the kept capacity would outweigh their state.
      std::vector<Record>().swap(entry.pending);
      entry.head = 0;
    } else if (entry.head >= 16) {
      entry.pending.erase(entry.pending.begin(),
                          entry.pending.begin() + static_cast<std::ptrdiff_t>(entry.head));
      entry.head = 0;
    }
  }
  struct Due {
    Timestamp time;
    std::uint32_t index;
    bool operator>(const Due& other) const { return time > other.time; }
  };

  // Open addressing with linear probing; a slot holds an entry index + 1 (0: empty), the
  // entry its hash and key. At most half full. Four bytes a slot and keys packed in
  // blocks rather than a std::string each: with a million keys, the joined key's own
  // allocation and 16-byte slots were a sixth of the state (BM_EngineMemoryPerVehicle).
  std::uint32_t IndexOf(const KeyRef& key) {
    if (slots_.empty()) {
      slots_.resize(64);
    }
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = key.hash & mask;; i = (i + 1) & mask) {
      std::uint32_t& slot = slots_[i];
      if (slot == 0) {
        const auto index = static_cast<std::uint32_t>(entries_.size());
        base::ReserveGrowing(entries_, entries_.size() + 1);
        Entry& entry = entries_.emplace_back();
        entry.hash = key.hash;
        StoreKey(entry, key);
        slot = index + 1;
        if (entries_.size() * 2 > slots_.size()) {
          Grow();
        }
        return index;
      }
      const Entry& entry = entries_[slot - 1];
      if (entry.hash == key.hash && key.Matches({entry.key, entry.key_size})) {
        return slot - 1;
      }
    }
  }

  void Grow() {
    slots_.assign(slots_.size() * 2, 0);
    const std::size_t mask = slots_.size() - 1;
    for (std::uint32_t index = 0; index < entries_.size(); ++index) {
      std::size_t i = entries_[index].hash & mask;
      while (slots_[i] != 0) {
        i = (i + 1) & mask;
      }
      slots_[i] = index + 1;
    }
  }

  // Copies the joined key into the current block (a new one when it is full).
  void StoreKey(Entry& entry, const KeyRef& key) {
    const std::size_t size = key.first.size() + 1 + key.second.size();
    if (key_blocks_.empty() || key_block_used_ + size > key_block_size_) {
      key_block_size_ = std::max<std::size_t>(kKeyBlockBytes, size);
      key_blocks_.push_back(std::make_unique<char[]>(key_block_size_));
      key_block_used_ = 0;
    }
    char* out = key_blocks_.back().get() + key_block_used_;
    std::copy(key.first.begin(), key.first.end(), out);
    out[key.first.size()] = '\x1f';
    std::copy(key.second.begin(), key.second.end(), out + key.first.size() + 1);
    key_block_used_ += size;
    entry.key = out;
    entry.key_size = static_cast<std::uint32_t>(size);
  }

  // The earliest pending record is new: make sure the key is due no later than it.
  void Schedule(std::uint32_t index) {
    Entry& entry = entries_[index];
    const Timestamp earliest = traits_.EventTime(entry.pending[entry.head]);
    if (earliest < entry.scheduled) {
      entry.scheduled = earliest;
      due_.push({earliest, index});
    }
  }

  template <typename Operator>
  void Reschedule(std::uint32_t index, const Operator& op) {
    Entry& entry = entries_[index];
    Timestamp next = kNever;
    if (entry.head < entry.pending.size()) {
      next = traits_.EventTime(entry.pending[entry.head]);
    }
    if (const auto timer = op.NextTimer(entry.state)) {
      next = std::min(next, *timer);
    }
    if (next < entry.scheduled) {
      entry.scheduled = next;
      due_.push({next, index});
    }
  }

  static constexpr std::size_t kKeyBlockBytes = 64 * 1024;

  Traits traits_;
  std::vector<std::uint32_t> slots_;
  std::vector<Entry> entries_;
  std::vector<std::unique_ptr<char[]>> key_blocks_;
  std::size_t key_block_used_ = 0;
  std::size_t key_block_size_ = 0;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  std::size_t pending_records_ = 0;
};

}  // namespace frota::engine
