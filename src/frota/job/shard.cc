#include "frota/job/shard.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "frota/base/bytes.h"
#include "frota/base/hash.h"
#include "frota/base/number_format.h"
#include "frota/base/vector_growth.h"
#include "frota/engine/checkpoint.h"
#include "frota/geo/grid.h"
#include "frota/geo/haversine.h"
#include "frota/job/distance.h"
#include "frota/job/shard_internal.h"
#include "frota/job/validation.h"

namespace frota::job {

namespace {

using model::Mode;
using model::RejectReason;

using shard_internal::CurrentTrip;
using shard_internal::ForEachTripInOpenOrder;
using shard_internal::Micros;

std::int64_t ToMillimetres(double metres) { return std::llround(metres * 1000.0); }

// Latency bucket of an accepted position: whole seconds of ingest - event, from -30 s.
int LatencyBucket(std::chrono::microseconds lag_us) {
  const auto lag = std::chrono::floor<std::chrono::seconds>(lag_us).count();
  const auto bucket = lag - model::kLatencyMinSeconds;
  return static_cast<int>(std::clamp<std::int64_t>(bucket, 0, model::kLatencyBuckets - 1));
}

// "implied_speed_kmh={:.1f} distance_m={:.1f} seconds={:.0f}" (base::AppendFixed).
std::string JumpDetail(double implied_kmh, double distance_m, double seconds) {
  std::string detail;
  detail.reserve(64);
  detail += "implied_speed_kmh=";
  base::AppendFixed(detail, implied_kmh, 1);
  detail += " distance_m=";
  base::AppendFixed(detail, distance_m, 1);
  detail += " seconds=";
  base::AppendFixed(detail, seconds, 0);
  return detail;
}

}  // namespace

bool PositionOrder::TieBreak(const model::SourceRef& a, const model::SourceRef& b) const {
  if (a.source != b.source && catalog_ != nullptr) {
    const std::string& name_a = NameOf(a.source);
    const std::string& name_b = NameOf(b.source);
    if (name_a != name_b) {
      return name_a < name_b;
    }
  }
  return a.offset < b.offset;
}

const std::string& PositionOrder::NameOf(model::SourceId id) const {
  if (id >= names_.size()) {
    names_.resize(static_cast<std::size_t>(id) + 1, nullptr);
  }
  const std::string*& name = names_[id];
  if (name == nullptr) {
    name = &catalog_->Name(id);
  }
  return *name;
}

Shard::Shard(std::int32_t partition_id, const JobConfig* config, model::SourceCatalog* catalog,
             std::shared_ptr<model::StringDictionary> strings, model::RowBuffers* row_buffers)
    : partition_id_(partition_id),
      config_(config),
      catalog_(catalog),
      strings_(std::move(strings)),
      row_buffers_(row_buffers),
      vehicles_(PositionOrder(catalog)) {}

void Shard::Add(model::PositionRecord&& position) {
  AddAll(std::span<model::PositionRecord>(&position, 1));
}

void Shard::AddAll(std::span<model::PositionRecord> positions) {
  // A repeat of a buffered position (rule 5) is refused now: the same rows as on
  // release (OnRecord), without waiting for the watermark in the vehicle's buffer.
  vehicles_.AddAll(
      positions,
      [](const model::PositionRecord& position) {
        return VehicleKey(position.feed_id, position.vehicle_id);
      },
      [this](VehicleState& /*state*/, model::PositionRecord&& position) {
        RejectPosition(position, RejectReason::kDuplicate);
      });
}

void Shard::Reject(model::RejectionRecord&& rejection) {
  // A trustworthy event time (rules 1-3 passed) dates the rejection; else the ingest time.
  const bool event_time_trusted =
      rejection.event_time &&
      (rejection.reason == RejectReason::kOutOfArea || rejection.reason == RejectReason::kLate ||
       rejection.reason == RejectReason::kDuplicate || rejection.reason == RejectReason::kJump);
  const Timestamp when = event_time_trusted      ? *rejection.event_time
                         : rejection.ingest_time ? *rejection.ingest_time
                         : rejection.event_time  ? *rejection.event_time
                                                 : Timestamp{};
  auto& counts = QualityFor(rejection.feed_id, when);
  ++counts.rejected[static_cast<std::size_t>(rejection.reason)];
  rows_.rejected.push_back(std::move(rejection));
}

void Shard::RejectPosition(const model::PositionRecord& position, model::RejectReason reason,
                           std::string detail) {
  HourBucket& bucket = BucketFor(LocalHourOf(position.event_time));
  ++bucket.QualityOf(position.feed_id).rejected[static_cast<std::size_t>(reason)];
  if (reason == RejectReason::kDuplicate) {
    // Counted, not stored (semantics §2 rule 5): bronze keeps the record itself.
    ++bucket.duplicates[VehicleKey(position.feed_id, position.vehicle_id)];
    return;
  }
  model::RejectionRecord& rejection = rows_.rejected.emplace_back();
  rejection.reason = reason;
  rejection.feed_id = position.feed_id;
  rejection.vehicle_id = position.vehicle_id;
  rejection.event_time = position.event_time;
  rejection.ingest_time = position.ingest_time;
  rejection.source = position.source;
  rejection.detail = std::move(detail);
}

void Shard::Advance(Timestamp watermark) {
  vehicles_.Advance(watermark, *this);
  FlushHours(watermark);
}

model::EpochRows Shard::TakeRows() {
  model::EpochRows out = std::move(rows_);
  out.strings = strings_;
  rows_ = model::EpochRows();
  if (row_buffers_ != nullptr) {
    rows_.positions = row_buffers_->TakePositions();
    rows_.rejected = row_buffers_->TakeRejected();
  }
  // The next batch is likely as big; but not the burst of an end of input or a long-held
  // watermark, which would stay reserved.
  rows_.positions.reserve(std::min<std::size_t>(out.positions.size(), 1 << 16));
  rows_.rejected.reserve(std::min<std::size_t>(out.rejected.size(), 1 << 16));
  return out;
}

base::LocalHour Shard::LocalHourOf(Timestamp t) {
  if (t < hour_span_.from || t >= hour_span_.until) {
    hour_span_ = config_->time_zone->LocalHourSpan(t);
  }
  return hour_span_.hour;
}

Shard::HourBucket& Shard::BucketFor(base::LocalHour hour) {
  if (last_bucket_ != nullptr && last_bucket_hour_ == hour) {
    return *last_bucket_;
  }
  auto end_it = hour_ends_.find(hour);
  if (end_it == hour_ends_.end()) {
    end_it = hour_ends_.emplace(hour, config_->time_zone->EndOfLocalHour(hour)).first;
    // Keep the memo small: forget hours long gone.
    if (hour_ends_.size() > 4096) {
      hour_ends_.erase(hour_ends_.begin());
    }
  }
  auto [it, inserted] = hours_.try_emplace(end_it->second);
  if (inserted) {
    it->second.hour = hour;
  }
  last_bucket_hour_ = hour;
  last_bucket_ = &it->second;
  return it->second;
}

Shard::QualityCounts& Shard::QualityFor(StringId feed_id, Timestamp t) {
  return BucketFor(LocalHourOf(t)).QualityOf(feed_id);
}

void Shard::OnRecord(VehicleState& state, model::PositionRecord&& position) {
  // Rule 5: the same key and event time as a record already released. Its detail, the
  // event time, is derived where it is written (model::DuplicateDetail). AddAll refuses
  // the repeats of buffered records as they come; this catches the rest (a restored
  // buffer that holds two of one event time).
  if (state.has_released && position.event_time == state.last_released) {
    RejectPosition(position, RejectReason::kDuplicate);
    return;
  }
  state.has_released = true;
  state.last_released = position.event_time;

  // Rule 6: implied speed from the last accepted position.
  const CosPoint here = MakeCosPoint(position.lat, position.lon);
  double segment_m = 0;
  if (state.has_accepted) {
    segment_m = HaversineM(CosPoint{state.last_lat, state.last_lon, state.last_cos_lat}, here);
    const double elapsed_s =
        std::chrono::duration<double>(position.event_time - state.last_time).count();
    const double limit = config_->MaxSpeedKmh(position.mode);
    const double implied_kmh = segment_m / elapsed_s * 3.6;
    if (implied_kmh > limit) {
      RejectPosition(position, RejectReason::kJump, JumpDetail(implied_kmh, segment_m, elapsed_s));
      return;
    }
  }
  AcceptPosition(state, position, here, segment_m);
  rows_.positions.push_back(position);
}

void Shard::AcceptPosition(VehicleState& state, const model::PositionRecord& position,
                           const CosPoint& here, double segment_m) {
  const base::LocalHour hour = LocalHourOf(position.event_time);
  HourBucket& bucket = BucketFor(hour);

  // speed: the segment from the previous accepted position, if the gap allows, summed
  // when its implied speed is plausible for the mode, else only counted.
  if (state.has_accepted) {
    const auto gap = position.event_time - state.last_time;
    if (gap > std::chrono::microseconds(0) && gap <= config_->segment_max_gap) {
      const std::int64_t mm = ToMillimetres(segment_m);
      const std::int64_t us = gap.count();
      const bool plausible = segment_m / std::chrono::duration<double>(gap).count() * 3.6 <=
                             config_->MaxSegmentSpeedKmh(position.mode);
      const auto cell = geo::CellOf(position.lat, position.lon);
      for (Sums* sums : {&bucket.cells[CellKey{position.mode, cell.x, cell.y}],
                         &bucket.lines[LineKey{position.mode, position.route_id}]}) {
        if (plausible) {
          ++sums->segments;
          sums->distance_mm += mm;
          sums->duration_us += us;
        } else {
          ++sums->implausible;
        }
      }
    }
  }

  // fleet_hours and quality: a vehicle counts once per local hour (and, for fleet_hours,
  // mode); the last accepted position's hour and mode say whether it was counted.
  const std::int32_t packed_hour = PackHour(hour);
  const bool new_hour = !state.has_accepted || state.last_hour != packed_hour;
  auto& fleet = bucket.FleetOf(position.mode);
  if (new_hour || state.fleet_mode != position.mode) {
    ++fleet.first;
    state.fleet_mode = position.mode;
  }
  ++fleet.second;
  auto& quality = bucket.QualityOf(position.feed_id);
  ++quality.accepted;
  ++quality.latency[static_cast<std::size_t>(
      LatencyBucket(position.ingest_time - position.event_time))];
  if (new_hour) {
    ++quality.vehicles;
  }
  state.last_hour = packed_hour;

  UpdateStop(state, position, here);
  UpdateTrips(state, position, segment_m);

  state.has_accepted = true;
  state.last_time = position.event_time;
  state.last_lat = position.lat;
  state.last_lon = position.lon;
  state.last_cos_lat = here.cos_lat;
}

void Shard::UpdateStop(VehicleState& state, const model::PositionRecord& position,
                       const CosPoint& here) {
  if (state.run_open) {
    const CosPoint anchor{state.anchor_lat, state.anchor_lon, state.anchor_cos_lat};
    const auto gap = position.event_time - state.last_time;  // the run's last position
    // The cheap bound settles most moving vehicles; the exact distance decides the rest.
    if (gap <= config_->stop_max_gap &&
        !CertainlyFartherThan(anchor, here, config_->stop_radius_m) &&
        HaversineM(anchor, here) <= config_->stop_radius_m) {
      ++state.run_positions;
      return;
    }
    CloseRun(VehicleKey(position.feed_id, position.vehicle_id), state);
  }
  // This position anchors the next candidate.
  state.run_open = true;
  state.run_start = position.event_time;
  state.anchor_lat = position.lat;
  state.anchor_lon = position.lon;
  state.anchor_cos_lat = here.cos_lat;
  state.run_positions = 1;
  state.run_route = position.route_id;
  state.run_mode = position.mode;
}

void Shard::CloseRun(std::uint64_t key, VehicleState& state) {
  // Called before the position that ends the run is accepted: last_time is the run's end.
  if (state.run_open && state.last_time - state.run_start >= config_->stop_min_duration) {
    model::StopRow stop;
    stop.feed_id = Text(FeedOf(key));
    stop.vehicle_id = Text(VehicleOf(key));
    stop.start_time = state.run_start;
    stop.mode = state.run_mode;
    stop.route_id = Text(state.run_route);
    stop.end_time = state.last_time;
    stop.anchor_lat = state.anchor_lat;
    stop.anchor_lon = state.anchor_lon;
    stop.positions = state.run_positions;
    if (config_->near_terminal) {
      stop.near_terminal =
          config_->near_terminal(stop.route_id, state.anchor_lat, state.anchor_lon);
    }
    rows_.of<model::StopRow>().push_back(std::move(stop));
  }
  state.run_open = false;
  state.run_route = 0;
}

void Shard::UpdateTrips(VehicleState& state, const model::PositionRecord& position,
                        double segment_m) {
  // Called before `position` becomes the vehicle's last accepted one.
  OpenTrips& trips = state.trips;
  const std::uint64_t key = VehicleKey(position.feed_id, position.vehicle_id);
  const auto same_trip = [&](const TripStart& trip) {
    return trip.trip_id == position.trip_id && trip.trip_start_date == position.trip_start_date;
  };
  if (trips.has_current()) {
    if (position.trip_id != 0 && same_trip(trips.current())) {
      if (position.event_time - state.last_time <= config_->trip_max_gap) {
        // The trip's last position is the vehicle's: the segment is already measured
        // (same inputs, same bits).
        trips.current().distance_mm += ToMillimetres(segment_m);
        ++trips.current().positions;
        return;
      }
      EmitTrip(key, CurrentTrip(state));
    } else {
      // The position leaves the current trip, which keeps its last position apart.
      trips.AddOther(CurrentTrip(state));
    }
    trips.ClearCurrent();
  }
  if (position.trip_id == 0) {
    return;
  }
  TripStart next;
  for (std::size_t i = 0; i < trips.other_count(); ++i) {
    const OpenTrip& trip = trips.other(i);
    if (same_trip(trip)) {
      if (position.event_time - trip.last_time <= config_->trip_max_gap) {
        next = trip;  // its start and totals; its last position becomes the vehicle's
        next.distance_mm += ToMillimetres(
            geo::HaversineM(trip.last_lat, trip.last_lon, position.lat, position.lon));
        ++next.positions;
      } else {
        EmitTrip(key, trip);
      }
      trips.EraseOther(i);
      break;
    }
  }
  if (next.positions == 0) {
    next.trip_id = position.trip_id;
    next.trip_start_date = position.trip_start_date;
    next.route_id = position.route_id;
    next.trip_start_time = position.trip_start_time;
    next.direction_id = position.direction_id;
    next.first_time = position.event_time;
    next.first_lat = position.lat;
    next.first_lon = position.lon;
    next.positions = 1;
    next.distance_mm = 0;
  }
  trips.current() = next;
}

void OpenTrips::AddOther(const OpenTrip& trip) {
  if (!others_) {
    others_ = std::make_unique<std::vector<OpenTrip>>();
  }
  auto at = others_->end();
  while (at != others_->begin() && trip.first_time < std::prev(at)->first_time) {
    --at;
  }
  others_->insert(at, trip);
}

void OpenTrips::EraseOther(std::size_t i) {
  others_->erase(others_->begin() + static_cast<std::ptrdiff_t>(i));
  if (others_->empty()) {
    others_.reset();
  }
}

void Shard::EmitTrip(std::uint64_t key, const OpenTrip& trip) {
  model::TripRow row;
  row.feed_id = Text(FeedOf(key));
  row.vehicle_id = Text(VehicleOf(key));
  row.trip_id = Text(trip.trip_id);
  row.trip_start_date = Text(trip.trip_start_date);
  row.first_time = trip.first_time;
  row.route_id = Text(trip.route_id);
  row.direction_id = trip.direction_id;
  row.trip_start_time = Text(trip.trip_start_time);
  row.first_lat = trip.first_lat;
  row.first_lon = trip.first_lon;
  row.last_time = trip.last_time;
  row.last_lat = trip.last_lat;
  row.last_lon = trip.last_lon;
  row.positions = trip.positions;
  row.distance_mm = trip.distance_mm;
  if (config_->plan_slot) {
    row.plan_slot = config_->plan_slot(row.trip_id, !row.trip_start_time.empty());
  }
  rows_.of<model::TripRow>().push_back(std::move(row));
}

std::optional<Timestamp> Shard::NextTimer(const VehicleState& state) const {
  std::optional<Timestamp> next;
  const auto consider = [&next](Timestamp due) {
    if (!next || due < *next) {
      next = due;
    }
  };
  if (state.run_open) {
    consider(state.last_time + config_->stop_max_gap);
  }
  if (state.trips.has_current()) {
    consider(state.last_time + config_->trip_max_gap);
  }
  for (std::size_t i = 0; i < state.trips.other_count(); ++i) {
    consider(state.trips.other(i).last_time + config_->trip_max_gap);
  }
  return next;
}

void Shard::OnTimer(std::uint64_t key, VehicleState& state, Timestamp watermark) {
  // A run whose next position would come after a gap > stop_max_gap is over.
  if (state.run_open && watermark >= state.last_time + config_->stop_max_gap) {
    CloseRun(key, state);
  }
  // Trips no position can extend any more, emitted in the order they opened.
  const auto due = [&](const OpenTrip& trip) {
    return watermark >= trip.last_time + config_->trip_max_gap;
  };
  ForEachTripInOpenOrder(state, [&](const OpenTrip& trip) {
    if (due(trip)) {
      EmitTrip(key, trip);
    }
  });
  OpenTrips& trips = state.trips;
  if (trips.has_current() && due(CurrentTrip(state))) {
    trips.ClearCurrent();
  }
  trips.EraseOthersIf(due);
}

void Shard::FlushHours(Timestamp watermark) {
  while (!hours_.empty() && hours_.begin()->first <= watermark) {
    last_bucket_ = nullptr;
    EmitBucket(std::move(hours_.begin()->second));
    hours_.erase(hours_.begin());
  }
}

void Shard::EmitBucket(HourBucket&& bucket) {
  const base::LocalHour hour = bucket.hour;
  for (const auto& [key, sums] : bucket.cells) {
    rows_.of<model::SpeedCellRow>().push_back(
        model::SpeedCellRow{partition_id_, key.mode, hour.date, hour.hour, key.x, key.y,
                            sums.segments, sums.distance_mm, sums.duration_us, sums.implausible});
  }
  for (const auto& [key, sums] : bucket.lines) {
    rows_.of<model::SpeedLineRow>().push_back(
        model::SpeedLineRow{partition_id_, key.mode, Text(key.route_id), hour.date, hour.hour,
                            sums.segments, sums.distance_mm, sums.duration_us, sums.implausible});
  }
  for (const auto& [mode, counts] : bucket.fleet) {
    rows_.of<model::FleetHourRow>().push_back(model::FleetHourRow{
        partition_id_, mode, hour.date, hour.hour, counts.first, counts.second});
  }
  for (const auto& [feed_id, counts] : bucket.quality) {
    model::QualityRow row;
    row.partition_id = partition_id_;
    row.feed_id = Text(feed_id);
    row.local_date = hour.date;
    row.hour = hour.hour;
    row.accepted = counts.accepted;
    row.vehicles = counts.vehicles;
    row.rejected = counts.rejected;
    for (std::size_t b = 0; b < counts.latency.size(); ++b) {
      if (counts.latency[b] != 0) {
        row.latency.emplace_back(static_cast<std::int16_t>(b), counts.latency[b]);
      }
    }
    rows_.of<model::QualityRow>().push_back(std::move(row));
  }
  for (const auto& [key, records] : bucket.duplicates) {
    rows_.of<model::DuplicateCountRow>().push_back(model::DuplicateCountRow{
        partition_id_, Text(FeedOf(key)), Text(VehicleOf(key)), hour.date, hour.hour, records});
  }
}

}  // namespace frota::job
