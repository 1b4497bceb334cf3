// The job shard's snapshot: Shard::Snapshot and Shard::Restore, and the format they
// write and read.
#include <unordered_map>
#include <vector>

#include "frota/base/bytes.h"
#include "frota/engine/checkpoint.h"
#include "frota/job/shard.h"
#include "frota/job/shard_internal.h"

namespace frota::job {

namespace {

using model::Mode;
using shard_internal::ForEachTripInOpenOrder;
using shard_internal::Micros;

constexpr std::string_view kCheckpointKind = "job-shard";
// Version 2 adds each buffered position's origin country and last contact (aircraft);
// version 3 each open hour's duplicates per vehicle (duplicate_counts); version 4 each open
// speed sum's implausible segments (max_segment_speed_kmh). Older snapshots still restore:
// positions without the aircraft fields, hours without duplicates (their refusals were
// emitted as rows of `rejected` when they were made), sums with no implausible segment
// (made before the rule, which summed every segment).
constexpr std::uint32_t kOldestCheckpointVersion = 1;
constexpr std::uint32_t kCheckpointVersion = 4;
constexpr std::uint32_t kFirstVersionWithDuplicates = 3;
constexpr std::uint32_t kFirstVersionWithImplausible = 4;

}  // namespace

// Snapshot format (version 4; version 1 lacks a position's last two fields, versions 1 and
// 2 an hour's duplicates, versions 1 to 3 the sums' implausible segments), inside a sealed
// checkpoint of kind "job-shard":
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
  for (const StringId id :
       {p.feed_id, p.vehicle_id, p.route_id, p.trip_id, p.trip_start_date, p.trip_start_time}) {
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
  w.Bool(p.has_origin_country);
  w.String(strings.View(p.origin_country));
  w.SignedVarint(p.last_contact);
}

base::Result<model::PositionRecord> ReadPosition(base::ByteReader& r,
                                                 model::StringDictionary& strings,
                                                 const std::vector<model::SourceId>& sources,
                                                 std::uint32_t version) {
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
  if (version >= 2) {
    FROTA_ASSIGN_OR_RETURN(p.has_origin_country, r.Bool());
    FROTA_ASSIGN_OR_RETURN(const auto country, r.String());
    p.origin_country = country.empty() ? model::StringDictionary::kEmpty : strings.Intern(country);
    FROTA_ASSIGN_OR_RETURN(p.last_contact, r.SignedVarint());
  }
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
    return base::InvalidInput(
        "shard state: an open stop run ends at {} µs, not at the last "
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
        return base::InvalidInput(
            "shard state: two open trips end at the last accepted "
            "position");
      }
      s.trips.current() = trip;
    } else {
      s.trips.AddOther(trip);
    }
  }
  return s;
}

void WriteSums(base::ByteWriter& w, std::int64_t segments, std::int64_t mm, std::int64_t us,
               std::int64_t implausible) {
  w.SignedVarint(segments);
  w.SignedVarint(mm);
  w.SignedVarint(us);
  w.SignedVarint(implausible);
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
      WriteSums(body, sums.segments, sums.distance_mm, sums.duration_us, sums.implausible);
    }
    body.Varint(bucket.lines.size());
    for (const auto& [key, sums] : bucket.lines) {
      body.U8(static_cast<std::uint8_t>(key.mode));
      body.String(strings_->View(key.route_id));
      WriteSums(body, sums.segments, sums.distance_mm, sums.duration_us, sums.implausible);
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
    body.Varint(bucket.duplicates.size());
    for (const auto& [key, records] : bucket.duplicates) {
      body.String(strings_->View(FeedOf(key)));
      body.String(strings_->View(VehicleOf(key)));
      body.SignedVarint(records);
    }
  }
  base::ByteWriter head;
  sources.Write(head);
  snapshot_bytes_hint_ = body.size();
  return engine::SealCheckpoint(kCheckpointKind, kCheckpointVersion, head.bytes(), body.bytes());
}

base::Status Shard::Restore(std::string_view bytes) {
  FROTA_ASSIGN_OR_RETURN(
      const auto opened,
      engine::OpenCheckpoint(bytes, kCheckpointKind, kOldestCheckpointVersion, kCheckpointVersion));
  base::ByteReader r(opened.payload);
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
      FROTA_ASSIGN_OR_RETURN(auto p, ReadPosition(r, strings, sources, opened.version));
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
  const auto read_sums = [&r, version = opened.version]() -> base::Result<Sums> {
    Sums sums;
    FROTA_ASSIGN_OR_RETURN(sums.segments, r.SignedVarint());
    FROTA_ASSIGN_OR_RETURN(sums.distance_mm, r.SignedVarint());
    FROTA_ASSIGN_OR_RETURN(sums.duration_us, r.SignedVarint());
    if (version >= kFirstVersionWithImplausible) {
      FROTA_ASSIGN_OR_RETURN(sums.implausible, r.SignedVarint());
    }
    return sums;
  };
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
      FROTA_ASSIGN_OR_RETURN(const Sums sums, read_sums());
      bucket.cells[CellKey{mode, static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)}] =
          sums;
    }
    FROTA_ASSIGN_OR_RETURN(const auto lines, r.Varint());
    for (std::uint64_t j = 0; j < lines; ++j) {
      FROTA_ASSIGN_OR_RETURN(const auto mode, ReadMode(r));
      FROTA_ASSIGN_OR_RETURN(const auto route, ReadId(r, strings));
      FROTA_ASSIGN_OR_RETURN(const Sums sums, read_sums());
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
    if (opened.version >= kFirstVersionWithDuplicates) {
      FROTA_ASSIGN_OR_RETURN(const auto vehicles_with_duplicates, r.Varint());
      for (std::uint64_t j = 0; j < vehicles_with_duplicates; ++j) {
        FROTA_ASSIGN_OR_RETURN(const auto feed_id, ReadId(r, strings));
        FROTA_ASSIGN_OR_RETURN(const auto vehicle_id,
                               ReadId(r, strings, model::StringDictionary::Kind::kKey));
        FROTA_ASSIGN_OR_RETURN(bucket.duplicates[VehicleKey(feed_id, vehicle_id)],
                               r.SignedVarint());
      }
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
