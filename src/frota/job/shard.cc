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
#include "frota/job/validation.h"

namespace frota::job {

namespace {

using model::Mode;
using model::RejectReason;

constexpr std::string_view kCheckpointKind = "job-shard";
constexpr std::uint32_t kCheckpointVersion = 1;

std::int64_t Micros(Timestamp t) { return base::ToUnixMicros(t); }

std::int64_t ToMillimetres(double metres) { return std::llround(metres * 1000.0); }

// Latency bucket of an accepted position: whole seconds of ingest - event, from -30 s.
int LatencyBucket(std::chrono::microseconds lag_us) {
  const auto lag = std::chrono::floor<std::chrono::seconds>(lag_us).count();
  const auto bucket = lag - model::kLatencyMinSeconds;
  return static_cast<int>(std::clamp<std::int64_t>(bucket, 0, model::kLatencyBuckets - 1));
}

// The vehicle's current trip as an open trip: its last position is the vehicle's.
OpenTrip CurrentTrip(const VehicleState& state) {
  OpenTrip trip;
  static_cast<TripStart&>(trip) = state.trips.current();
  trip.last_time = state.last_time;
  trip.last_lat = state.last_lat;
  trip.last_lon = state.last_lon;
  return trip;
}

// Visits a vehicle's open trips in the order they opened, each with its last position:
// f(const OpenTrip&).
template <typename F>
void ForEachTripInOpenOrder(const VehicleState& state, F&& f) {
  const OpenTrips& trips = state.trips;
  bool current_done = !trips.has_current();
  for (std::size_t i = 0; i < trips.other_count(); ++i) {
    if (!current_done && trips.current().first_time < trips.other(i).first_time) {
      f(CurrentTrip(state));
      current_done = true;
    }
    f(trips.other(i));
  }
  if (!current_done) {
    f(CurrentTrip(state));
  }
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
             std::shared_ptr<model::StringDictionary> strings)
    : partition_id_(partition_id),
      config_(config),
      catalog_(catalog),
      strings_(std::move(strings)),
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
      rejection.event_time && (rejection.reason == RejectReason::kOutOfArea ||
                               rejection.reason == RejectReason::kLate ||
                               rejection.reason == RejectReason::kDuplicate ||
                               rejection.reason == RejectReason::kJump);
  const Timestamp when = event_time_trusted          ? *rejection.event_time
                         : rejection.ingest_time     ? *rejection.ingest_time
                         : rejection.event_time      ? *rejection.event_time
                                                     : Timestamp{};
  auto& counts = QualityFor(rejection.feed_id, when);
  ++counts.rejected[static_cast<std::size_t>(rejection.reason)];
  rows_.rejected.push_back(std::move(rejection));
}

void Shard::RejectPosition(const model::PositionRecord& position, model::RejectReason reason,
                           std::string detail) {
  auto& counts = QualityFor(position.feed_id, position.event_time);
  ++counts.rejected[static_cast<std::size_t>(reason)];
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
    const double limit =
        position.mode == Mode::kAircraft ? config_->aircraft_jump_kmh : config_->jump_kmh;
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

  // speed: the segment from the previous accepted position, if the gap allows.
  if (state.has_accepted) {
    const auto gap = position.event_time - state.last_time;
    if (gap > std::chrono::microseconds(0) && gap <= config_->segment_max_gap) {
      const std::int64_t mm = ToMillimetres(segment_m);
      const std::int64_t us = gap.count();
      const auto cell = geo::CellOf(position.lat, position.lon);
      Sums& cell_sums = bucket.cells[CellKey{position.mode, cell.x, cell.y}];
      ++cell_sums.segments;
      cell_sums.distance_mm += mm;
      cell_sums.duration_us += us;
      Sums& line_sums = bucket.lines[LineKey{position.mode, position.route_id}];
      ++line_sums.segments;
      line_sums.distance_mm += mm;
      line_sums.duration_us += us;
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
  ++quality.latency[static_cast<std::size_t>(LatencyBucket(position.ingest_time - position.event_time))];
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
      stop.near_terminal = config_->near_terminal(stop.route_id, state.anchor_lat,
                                                  state.anchor_lon);
    }
    rows_.stops.push_back(std::move(stop));
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
  rows_.trips.push_back(std::move(row));
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
    rows_.speed_cells.push_back(model::SpeedCellRow{partition_id_, key.mode, hour.date, hour.hour,
                                                     key.x, key.y, sums.segments,
                                                     sums.distance_mm, sums.duration_us});
  }
  for (const auto& [key, sums] : bucket.lines) {
    rows_.speed_lines.push_back(model::SpeedLineRow{partition_id_, key.mode, Text(key.route_id),
                                                    hour.date, hour.hour, sums.segments,
                                                    sums.distance_mm, sums.duration_us});
  }
  for (const auto& [mode, counts] : bucket.fleet) {
    rows_.fleet_hours.push_back(
        model::FleetHourRow{partition_id_, mode, hour.date, hour.hour, counts.first, counts.second});
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
    rows_.quality.push_back(std::move(row));
  }
}

// ---------------------------------------------------------------------------------------
// Snapshot format (version 1), inside a sealed checkpoint of kind "job-shard":
//   source names table, partition_id, vehicles (key, state, pending positions), open hour
//   buckets. Ids are process-local (source catalog, string dictionary), so the bytes hold
//   source-table indices and strings; Restore interns them again.

namespace {

class SourceTable {
 public:
  explicit SourceTable(const model::SourceCatalog* catalog) : catalog_(catalog) {}
  std::uint32_t Ref(model::SourceId id) {
    const auto [it, inserted] = refs_.try_emplace(id, static_cast<std::uint32_t>(order_.size()));
    if (inserted) {
      order_.push_back(id);
    }
    return it->second;
  }
  void Write(base::ByteWriter& w) const {
    w.Varint(order_.size());
    for (const auto id : order_) {
      w.String(catalog_ != nullptr ? std::string_view(catalog_->Name(id)) : std::string_view());
    }
  }

 private:
  const model::SourceCatalog* catalog_;
  std::unordered_map<model::SourceId, std::uint32_t> refs_;
  std::vector<model::SourceId> order_;
};

// Reads a string and interns it (`kind`: as a key, for vehicle ids).
base::Result<StringId> ReadId(
    base::ByteReader& r, model::StringDictionary& strings,
    model::StringDictionary::Kind kind = model::StringDictionary::Kind::kText) {
  FROTA_ASSIGN_OR_RETURN(const auto text, r.String());
  return strings.Intern(text, model::StringDictionary::TextHash(text), kind);
}

void WriteHour(base::ByteWriter& w, base::LocalHour h) {
  w.SignedVarint(base::DaysSinceEpoch(h.date));
  w.U8(static_cast<std::uint8_t>(h.hour));
}

base::Result<base::LocalHour> ReadHour(base::ByteReader& r) {
  FROTA_ASSIGN_OR_RETURN(const auto days, r.SignedVarint());
  FROTA_ASSIGN_OR_RETURN(const auto hour, r.U8());
  if (hour > 23) {
    return base::InvalidInput("bad hour {} in shard state", hour);
  }
  return base::LocalHour{base::LocalDateFromDays(static_cast<std::int32_t>(days)),
                         static_cast<std::int8_t>(hour)};
}

base::Result<Mode> ReadMode(base::ByteReader& r) {
  FROTA_ASSIGN_OR_RETURN(const auto v, r.U8());
  if (v > static_cast<std::uint8_t>(Mode::kOther)) {
    return base::InvalidInput("bad mode {} in shard state", v);
  }
  return static_cast<Mode>(v);
}

void WritePosition(base::ByteWriter& w, const model::PositionRecord& p,
                   const model::StringDictionary& strings, SourceTable& sources) {
  for (const StringId id : {p.feed_id, p.vehicle_id, p.route_id, p.trip_id, p.trip_start_date,
                            p.trip_start_time}) {
    w.String(strings.View(id));
  }
  w.U8(static_cast<std::uint8_t>(p.direction_id));
  w.U8(static_cast<std::uint8_t>(p.mode));
  w.Bool(p.event_time_from_header);
  w.F64(p.lat);
  w.F64(p.lon);
  w.F32(p.reported_speed_kmh);
  w.F32(p.bearing_deg);
  w.F32(p.altitude_m);
  w.U8(static_cast<std::uint8_t>(p.on_ground));
  w.I64(Micros(p.event_time));
  w.I64(Micros(p.ingest_time));
  w.Varint(sources.Ref(p.source.source));
  w.SignedVarint(p.source.offset);
}

base::Result<model::PositionRecord> ReadPosition(base::ByteReader& r,
                                                 model::StringDictionary& strings,
                                                 const std::vector<model::SourceId>& sources) {
  model::PositionRecord p;
  for (StringId* id : {&p.feed_id, &p.vehicle_id, &p.route_id, &p.trip_id, &p.trip_start_date,
                       &p.trip_start_time}) {
    FROTA_ASSIGN_OR_RETURN(*id, ReadId(r, strings));
  }
  FROTA_ASSIGN_OR_RETURN(const auto direction, r.U8());
  p.direction_id = static_cast<std::int8_t>(direction);
  FROTA_ASSIGN_OR_RETURN(p.mode, ReadMode(r));
  FROTA_ASSIGN_OR_RETURN(p.event_time_from_header, r.Bool());
  FROTA_ASSIGN_OR_RETURN(p.lat, r.F64());
  FROTA_ASSIGN_OR_RETURN(p.lon, r.F64());
  FROTA_ASSIGN_OR_RETURN(p.reported_speed_kmh, r.F32());
  FROTA_ASSIGN_OR_RETURN(p.bearing_deg, r.F32());
  FROTA_ASSIGN_OR_RETURN(p.altitude_m, r.F32());
  FROTA_ASSIGN_OR_RETURN(const auto on_ground, r.U8());
  p.on_ground = static_cast<std::int8_t>(on_ground);
  FROTA_ASSIGN_OR_RETURN(const auto event_us, r.I64());
  FROTA_ASSIGN_OR_RETURN(const auto ingest_us, r.I64());
  p.event_time = base::FromUnixMicros(event_us);
  p.ingest_time = base::FromUnixMicros(ingest_us);
  FROTA_ASSIGN_OR_RETURN(const auto source_ref, r.Varint());
  if (source_ref >= sources.size()) {
    return base::InvalidInput("bad source reference {} in shard state", source_ref);
  }
  p.source.source = sources[source_ref];
  FROTA_ASSIGN_OR_RETURN(p.source.offset, r.SignedVarint());
  return p;
}

void WriteTrip(base::ByteWriter& w, const OpenTrip& t, const model::StringDictionary& strings) {
  for (const StringId id : {t.trip_id, t.trip_start_date, t.route_id, t.trip_start_time}) {
    w.String(strings.View(id));
  }
  w.U8(static_cast<std::uint8_t>(t.direction_id));
  w.I64(Micros(t.first_time));
  w.F64(t.first_lat);
  w.F64(t.first_lon);
  w.I64(Micros(t.last_time));
  w.F64(t.last_lat);
  w.F64(t.last_lon);
  w.SignedVarint(t.positions);
  w.SignedVarint(t.distance_mm);
}

base::Result<OpenTrip> ReadTrip(base::ByteReader& r, model::StringDictionary& strings) {
  OpenTrip t;
  for (StringId* id : {&t.trip_id, &t.trip_start_date, &t.route_id, &t.trip_start_time}) {
    FROTA_ASSIGN_OR_RETURN(*id, ReadId(r, strings));
  }
  FROTA_ASSIGN_OR_RETURN(const auto direction, r.U8());
  t.direction_id = static_cast<std::int8_t>(direction);
  FROTA_ASSIGN_OR_RETURN(const auto first_us, r.I64());
  t.first_time = base::FromUnixMicros(first_us);
  FROTA_ASSIGN_OR_RETURN(t.first_lat, r.F64());
  FROTA_ASSIGN_OR_RETURN(t.first_lon, r.F64());
  FROTA_ASSIGN_OR_RETURN(const auto last_us, r.I64());
  t.last_time = base::FromUnixMicros(last_us);
  FROTA_ASSIGN_OR_RETURN(t.last_lat, r.F64());
  FROTA_ASSIGN_OR_RETURN(t.last_lon, r.F64());
  FROTA_ASSIGN_OR_RETURN(const auto positions, r.SignedVarint());
  if (positions < 1 || positions > std::numeric_limits<std::int32_t>::max()) {
    return base::InvalidInput("shard state: an open trip with {} positions", positions);
  }
  t.positions = static_cast<std::int32_t>(positions);
  FROTA_ASSIGN_OR_RETURN(t.distance_mm, r.SignedVarint());
  return t;
}

// The vehicle's key is written with its state (as in version 1, when the state held it).
void WriteState(base::ByteWriter& w, std::uint64_t key, const VehicleState& s,
                const model::StringDictionary& strings) {
  w.String(strings.View(FeedOf(key)));
  w.String(strings.View(VehicleOf(key)));
  w.Bool(s.has_released);
  w.I64(Micros(s.last_released));
  w.Bool(s.has_accepted);
  w.I64(Micros(s.last_time));
  w.F64(s.last_lat);
  w.F64(s.last_lon);
  // fleet_hours' and quality's hours (version 1 kept them apart; they are always the
  // last accepted position's).
  w.Bool(s.has_accepted);
  WriteHour(w, UnpackHour(s.last_hour));
  w.U8(static_cast<std::uint8_t>(s.fleet_mode));
  w.Bool(s.has_accepted);
  WriteHour(w, UnpackHour(s.last_hour));
  w.Bool(s.run_open);
  w.I64(Micros(s.run_start));
  w.I64(Micros(s.last_time));  // the run's last position (version 1 kept it apart)
  w.F64(s.anchor_lat);
  w.F64(s.anchor_lon);
  w.SignedVarint(s.run_positions);
  w.String(strings.View(s.run_route));
  w.U8(static_cast<std::uint8_t>(s.run_mode));
  // Open trips in the order they opened, each with its last position.
  w.Varint((s.trips.has_current() ? 1 : 0) + s.trips.other_count());
  ForEachTripInOpenOrder(s, [&](const OpenTrip& trip) { WriteTrip(w, trip, strings); });
}

// Reads a state and its vehicle's key (VehicleKey) into `key`.
base::Result<VehicleState> ReadState(base::ByteReader& r, model::StringDictionary& strings,
                                     std::uint64_t& key) {
  VehicleState s;
  FROTA_ASSIGN_OR_RETURN(const StringId feed_id, ReadId(r, strings));
  FROTA_ASSIGN_OR_RETURN(const StringId vehicle_id,
                         ReadId(r, strings, model::StringDictionary::Kind::kKey));
  key = VehicleKey(feed_id, vehicle_id);
  FROTA_ASSIGN_OR_RETURN(s.has_released, r.Bool());
  FROTA_ASSIGN_OR_RETURN(const auto released_us, r.I64());
  s.last_released = base::FromUnixMicros(released_us);
  FROTA_ASSIGN_OR_RETURN(s.has_accepted, r.Bool());
  FROTA_ASSIGN_OR_RETURN(const auto last_us, r.I64());
  s.last_time = base::FromUnixMicros(last_us);
  FROTA_ASSIGN_OR_RETURN(s.last_lat, r.F64());
  FROTA_ASSIGN_OR_RETURN(s.last_lon, r.F64());
  s.last_cos_lat = MakeCosPoint(s.last_lat, s.last_lon).cos_lat;
  FROTA_ASSIGN_OR_RETURN(const bool has_fleet_hour, r.Bool());
  FROTA_ASSIGN_OR_RETURN(const auto fleet_hour, ReadHour(r));
  FROTA_ASSIGN_OR_RETURN(s.fleet_mode, ReadMode(r));
  FROTA_ASSIGN_OR_RETURN(const bool has_quality_hour, r.Bool());
  FROTA_ASSIGN_OR_RETURN(const auto quality_hour, ReadHour(r));
  s.last_hour = PackHour(fleet_hour);
  if (has_fleet_hour != s.has_accepted || has_quality_hour != s.has_accepted ||
      PackHour(quality_hour) != s.last_hour) {
    return base::InvalidInput(
        "shard state: the hours counted for fleet_hours and quality are not the last "
        "accepted position's");
  }
  FROTA_ASSIGN_OR_RETURN(s.run_open, r.Bool());
  FROTA_ASSIGN_OR_RETURN(const auto run_start_us, r.I64());
  FROTA_ASSIGN_OR_RETURN(const auto run_last_us, r.I64());
  s.run_start = base::FromUnixMicros(run_start_us);
  if (s.run_open && run_last_us != last_us) {
    return base::InvalidInput("shard state: an open stop run ends at {} µs, not at the last "
                              "accepted position ({} µs)",
                              run_last_us, last_us);
  }
  FROTA_ASSIGN_OR_RETURN(s.anchor_lat, r.F64());
  FROTA_ASSIGN_OR_RETURN(s.anchor_lon, r.F64());
  s.anchor_cos_lat = MakeCosPoint(s.anchor_lat, s.anchor_lon).cos_lat;
  FROTA_ASSIGN_OR_RETURN(const auto run_positions, r.SignedVarint());
  s.run_positions = static_cast<std::int32_t>(run_positions);
  FROTA_ASSIGN_OR_RETURN(s.run_route, ReadId(r, strings));
  FROTA_ASSIGN_OR_RETURN(s.run_mode, ReadMode(r));
  FROTA_ASSIGN_OR_RETURN(const auto trips, r.Varint());
  // The trip that ends at the last accepted position is the current one.
  Timestamp opened_before = Timestamp::min();
  for (std::uint64_t i = 0; i < trips; ++i) {
    FROTA_ASSIGN_OR_RETURN(const OpenTrip trip, ReadTrip(r, strings));
    if (i > 0 && trip.first_time <= opened_before) {
      return base::InvalidInput("shard state: open trips out of the order they opened");
    }
    opened_before = trip.first_time;
    if (s.has_accepted && trip.last_time == s.last_time && trip.last_lat == s.last_lat &&
        trip.last_lon == s.last_lon) {
      if (s.trips.has_current()) {
        return base::InvalidInput("shard state: two open trips end at the last accepted "
                                  "position");
      }
      s.trips.current() = trip;
    } else {
      s.trips.AddOther(trip);
    }
  }
  return s;
}

void WriteSums(base::ByteWriter& w, std::int64_t segments, std::int64_t mm, std::int64_t us) {
  w.SignedVarint(segments);
  w.SignedVarint(mm);
  w.SignedVarint(us);
}

}  // namespace

std::string Shard::Snapshot() const {
  base::ByteWriter body;
  body.Reserve(snapshot_bytes_hint_ + snapshot_bytes_hint_ / 8);  // no regrowth, mostly
  SourceTable sources(catalog_);
  body.SignedVarint(partition_id_);
  body.Varint(vehicles_.key_count());
  std::string key_text;
  vehicles_.ForEach([&](PositionOrder::Key key, const VehicleState& state,
                        std::span<const model::PositionRecord> pending) {
    // The key as text: feed_id, a unit separator, vehicle_id (ids are process-local).
    key_text.assign(strings_->View(FeedOf(key)));
    key_text += '\x1f';
    key_text += strings_->View(VehicleOf(key));
    body.String(key_text);
    WriteState(body, key, state, *strings_);
    body.Varint(pending.size());
    for (const auto& p : pending) {
      WritePosition(body, p, *strings_, sources);
    }
  });
  body.Varint(hours_.size());
  for (const auto& [end, bucket] : hours_) {
    body.I64(Micros(end));
    WriteHour(body, bucket.hour);
    body.Varint(bucket.cells.size());
    for (const auto& [key, sums] : bucket.cells) {
      body.U8(static_cast<std::uint8_t>(key.mode));
      body.SignedVarint(key.x);
      body.SignedVarint(key.y);
      WriteSums(body, sums.segments, sums.distance_mm, sums.duration_us);
    }
    body.Varint(bucket.lines.size());
    for (const auto& [key, sums] : bucket.lines) {
      body.U8(static_cast<std::uint8_t>(key.mode));
      body.String(strings_->View(key.route_id));
      WriteSums(body, sums.segments, sums.distance_mm, sums.duration_us);
    }
    body.Varint(bucket.fleet.size());
    for (const auto& [mode, counts] : bucket.fleet) {
      body.U8(static_cast<std::uint8_t>(mode));
      body.SignedVarint(counts.first);
      body.SignedVarint(counts.second);
    }
    body.Varint(bucket.quality.size());
    for (const auto& [feed_id, counts] : bucket.quality) {
      body.String(strings_->View(feed_id));
      body.SignedVarint(counts.accepted);
      body.SignedVarint(counts.vehicles);
      for (const auto n : counts.rejected) {
        body.SignedVarint(n);
      }
      for (const auto n : counts.latency) {
        body.SignedVarint(n);
      }
    }
  }
  base::ByteWriter head;
  sources.Write(head);
  snapshot_bytes_hint_ = body.size();
  return engine::SealCheckpoint(kCheckpointKind, kCheckpointVersion, head.bytes(), body.bytes());
}

base::Status Shard::Restore(std::string_view bytes) {
  FROTA_ASSIGN_OR_RETURN(const auto payload,
                         engine::OpenCheckpoint(bytes, kCheckpointKind, kCheckpointVersion));
  base::ByteReader r(payload);
  FROTA_ASSIGN_OR_RETURN(const auto source_count, r.Varint());
  std::vector<model::SourceId> sources;
  for (std::uint64_t i = 0; i < source_count; ++i) {
    FROTA_ASSIGN_OR_RETURN(const auto name, r.String());
    sources.push_back(catalog_->Intern(name));
  }
  FROTA_ASSIGN_OR_RETURN(const auto partition, r.SignedVarint());
  if (partition != partition_id_) {
    return base::InvalidInput("state of partition {} offered to partition {}", partition,
                              partition_id_);
  }
  model::StringDictionary& strings = *strings_;
  engine::KeyedProcessor<PositionOrder> vehicles{PositionOrder(catalog_)};
  FROTA_ASSIGN_OR_RETURN(const auto vehicle_count, r.Varint());
  for (std::uint64_t i = 0; i < vehicle_count; ++i) {
    FROTA_ASSIGN_OR_RETURN(const auto key, r.String());
    std::uint64_t vehicle_key = 0;
    FROTA_ASSIGN_OR_RETURN(auto state, ReadState(r, strings, vehicle_key));
    FROTA_ASSIGN_OR_RETURN(const auto pending_count, r.Varint());
    std::vector<model::PositionRecord> pending;
    for (std::uint64_t j = 0; j < pending_count; ++j) {
      FROTA_ASSIGN_OR_RETURN(auto p, ReadPosition(r, strings, sources));
      pending.push_back(p);
    }
    // The text key and the state's ids name the same vehicle, or the bytes are not a
    // shard's state.
    const std::string_view feed = strings.View(FeedOf(vehicle_key));
    const std::string_view vehicle = strings.View(VehicleOf(vehicle_key));
    if (key.size() != feed.size() + 1 + vehicle.size() || key.substr(0, feed.size()) != feed ||
        key[feed.size()] != '\x1f' || key.substr(feed.size() + 1) != vehicle) {
      return base::InvalidInput("shard state: vehicle key {} does not match its state", i);
    }
    vehicles.Put(vehicle_key, std::move(state), std::move(pending));
  }
  std::map<Timestamp, HourBucket> hours;
  FROTA_ASSIGN_OR_RETURN(const auto hour_count, r.Varint());
  for (std::uint64_t i = 0; i < hour_count; ++i) {
    FROTA_ASSIGN_OR_RETURN(const auto end_us, r.I64());
    HourBucket bucket;
    FROTA_ASSIGN_OR_RETURN(bucket.hour, ReadHour(r));
    FROTA_ASSIGN_OR_RETURN(const auto cells, r.Varint());
    for (std::uint64_t j = 0; j < cells; ++j) {
      FROTA_ASSIGN_OR_RETURN(const auto mode, ReadMode(r));
      FROTA_ASSIGN_OR_RETURN(const auto x, r.SignedVarint());
      FROTA_ASSIGN_OR_RETURN(const auto y, r.SignedVarint());
      Sums sums;
      FROTA_ASSIGN_OR_RETURN(sums.segments, r.SignedVarint());
      FROTA_ASSIGN_OR_RETURN(sums.distance_mm, r.SignedVarint());
      FROTA_ASSIGN_OR_RETURN(sums.duration_us, r.SignedVarint());
      bucket.cells[CellKey{mode, static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)}] =
          sums;
    }
    FROTA_ASSIGN_OR_RETURN(const auto lines, r.Varint());
    for (std::uint64_t j = 0; j < lines; ++j) {
      FROTA_ASSIGN_OR_RETURN(const auto mode, ReadMode(r));
      FROTA_ASSIGN_OR_RETURN(const auto route, ReadId(r, strings));
      Sums sums;
      FROTA_ASSIGN_OR_RETURN(sums.segments, r.SignedVarint());
      FROTA_ASSIGN_OR_RETURN(sums.distance_mm, r.SignedVarint());
      FROTA_ASSIGN_OR_RETURN(sums.duration_us, r.SignedVarint());
      bucket.lines[LineKey{mode, route}] = sums;
    }
    FROTA_ASSIGN_OR_RETURN(const auto fleets, r.Varint());
    for (std::uint64_t j = 0; j < fleets; ++j) {
      FROTA_ASSIGN_OR_RETURN(const auto mode, ReadMode(r));
      FROTA_ASSIGN_OR_RETURN(const auto vehicles_count, r.SignedVarint());
      FROTA_ASSIGN_OR_RETURN(const auto positions, r.SignedVarint());
      bucket.fleet[mode] = {vehicles_count, positions};
    }
    FROTA_ASSIGN_OR_RETURN(const auto feeds, r.Varint());
    for (std::uint64_t j = 0; j < feeds; ++j) {
      FROTA_ASSIGN_OR_RETURN(const auto feed_id, ReadId(r, strings));
      QualityCounts counts;
      FROTA_ASSIGN_OR_RETURN(counts.accepted, r.SignedVarint());
      FROTA_ASSIGN_OR_RETURN(counts.vehicles, r.SignedVarint());
      for (auto& n : counts.rejected) {
        FROTA_ASSIGN_OR_RETURN(n, r.SignedVarint());
      }
      for (auto& n : counts.latency) {
        FROTA_ASSIGN_OR_RETURN(n, r.SignedVarint());
      }
      bucket.quality[feed_id] = counts;
    }
    hours.emplace(base::FromUnixMicros(end_us), std::move(bucket));
  }
  if (!r.AtEnd()) {
    return base::InvalidInput("shard state has {} trailing bytes", r.remaining());
  }
  vehicles.RescheduleAll(*this);
  vehicles_ = std::move(vehicles);
  hours_ = std::move(hours);
  last_bucket_ = nullptr;
  rows_ = model::EpochRows();
  return base::Status::Ok();
}

}  // namespace frota::job
