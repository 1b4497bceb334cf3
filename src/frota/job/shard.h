// One state partition of the jobs: rules 5-6 and the speed, stops, trips and quality jobs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time_zone.h"
#include "frota/engine/keyed_processor.h"
#include "frota/job/config.h"
#include "frota/job/distance.h"
#include "frota/job/flat_map.h"
#include "frota/model/position_record.h"
#include "frota/model/row_buffers.h"
#include "frota/model/rows.h"
#include "frota/model/source.h"
#include "frota/model/string_dictionary.h"

namespace frota::job {

using base::Timestamp;

using StringId = model::StringDictionary::Id;

/// What an open trip keeps besides its last position (semantics.md section 4, trips).
struct TripStart {
  Timestamp first_time;
  double first_lat = 0;
  double first_lon = 0;
  std::int64_t distance_mm = 0;
  StringId trip_id = 0;
  StringId trip_start_date = 0;
  StringId route_id = 0;
  StringId trip_start_time = 0;
  std::int32_t positions = 0;  // at least 1 while the trip is open
  std::int8_t direction_id = -1;
};

/// A trip that is still open for one vehicle, with its last position.
struct OpenTrip : TripStart {
  Timestamp last_time;
  double last_lat = 0;
  double last_lon = 0;
};

/// A vehicle's open trips. Nearly always there is one, the trip of the vehicle's last
/// accepted position, whose last position is therefore the vehicle's own: that "current"
/// trip lives inline without a last position (VehicleState keeps it once). Any others
/// (a feed reassigning trips while the vehicle stands still, or positions without a trip)
/// live on the heap with theirs. A million vehicles paid 104 bytes each for a separately
/// allocated trip, and 24 for the repeated last position (BM_EngineMemoryPerVehicle).
class OpenTrips {
 public:
  /// The trip of the vehicle's last accepted position, if that position had one: its
  /// positions count is 0 otherwise.
  [[nodiscard]] bool has_current() const { return current_.positions > 0; }
  TripStart& current() { return current_; }
  [[nodiscard]] const TripStart& current() const { return current_; }
  void ClearCurrent() { current_ = TripStart{}; }

  /// The other open trips, in the order they opened (by first_time).
  [[nodiscard]] std::size_t other_count() const { return others_ ? others_->size() : 0; }
  [[nodiscard]] const OpenTrip& other(std::size_t i) const { return (*others_)[i]; }
  /// Adds `trip` among the others, in the order of first_time.
  void AddOther(const OpenTrip& trip);
  void EraseOther(std::size_t i);
  /// Removes every other trip `remove(trip)` says to, keeping the rest in order.
  template <typename F>
  void EraseOthersIf(F remove) {
    if (others_) {
      std::erase_if(*others_, remove);
      if (others_->empty()) {
        others_.reset();
      }
    }
  }

 private:
  TripStart current_;
  std::unique_ptr<std::vector<OpenTrip>> others_;
};

/// An hour of local time as one number, for state a million vehicles keep: days since
/// the epoch times 24 plus the hour (base::LocalHour is 16 bytes).
inline std::int32_t PackHour(base::LocalHour h) {
  return base::DaysSinceEpoch(h.date) * 24 + h.hour;
}
inline base::LocalHour UnpackHour(std::int32_t packed) {
  const std::int32_t days = packed >= 0 ? packed / 24 : (packed - 23) / 24;
  return {base::LocalDateFromDays(days), static_cast<std::int8_t>(packed - days * 24)};
}

/// Everything the jobs remember about one vehicle (key = feed_id, vehicle_id).
struct VehicleState {
  // Laid out largest first, flags together: a million vehicles pay for every padding byte
  // (BM_EngineMemoryPerVehicle).
  // Rule 5: the event time of the last record released for the key (has_released).
  Timestamp last_released;
  // Rule 6 and speed: the last accepted position (has_accepted). An open stop run's last
  // position is always this one (every accepted position extends the run or anchors the
  // next), so the run keeps no time of its own for it.
  Timestamp last_time;
  double last_lat = 0;
  double last_lon = 0;
  // cos(last_lat), as MakeCosPoint computed it when the position was accepted: the next
  // position's jump test and segment need it. Computing it again there (and the anchor's
  // in the stop test) took glibc's cos, which saves and restores the rounding mode on
  // every call, three times per position instead of once. Not in snapshots: ReadState
  // computes it again, to the same bits.
  double last_cos_lat = 1;
  // stops: the open candidate run (run_open), from run_start to last_time.
  Timestamp run_start;
  double anchor_lat = 0;
  double anchor_lon = 0;
  double anchor_cos_lat = 1;  // cos(anchor_lat), likewise
  // trips: open trips by (trip_id, trip_start_date); the current one ends at last_time.
  OpenTrips trips;
  // The vehicle's feed and vehicle ids are its engine key's (VehicleKey), not kept here.
  StringId run_route = 0;
  std::int32_t run_positions = 0;
  // fleet_hours and quality vehicles: the local hour (PackHour) and mode of the last
  // accepted position, the last hour both counted the vehicle in (has_accepted).
  std::int32_t last_hour = 0;
  model::Mode fleet_mode = model::Mode::kOther;
  model::Mode run_mode = model::Mode::kOther;
  // One byte for the three: the trips' tail padding and these fit 152 bytes, not 160.
  bool has_released : 1 = false;
  bool has_accepted : 1 = false;
  bool run_open : 1 = false;
};

/// The engine key of a vehicle: its feed and vehicle ids (process-local dictionary ids;
/// snapshots store the texts).
inline std::uint64_t VehicleKey(StringId feed_id, StringId vehicle_id) {
  return (static_cast<std::uint64_t>(feed_id) << 32) | vehicle_id;
}
inline StringId FeedOf(std::uint64_t vehicle_key) {
  return static_cast<StringId>(vehicle_key >> 32);
}
inline StringId VehicleOf(std::uint64_t vehicle_key) { return static_cast<StringId>(vehicle_key); }

/// Orders a key's records: event time, then source name, then offset. The tie-break
/// never depends on arrival, so the first "in source order" of equal event times is the
/// same on every run (rule 5).
class PositionOrder {
 public:
  using Record = model::PositionRecord;
  using State = VehicleState;
  /// (feed_id, vehicle_id) as their dictionary ids, feed in the high half (VehicleKey).
  using Key = std::uint64_t;
  explicit PositionOrder(const model::SourceCatalog* catalog = nullptr) : catalog_(catalog) {}
  [[nodiscard]] static std::uint64_t HashKey(Key key) {
    // splitmix64's finaliser: every bit of both ids reaches the low bits the index uses.
    key = (key ^ (key >> 30)) * 0xbf58476d1ce4e5b9ULL;
    key = (key ^ (key >> 27)) * 0x94d049bb133111ebULL;
    return key ^ (key >> 31);
  }
  [[nodiscard]] Timestamp EventTime(const Record& p) const { return p.event_time; }
  [[nodiscard]] bool Before(const Record& a, const Record& b) const {
    if (a.event_time != b.event_time) {
      return a.event_time < b.event_time;
    }
    return TieBreak(a.source, b.source);
  }
  /// Rule 5: a later record of the same event time is a duplicate, refused when released
  /// whatever else the key holds, so Shard refuses it as it comes instead of buffering
  /// it (engine::KeyedProcessor's repeats).
  [[nodiscard]] static bool Repeats(const Record& earlier, const Record& later) {
    return earlier.event_time == later.event_time;
  }
  /// A record's tie-break, kept for each vehicle's last buffered record: a repeat that
  /// comes after it is refused without reading the record (with a fleet's worth of
  /// vehicles, a cache miss).
  using Mark = model::SourceRef;
  [[nodiscard]] static Mark MarkOf(const Record& p) { return p.source; }
  /// Called for equal event times only, where Repeats is true.
  [[nodiscard]] bool RepeatsMarked(const Mark& earlier, const Record& later) const {
    return TieBreak(earlier, later.source);
  }

 private:
  // Equal event times (a feed's repeats): source name, then offset.
  [[nodiscard]] bool TieBreak(const model::SourceRef& a, const model::SourceRef& b) const;
  // The catalog's name of `id`, remembered: the catalog takes its lock for every lookup,
  // and a feed's repeats tie on event time so often (more than half the records of the
  // simulated Rio day) that two lookups per comparison cost about 1.5 % of a replay's
  // CPU. The catalog's names never move, so the pointers stay valid; one order is used
  // by one shard, so by one thread at a time.
  [[nodiscard]] const std::string& NameOf(model::SourceId id) const;
  const model::SourceCatalog* catalog_;
  mutable std::vector<const std::string*> names_;
};

/// One state partition: the vehicles whose key hashes (or is partitioned) to it, with
/// their pending records, per-vehicle job state and this partition's open hourly
/// aggregates.
///
/// Lifecycle: Add() accepted-so-far records and Reject() refused ones as they arrive;
/// Advance(W) releases records up to the watermark through rules 5-6 and the jobs and
/// emits every result that W makes final; TakeRows() hands the emitted rows to the
/// epoch; Snapshot()/Restore() at epoch boundaries. Not thread-safe; the pipeline runs
/// different shards on different threads.
class Shard {
 public:
  /// `strings` issued the ids of every record added; it outlives the shard. TakeRows
  /// refills the rows it hands out from `row_buffers` (if given), which outlives the shard.
  Shard(std::int32_t partition_id, const JobConfig* config, model::SourceCatalog* catalog,
        std::shared_ptr<model::StringDictionary> strings, model::RowBuffers* row_buffers = nullptr);

  /// A record that passed rules 1-4 and is not late: buffered until W passes it, or
  /// refused at once as the duplicate of one buffered (rule 5).
  void Add(model::PositionRecord&& position);
  /// Add() of each position in turn (moved from), faster than the loop.
  void AddAll(std::span<model::PositionRecord> positions);
  /// A refused record: keep it and count it.
  void Reject(model::RejectionRecord&& rejection);
  /// Releases everything up to `watermark` and emits what became final.
  void Advance(Timestamp watermark);
  /// The rows emitted since the last call.
  model::EpochRows TakeRows();

  /// The partition's whole state as sealed checkpoint bytes.
  [[nodiscard]] std::string Snapshot() const;
  /// Replaces the state with a snapshot's (rows already taken are not restored).
  base::Status Restore(std::string_view bytes);

  [[nodiscard]] std::int32_t partition_id() const { return partition_id_; }
  [[nodiscard]] std::size_t vehicle_count() const { return vehicles_.key_count(); }
  [[nodiscard]] std::size_t pending_records() const { return vehicles_.pending_records(); }

  // The operator interface of engine::KeyedProcessor.
  void OnRecord(VehicleState& state, model::PositionRecord&& position);
  void OnTimer(std::uint64_t key, VehicleState& state, Timestamp watermark);
  [[nodiscard]] std::optional<Timestamp> NextTimer(const VehicleState& state) const;

 private:
  struct Sums {
    std::int64_t segments = 0;
    std::int64_t distance_mm = 0;
    std::int64_t duration_us = 0;
    std::int64_t implausible = 0;  // segments over max_segment_speed_kmh: not in the sums
  };
  struct CellKey {
    model::Mode mode;
    std::int32_t x;
    std::int32_t y;
    bool operator==(const CellKey&) const = default;
  };
  struct CellKeyHash {  // multiplicative: FlatMap takes the high bits
    std::uint64_t operator()(const CellKey& k) const noexcept {
      const auto packed = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.x)) << 32) ^
                          static_cast<std::uint32_t>(k.y) ^
                          (static_cast<std::uint64_t>(k.mode) << 61);
      return packed * 0x9e3779b97f4a7c15ULL;
    }
  };
  struct LineKey {
    model::Mode mode;
    StringId route_id;
    bool operator==(const LineKey&) const = default;
  };
  struct LineKeyHash {
    std::uint64_t operator()(const LineKey& k) const noexcept {
      return ((static_cast<std::uint64_t>(k.route_id) << 3) ^ static_cast<std::uint64_t>(k.mode)) *
             0x9e3779b97f4a7c15ULL;
    }
  };
  struct QualityCounts {
    std::int64_t accepted = 0;
    std::int64_t vehicles = 0;
    std::array<std::int64_t, model::kRejectReasonCount> rejected{};
    std::array<std::int64_t, model::kLatencyBuckets> latency{};
  };
  /// The open aggregates of one local hour.
  struct HourBucket {
    base::LocalHour hour;
    FlatMap<CellKey, Sums, CellKeyHash> cells;
    FlatMap<LineKey, Sums, LineKeyHash> lines;
    std::map<model::Mode, std::pair<std::int64_t, std::int64_t>> fleet;  // vehicles, positions
    std::map<StringId, QualityCounts> quality;                           // by feed_id
    // Rule 5's refusals per vehicle (VehicleKey): duplicate_counts, not rows of rejected.
    std::map<std::uint64_t, std::int64_t> duplicates;
    // The entries the last record used (map nodes never move): most records repeat them.
    std::pair<std::int64_t, std::int64_t>* last_fleet = nullptr;
    model::Mode last_fleet_mode = model::Mode::kOther;
    QualityCounts* last_quality = nullptr;
    StringId last_quality_feed = 0;
    std::pair<std::int64_t, std::int64_t>& FleetOf(model::Mode mode) {
      if (last_fleet == nullptr || last_fleet_mode != mode) {
        last_fleet = &fleet[mode];
        last_fleet_mode = mode;
      }
      return *last_fleet;
    }
    QualityCounts& QualityOf(StringId feed_id) {
      if (last_quality == nullptr || last_quality_feed != feed_id) {
        last_quality = &quality[feed_id];
        last_quality_feed = feed_id;
      }
      return *last_quality;
    }
  };

  HourBucket& BucketFor(base::LocalHour hour);
  /// Local hour of `t`, through a cache of the last hour's UTC span.
  base::LocalHour LocalHourOf(Timestamp t);
  void AcceptPosition(VehicleState& state, const model::PositionRecord& position,
                      const CosPoint& here, double segment_m);
  void UpdateStop(VehicleState& state, const model::PositionRecord& position, const CosPoint& here);
  void CloseRun(std::uint64_t key, VehicleState& state);
  void UpdateTrips(VehicleState& state, const model::PositionRecord& position, double segment_m);
  void EmitTrip(std::uint64_t key, const OpenTrip& trip);
  void RejectPosition(const model::PositionRecord& position, model::RejectReason reason,
                      std::string detail = {});
  [[nodiscard]] std::string Text(StringId id) const { return std::string(strings_->View(id)); }
  void FlushHours(Timestamp watermark);
  void EmitBucket(HourBucket&& bucket);
  QualityCounts& QualityFor(StringId feed_id, Timestamp t);

  std::int32_t partition_id_;
  const JobConfig* config_;
  model::SourceCatalog* catalog_;
  std::shared_ptr<model::StringDictionary> strings_;
  model::RowBuffers* row_buffers_;
  engine::KeyedProcessor<PositionOrder> vehicles_;
  // Open hours by the instant they end (EndOfLocalHour); flushed when W reaches it.
  std::map<Timestamp, HourBucket> hours_;
  std::map<base::LocalHour, Timestamp> hour_ends_;  // memo of EndOfLocalHour
  // Caches: the last local hour span, and the last bucket (cleared when buckets flush).
  base::TimeZone::HourSpan hour_span_{{}, Timestamp::max(), Timestamp::min()};
  base::LocalHour last_bucket_hour_;
  HourBucket* last_bucket_ = nullptr;
  model::EpochRows rows_;
  // The last snapshot's size, to reserve the next one's buffer at once.
  mutable std::size_t snapshot_bytes_hint_ = 0;
};

}  // namespace frota::job
