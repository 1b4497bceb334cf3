// GTFS-Realtime VehiclePositions → positions (semantics.md section 1, GTFS-RT column).
#include <google/protobuf/arena.h>
#include <google/protobuf/unknown_field_set.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>

#include "frota/codec/decode_internal.h"
#include "frota/codec/gtfs_realtime.pb.h"
#include "frota/codec/gtfs_rt_internal.h"
#include "frota/codec/gtfs_rt_wire.h"

namespace frota::codec::internal {

namespace {

namespace pb = ::frota::codec::gtfs_realtime;
using google::protobuf::Arena;
using google::protobuf::UnknownField;
using google::protobuf::UnknownFieldSet;
using model::RejectReason;

// The reference decoder's FeedMessage: one per thread, on an arena of its own, reused
// from response to response. Clear() keeps every entity, sub-message and string buffer
// allocated, so the next parse writes into memory that is already there instead of
// allocating (and destroying) thousands of strings; it still copies every string, which
// is why DecodeResponse uses the wire reader below. After an unusually large response
// the arena is dropped so that its memory does not stay pinned.
constexpr std::size_t kMaxKeptArenaBytes = 64 << 20;

class ReusedFeed {
 public:
  pb::FeedMessage& Fresh() {
    if (feed_ == nullptr || arena_->SpaceAllocated() > kMaxKeptArenaBytes) {
      feed_ = nullptr;
      arena_ = std::make_unique<Arena>();
      feed_ = Arena::CreateMessage<pb::FeedMessage>(arena_.get());
    }
    feed_->Clear();
    return *feed_;
  }

 private:
  std::unique_ptr<Arena> arena_;
  pb::FeedMessage* feed_ = nullptr;
};

// Entities that are not vehicle positions, by kind, for ResponseInfo and for the error
// that a TripUpdates-only feed deserves.
struct OtherEntities {
  std::int64_t trip_updates = 0;
  std::int64_t alerts = 0;
  std::int64_t shapes = 0;
  std::int64_t stops = 0;
  std::int64_t trip_modifications = 0;
  std::int64_t deleted = 0;
  std::int64_t empty = 0;

  [[nodiscard]] std::int64_t OfOtherKinds() const {
    return trip_updates + alerts + shapes + stops + trip_modifications;
  }
  [[nodiscard]] std::int64_t Total() const { return OfOtherKinds() + deleted + empty; }
  [[nodiscard]] std::string Describe() const {
    std::string text;
    const auto add = [&](std::int64_t n, std::string_view singular, std::string_view plural) {
      if (n > 0) {
        text += fmt::format("{}{} {}", text.empty() ? "" : ", ", n, n == 1 ? singular : plural);
      }
    };
    add(trip_updates, "trip update", "trip updates");
    add(alerts, "alert", "alerts");
    add(shapes, "shape", "shapes");
    add(stops, "stop", "stops");
    add(trip_modifications, "trip modification", "trip modifications");
    add(deleted, "deletion", "deletions");
    add(empty, "empty entity", "empty entities");
    return text;
  }
};

using gtfs_rt_wire::Fixed32AsFloat;

// A TripUpdate's field 1 is its TripDescriptor, whose fields 1 and 2 are strings. A feed
// that puts a Position there instead (fixed32 latitude and longitude) is one whose
// producer wrote vehicle positions into the wrong message, as the Angra dos Reis feed
// does. Returns how many trip updates look like that, and the first such pair.
std::string DiagnoseTripUpdates(const pb::FeedMessage& feed) {
  std::int64_t stuffed = 0;
  float first_lat = 0;
  float first_lon = 0;
  for (const pb::FeedEntity& entity : feed.entity()) {
    if (!entity.has_trip_update()) {
      continue;
    }
    UnknownFieldSet trip_update;
    if (!trip_update.ParseFromString(entity.trip_update())) {
      continue;
    }
    for (int i = 0; i < trip_update.field_count(); ++i) {
      const UnknownField& field = trip_update.field(i);
      if (field.number() != 1 || field.type() != UnknownField::TYPE_LENGTH_DELIMITED) {
        continue;
      }
      UnknownFieldSet descriptor;
      if (!descriptor.ParseFromString(field.length_delimited())) {
        continue;
      }
      std::optional<float> lat;
      std::optional<float> lon;
      for (int k = 0; k < descriptor.field_count(); ++k) {
        const UnknownField& inner = descriptor.field(k);
        if (inner.type() != UnknownField::TYPE_FIXED32) {
          continue;
        }
        if (inner.number() == 1) {
          lat = Fixed32AsFloat(inner.fixed32());
        } else if (inner.number() == 2) {
          lon = Fixed32AsFloat(inner.fixed32());
        }
      }
      if (lat && lon && !CoordinateRangeReason(*lat, *lon)) {
        if (stuffed++ == 0) {
          first_lat = *lat;
          first_lon = *lon;
        }
      }
    }
  }
  std::string diagnosis;
  if (stuffed > 0) {
    diagnosis = fmt::format(
        "; {} of them carry a float latitude/longitude pair (e.g. {},{}) where a trip update "
        "has its trip descriptor: vehicle positions written into TripUpdate fields",
        stuffed, first_lat, first_lon);
  }
  const pb::FeedHeader& header = feed.header();
  const UnknownFieldSet& header_unknown = header.GetReflection()->GetUnknownFields(header);
  for (int i = 0; i < header_unknown.field_count(); ++i) {
    const UnknownField& field = header_unknown.field(i);
    if (field.number() == 2 && field.type() == UnknownField::TYPE_VARINT &&
        field.varint() > 1'000'000'000) {
      diagnosis += fmt::format(
          "; the header's incrementality (field 2) holds {}, a timestamp in the wrong field",
          field.varint());
    }
  }
  return diagnosis;
}

std::string FloatText(float value) { return fmt::format("{}", value); }

// Calls `f` on each entity of a generated FeedMessage, in order.
template <typename F>
void ForEachEntity(const pb::FeedMessage& feed, F&& f) {
  for (const pb::FeedEntity& entity : feed.entity()) {
    f(entity);
  }
}

// Maps one parsed feed to records in `sink`; returns the entities it skipped. `Feed` is
// the generated pb::FeedMessage or the zero-copy WireFeed: both answer the same
// has_x()/x() questions and visit their entities with ForEachEntity, so the two decoders
// share this one mapping.
template <typename Feed>
OtherEntities DecodeFeed(const Feed& feed, const DecodeOptions& options, RecordSink& sink) {
  const auto& header = feed.header();
  std::optional<base::Timestamp> header_time;
  std::optional<RejectReason> header_time_problem;
  if (header.has_timestamp() && header.timestamp() != 0) {
    base::Timestamp t;
    header_time_problem = CheckEpochSeconds(header.timestamp(), t);
    if (!header_time_problem) {
      header_time = t;
    }
  }

  // Ingest time: the collector's, else the header's, else (a feed without a usable header
  // timestamp) the newest vehicle timestamp of the response.
  std::optional<base::Timestamp> ingest_time = options.ingest_time;
  if (!ingest_time) {
    ingest_time = header_time;
  }
  if (!ingest_time) {
    ForEachEntity(feed, [&](const auto& entity) {
      const std::uint64_t seconds = entity.vehicle().timestamp();
      if (entity.has_vehicle() && seconds != 0 &&
          static_cast<double>(seconds) <= kMaxEpochSeconds) {
        const base::Timestamp t = base::FromUnixSeconds(static_cast<std::int64_t>(seconds));
        ingest_time = ingest_time ? std::max(*ingest_time, t) : t;
      }
    });
  }

  OtherEntities other;
  ForEachEntity(feed, [&](const auto& entity) {
    if (!entity.has_vehicle() || entity.is_deleted()) {
      if (entity.is_deleted()) {
        ++other.deleted;
      } else if (entity.has_trip_update()) {
        ++other.trip_updates;
      } else if (entity.has_alert()) {
        ++other.alerts;
      } else if (entity.has_shape()) {
        ++other.shapes;
      } else if (entity.has_stop()) {
        ++other.stops;
      } else if (entity.has_trip_modifications()) {
        ++other.trip_modifications;
      } else {
        ++other.empty;
      }
      return;
    }
    const auto& vehicle = entity.vehicle();
    const auto& descriptor = vehicle.vehicle();
    std::string_view vehicle_id = descriptor.id();
    if (vehicle_id.empty()) {
      vehicle_id = descriptor.label();
    }
    if (vehicle_id.empty()) {
      vehicle_id = entity.id();
    }

    // Rule 1, in order; the first failing check is the reason.
    std::optional<RejectReason> reason;
    DetailWriter detail;
    double lat = 0;
    double lon = 0;
    base::Timestamp event_time;
    std::optional<base::Timestamp> usable_event_time;
    bool from_header = false;

    const std::uint64_t vehicle_seconds = vehicle.timestamp();
    std::optional<RejectReason> time_reason;
    if (vehicle.has_timestamp() && vehicle_seconds != 0) {
      time_reason = CheckEpochSeconds(vehicle_seconds, event_time);
    } else if (header_time) {
      event_time = *header_time;
      from_header = true;
    } else {
      time_reason = header_time_problem.value_or(RejectReason::kMissingTimestamp);
    }
    if (!time_reason) {
      usable_event_time = event_time;
    }

    const auto& position = vehicle.position();
    if (vehicle_id.empty()) {
      reason = RejectReason::kMissingVehicleId;
      detail.AddText("vehicle.id", descriptor.id())
          .AddText("vehicle.label", descriptor.label())
          .AddText("id", entity.id());
    } else if (!vehicle.has_position() || !position.has_latitude() || !position.has_longitude()) {
      reason = RejectReason::kMissingCoordinates;
      if (!vehicle.has_position()) {
        detail.Add("position", Field{});
      } else {
        detail
            .Add("latitude",
                 position.has_latitude() ? Field::Token(FloatText(position.latitude())) : Field{})
            .Add("longitude", position.has_longitude()
                                  ? Field::Token(FloatText(position.longitude()))
                                  : Field{});
      }
    } else if ((reason = CoordinateRangeReason(position.latitude(), position.longitude()))) {
      if (*reason != RejectReason::kLongitudeOutOfRange) {
        detail.Add("latitude", Field::Token(FloatText(position.latitude())));
      }
      if (*reason != RejectReason::kLatitudeOutOfRange) {
        detail.Add("longitude", Field::Token(FloatText(position.longitude())));
      }
    } else if (time_reason) {
      reason = time_reason;
      if (vehicle.has_timestamp() && vehicle_seconds != 0) {
        detail.Add("timestamp", Field::Token(fmt::format("{}", vehicle_seconds)));
      } else {
        detail.Add("timestamp", Field{});
        detail.Add("header.timestamp", header.has_timestamp()
                                           ? Field::Token(fmt::format("{}", header.timestamp()))
                                           : Field{});
      }
    } else {
      lat = position.latitude();
      lon = position.longitude();
    }

    if (reason) {
      sink.AddRejection(*reason, vehicle_id, usable_event_time, ingest_time, detail.Take());
      return;
    }

    model::Position& out = sink.AddPosition();
    out.vehicle_id = vehicle_id;
    out.lat = lat;
    out.lon = lon;
    out.event_time = event_time;
    out.event_time_from_header = from_header;
    out.ingest_time = ingest_time.value_or(event_time);
    if (position.has_speed() && std::isfinite(position.speed())) {
      out.reported_speed_kmh = position.speed() * 3.6F;
    }
    if (position.has_bearing() && std::isfinite(position.bearing())) {
      out.bearing_deg = position.bearing();
    }
    if (vehicle.has_trip()) {
      const auto& trip = vehicle.trip();
      out.route_id = trip.route_id();
      out.trip_id = trip.trip_id();
      out.trip_start_date = trip.start_date();
      out.trip_start_time = trip.start_time();
      // GTFS knows directions 0 and 1 only; anything else is no direction.
      if (trip.has_direction_id() && trip.direction_id() <= 1) {
        out.direction_id = static_cast<std::int8_t>(trip.direction_id());
      }
    }
  });
  return other;
}

using gtfs_rt_wire::ForEachEntity;
using gtfs_rt_wire::ReadFeed;
using gtfs_rt_wire::ReadFeedHead;
using gtfs_rt_wire::WireEntity;
using gtfs_rt_wire::WireFeed;
using gtfs_rt_wire::WireHeader;
using gtfs_rt_wire::WireInput;
using gtfs_rt_wire::WirePosition;
using gtfs_rt_wire::WireTrip;
using gtfs_rt_wire::WireVehicle;
using gtfs_rt_wire::WireVehicleDescriptor;

// Whether visiting the entities found one that does not parse (never, for a FeedMessage
// that the generated parser built).
bool EntitiesFailed(const pb::FeedMessage& /*feed*/) { return false; }
bool EntitiesFailed(const WireFeed& feed) { return feed.failed_; }

base::Error NotAFeed(std::size_t size) {
  return base::InvalidInput(
      "not a GTFS-Realtime FeedMessage: {} bytes that do not parse as protobuf", size);
}

base::Error NoHeader() {
  return base::InvalidInput("not a GTFS-Realtime FeedMessage: no header (field 1)");
}

// The records of a parsed feed, or the error for a feed that holds none of its kind.
template <typename Feed>
base::Result<ResponseInfo> DecodeParsedFeed(const Feed& feed, std::string_view bytes,
                                            const DecodeOptions& options, DecodedBatch& out) {
  RecordSink sink(Format::kGtfsRt, options, out);
  const OtherEntities other = DecodeFeed(feed, options, sink);
  if (EntitiesFailed(feed)) {
    sink.Rollback();
    return NotAFeed(bytes.size());
  }
  if (sink.records() == 0 && other.OfOtherKinds() > 0) {
    sink.Rollback();
    // The error path may parse again: the generated classes can show what is inside.
    pb::FeedMessage full;
    std::string diagnosis;
    if (full.ParsePartialFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      diagnosis = DiagnoseTripUpdates(full);
    }
    return base::InvalidInput("a GTFS-Realtime feed without vehicle positions ({}){}",
                              other.Describe(), diagnosis);
  }
  ResponseInfo info;
  const auto& header = feed.header();
  if (header.has_timestamp() && header.timestamp() != 0 &&
      static_cast<double>(header.timestamp()) <= kMaxEpochSeconds) {
    info.header_time = base::FromUnixSeconds(static_cast<std::int64_t>(header.timestamp()));
  }
  info.records = sink.records();
  info.skipped_entities = other.Total();
  return info;
}

}  // namespace

base::Result<ResponseInfo> DecodeGtfsRt(std::string_view bytes, const DecodeOptions& options,
                                        DecodedBatch& out) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
    return base::InvalidInput("GTFS-Realtime message of {} bytes is larger than protobuf allows",
                              bytes.size());
  }
  WireFeed feed;
  if (ReadFeedHead(bytes, feed)) {
    auto result = DecodeParsedFeed(feed, bytes, options, out);
    if (!feed.late_header_) {
      return result;
    }
    // A header field after an entity: what was appended is undone; read it all first.
  }
  if (!ReadFeed(bytes, feed)) {
    return NotAFeed(bytes.size());
  }
  if (!feed.has_header_) {
    // Bytes that do not parse are that error rather than this one, as for the generated
    // parser, which reads every entity before anyone looks for the header.
    ForEachEntity(feed, [](const WireEntity& /*entity*/) {});
    return feed.failed_ ? NotAFeed(bytes.size()) : NoHeader();
  }
  return DecodeParsedFeed(feed, bytes, options, out);
}

base::Result<ResponseInfo> DecodeGtfsRtWithGeneratedCode(std::string_view bytes,
                                                         const DecodeOptions& options,
                                                         DecodedBatch& out) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
    return base::InvalidInput("GTFS-Realtime message of {} bytes is larger than protobuf allows",
                              bytes.size());
  }
  thread_local ReusedFeed reused_feed;
  pb::FeedMessage& feed = reused_feed.Fresh();
  // Partial: proto2 `required` fields are checked by the decoder, record by record,
  // instead of failing the whole response for one entity without a latitude.
  if (!feed.ParsePartialFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return NotAFeed(bytes.size());
  }
  if (!feed.has_header()) {
    return NoHeader();
  }
  return DecodeParsedFeed(feed, bytes, options, out);
}

}  // namespace frota::codec::internal
