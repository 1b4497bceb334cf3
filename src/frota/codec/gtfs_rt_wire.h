// The GTFS-Realtime decoder's zero-copy wire reader (gtfs_rt.cc): FeedMessage bytes read
// in place, text kept as views into the input. Included only by gtfs_rt.cc.
#pragma once

#include <google/protobuf/wire_format_lite.h>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "frota/codec/gtfs_realtime.pb.h"

namespace frota::codec::internal::gtfs_rt_wire {

namespace pb = ::frota::codec::gtfs_realtime;

inline float Fixed32AsFloat(std::uint32_t bits) {
  float value = 0;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// --- the zero-copy wire reader ---------------------------------------------------------
//
// libprotobuf's generated parser copies every string of every entity into the message
// and then the decoder copies it again into the Position; with a dozen strings per
// vehicle that capped decoding near 2 M positions/s. This reader walks the same wire
// format (tags, varints, lengths, skipping unknown fields and groups, with the limits
// libprotobuf's parser applies) and keeps the text as views into the input.
// Field numbers come from the generated classes, so gtfs_realtime.proto stays the one
// statement of the schema. It follows protobuf's rules where they matter here: a
// known field with an unexpected wire type is skipped as unknown, a singular message
// that occurs twice is merged, the last scalar wins. The fuzz harness holds it to the
// generated parser: same records, same errors.

using WireFormat = google::protobuf::internal::WireFormatLite;

constexpr std::uint32_t MakeTag(int field, WireFormat::WireType type) {
  return (static_cast<std::uint32_t>(field) << 3) | static_cast<std::uint32_t>(type);
}
constexpr auto kBytes = WireFormat::WIRETYPE_LENGTH_DELIMITED;
constexpr auto kVarint = WireFormat::WIRETYPE_VARINT;
constexpr auto kFixed32 = WireFormat::WIRETYPE_FIXED32;

struct WirePosition {
  float latitude_ = 0;
  float longitude_ = 0;
  float bearing_ = 0;
  float speed_ = 0;
  bool has_latitude_ = false;
  bool has_longitude_ = false;
  bool has_bearing_ = false;
  bool has_speed_ = false;
  [[nodiscard]] bool has_latitude() const { return has_latitude_; }
  [[nodiscard]] bool has_longitude() const { return has_longitude_; }
  [[nodiscard]] bool has_bearing() const { return has_bearing_; }
  [[nodiscard]] bool has_speed() const { return has_speed_; }
  [[nodiscard]] float latitude() const { return latitude_; }
  [[nodiscard]] float longitude() const { return longitude_; }
  [[nodiscard]] float bearing() const { return bearing_; }
  [[nodiscard]] float speed() const { return speed_; }
};

struct WireTrip {
  std::string_view trip_id_;
  std::string_view route_id_;
  std::string_view start_time_;
  std::string_view start_date_;
  std::uint32_t direction_id_ = 0;
  bool has_direction_id_ = false;
  [[nodiscard]] std::string_view trip_id() const { return trip_id_; }
  [[nodiscard]] std::string_view route_id() const { return route_id_; }
  [[nodiscard]] std::string_view start_time() const { return start_time_; }
  [[nodiscard]] std::string_view start_date() const { return start_date_; }
  [[nodiscard]] bool has_direction_id() const { return has_direction_id_; }
  [[nodiscard]] std::uint32_t direction_id() const { return direction_id_; }
};

struct WireVehicleDescriptor {
  std::string_view id_;
  std::string_view label_;
  [[nodiscard]] std::string_view id() const { return id_; }
  [[nodiscard]] std::string_view label() const { return label_; }
};

struct WireVehicle {
  WireTrip trip_;
  WireVehicleDescriptor vehicle_;
  WirePosition position_;
  std::uint64_t timestamp_ = 0;
  bool has_trip_ = false;
  bool has_position_ = false;
  bool has_timestamp_ = false;
  [[nodiscard]] bool has_trip() const { return has_trip_; }
  [[nodiscard]] const WireTrip& trip() const { return trip_; }
  [[nodiscard]] const WireVehicleDescriptor& vehicle() const { return vehicle_; }
  [[nodiscard]] bool has_position() const { return has_position_; }
  [[nodiscard]] const WirePosition& position() const { return position_; }
  [[nodiscard]] bool has_timestamp() const { return has_timestamp_; }
  [[nodiscard]] std::uint64_t timestamp() const { return timestamp_; }
};

struct WireEntity {
  std::string_view id_;
  WireVehicle vehicle_;
  bool is_deleted_ = false;
  bool has_trip_update_ = false;
  bool has_vehicle_ = false;
  bool has_alert_ = false;
  bool has_shape_ = false;
  bool has_stop_ = false;
  bool has_trip_modifications_ = false;
  [[nodiscard]] std::string_view id() const { return id_; }
  [[nodiscard]] bool is_deleted() const { return is_deleted_; }
  [[nodiscard]] bool has_trip_update() const { return has_trip_update_; }
  [[nodiscard]] bool has_vehicle() const { return has_vehicle_; }
  [[nodiscard]] bool has_alert() const { return has_alert_; }
  [[nodiscard]] bool has_shape() const { return has_shape_; }
  [[nodiscard]] bool has_stop() const { return has_stop_; }
  [[nodiscard]] bool has_trip_modifications() const { return has_trip_modifications_; }
  [[nodiscard]] const WireVehicle& vehicle() const { return vehicle_; }
};

struct WireHeader {
  std::uint64_t timestamp_ = 0;
  bool has_timestamp_ = false;
  [[nodiscard]] bool has_timestamp() const { return has_timestamp_; }
  [[nodiscard]] std::uint64_t timestamp() const { return timestamp_; }
};

// A feed whose header has been read; its entities stay bytes until ForEachEntity reads
// them one at a time into one WireEntity, so a city-sized response is never held as a
// second, parsed copy. An entity that does not parse sets `failed_` and ends the visit:
// the caller undoes what it appended and reports the response.
//
// Feeds put their header first, so usually ReadFeedHead reads the fields before the first
// entity and the entities are then read and mapped in the same pass over the bytes
// (`header_complete_` false). A header field after an entity would change what the
// entities already mapped saw (protobuf merges it), so ForEachEntity then stops with
// `late_header_` set, and the caller starts over with ReadFeed, which reads the whole
// top level first (`header_complete_` true).
struct WireFeed {
  std::string_view bytes_;
  std::size_t entities_at_ = 0;  // where ForEachEntity starts reading
  WireHeader header_;
  bool has_header_ = false;
  bool header_complete_ = false;
  mutable bool failed_ = false;
  mutable bool late_header_ = false;
  [[nodiscard]] const WireHeader& header() const { return header_; }
};

// The input, the end of the message being read, and the nesting left. Reads go through
// plain pointers: CodedInputStream's bookkeeping (positions recomputed from its counters
// at every tag, varints of more than one byte out of line) cost more than the rest of
// the parse. Scalars may run past their message's end as long as they stay inside the
// input, as with CodedInputStream over a flat array; the message then fails its final
// end check, so the outcome is the same.
struct WireInput {
  const std::uint8_t* p;      // the next byte
  const std::uint8_t* limit;  // the end of the whole response, a flat array
  const std::uint8_t* end;    // the end of the current message
  int depth = 100;            // nesting left, as libprotobuf counts it (its default limit)
};

inline WireInput MakeWireInput(std::string_view bytes) {
  const auto* begin = reinterpret_cast<const std::uint8_t*>(bytes.data());
  return WireInput{begin, begin + bytes.size(), begin + bytes.size()};
}

// A varint as CodedInputStream reads one: at most 10 bytes, all inside the input, bits
// past 64 dropped. Returns the byte after it (nullptr when there is none), `bytes` how
// many it took. Pointers by value: the caller's WireInput stays in registers.
[[gnu::noinline]] inline const std::uint8_t* ReadVarintSlow(const std::uint8_t* p,
                                                            const std::uint8_t* limit,
                                                            std::uint64_t& value, int& bytes) {
  std::uint64_t result = 0;
  if (limit - p >= 10) {  // the usual case: no end check per byte
    for (int i = 0; i < 10; ++i) {
      const std::uint8_t b = p[i];
      result |= static_cast<std::uint64_t>(b & 0x7f) << (7 * i);
      if (b < 0x80) {
        value = result;
        bytes = i + 1;
        return p + i + 1;
      }
    }
    return nullptr;
  }
  for (int i = 0; i < 10; ++i) {
    if (p == limit) {
      return nullptr;
    }
    const std::uint8_t b = *p++;
    result |= static_cast<std::uint64_t>(b & 0x7f) << (7 * i);
    if (b < 0x80) {
      value = result;
      bytes = i + 1;
      return p;
    }
  }
  return nullptr;
}

[[gnu::always_inline]] inline bool ReadVarint(WireInput& input, std::uint64_t& value, int& bytes) {
  if (input.p < input.limit && *input.p < 0x80) {
    value = *input.p++;
    bytes = 1;
    return true;
  }
  // Two bytes: lengths of 128 bytes to 16 KiB, i.e. most entities and vehicles.
  if (input.limit - input.p >= 2 && input.p[1] < 0x80) {
    value = (input.p[0] & 0x7fU) | (static_cast<std::uint64_t>(input.p[1]) << 7);
    input.p += 2;
    bytes = 2;
    return true;
  }
  const std::uint8_t* const next = ReadVarintSlow(input.p, input.limit, value, bytes);
  if (next == nullptr) {
    return false;
  }
  input.p = next;
  return true;
}

[[gnu::always_inline]] inline bool ReadVarint64(WireInput& input, std::uint64_t& value) {
  int bytes = 0;
  return ReadVarint(input, value, bytes);
}

// uint32 fields: the same varint, truncated to 32 bits, as protobuf reads them.
[[gnu::always_inline]] inline bool ReadVarint32(WireInput& input, std::uint32_t& value) {
  std::uint64_t wide = 0;
  int bytes = 0;
  if (!ReadVarint(input, wide, bytes)) {
    return false;
  }
  value = static_cast<std::uint32_t>(wide);
  return true;
}

[[gnu::always_inline]] inline bool ReadFixed32(WireInput& input, std::uint32_t& value) {
  if (input.limit - input.p < 4) {
    return false;
  }
  std::memcpy(&value, input.p, sizeof value);  // little-endian, as on every target frota has
  input.p += 4;
  return true;
}

[[gnu::always_inline]] inline bool SkipFixed64(WireInput& input) {
  if (input.limit - input.p < 8) {
    return false;
  }
  input.p += 8;
  return true;
}

// A tag as libprotobuf's parser accepts it: at most 5 varint bytes, bits past 32
// dropped, field number > 0.
[[gnu::always_inline]] inline bool ReadTag(WireInput& input, std::uint32_t& tag) {
  if (input.p < input.limit && *input.p < 0x80) {
    tag = *input.p++;
    return (tag >> 3) != 0;
  }
  std::uint64_t wide = 0;
  int bytes = 0;
  const std::uint8_t* const next = ReadVarintSlow(input.p, input.limit, wide, bytes);
  if (next == nullptr) {
    return false;
  }
  input.p = next;
  tag = static_cast<std::uint32_t>(wide);
  return (tag >> 3) != 0 && bytes <= 5;
}

// The length of a length-delimited field: at most 5 varint bytes and at most INT_MAX, as
// libprotobuf's parser requires.
[[gnu::always_inline]] inline bool ReadLength(WireInput& input, int& length) {
  std::uint64_t value = 0;
  int bytes = 0;
  if (!ReadVarint(input, value, bytes) || bytes > 5 ||
      value > static_cast<std::uint64_t>(INT_MAX)) {
    return false;
  }
  length = static_cast<int>(value);
  return true;
}

// Skips an unknown field (or a known one with an unexpected wire type) the way
// libprotobuf does, groups included; an end-group tag that closes nothing is an error.
inline bool SkipUnknown(WireInput& input, std::uint32_t tag) {
  switch (static_cast<WireFormat::WireType>(tag & 7)) {
    case WireFormat::WIRETYPE_VARINT: {
      std::uint64_t value = 0;
      return ReadVarint64(input, value);
    }
    case WireFormat::WIRETYPE_FIXED64:
      return SkipFixed64(input);
    case WireFormat::WIRETYPE_FIXED32: {
      std::uint32_t value = 0;
      return ReadFixed32(input, value);
    }
    case WireFormat::WIRETYPE_LENGTH_DELIMITED: {
      int length = 0;
      if (!ReadLength(input, length) || length > input.end - input.p) {
        return false;
      }
      input.p += length;
      return true;
    }
    case WireFormat::WIRETYPE_START_GROUP: {
      if (--input.depth < 0) {
        return false;
      }
      while (input.p < input.end) {
        std::uint32_t inner = 0;
        if (!ReadTag(input, inner)) {
          return false;
        }
        if ((inner & 7) == WireFormat::WIRETYPE_END_GROUP) {
          ++input.depth;
          return (inner >> 3) == (tag >> 3);
        }
        if (!SkipUnknown(input, inner)) {
          return false;
        }
      }
      return false;  // the group never ends
    }
    case WireFormat::WIRETYPE_END_GROUP:
    default:
      return false;
  }
}

// Reads fields up to the current end; `on_field(input, tag, ok)` returns true when it
// consumed the field (setting `ok`), false to have it skipped as unknown. False on bad
// input. Out-of-line calls get a copy of the input, never its address.
template <typename OnField>
[[gnu::always_inline]] inline bool ReadFields(WireInput& input, OnField&& on_field) {
  while (input.p < input.end) {
    std::uint32_t tag = 0;
    if (!ReadTag(input, tag)) {
      return false;
    }
    bool ok = true;
    if (!on_field(input, tag, ok)) {
      WireInput copy = input;
      ok = SkipUnknown(copy, tag);
      input.p = copy.p;
    }
    if (!ok) {
      return false;
    }
  }
  return input.p == input.end;
}

// A length-delimited field's bytes, viewed in place.
[[gnu::always_inline]] inline bool ReadView(WireInput& input, std::string_view& out) {
  int length = 0;
  if (!ReadLength(input, length) || length > input.end - input.p) {
    return false;
  }
  out = std::string_view(reinterpret_cast<const char*>(input.p), static_cast<std::size_t>(length));
  input.p += length;
  return true;
}

// Presence of a length-delimited field whose content is not read.
[[gnu::always_inline]] inline bool SkipBytes(WireInput& input) {
  std::string_view ignored;
  return ReadView(input, ignored);
}

// A nested message, read through a WireInput of its own (its end, one level less of
// nesting) that the compiler can keep in registers.
template <typename OnField>
[[gnu::always_inline]] inline bool ReadMessage(WireInput& input, OnField&& on_field) {
  int length = 0;
  if (!ReadLength(input, length) || length > input.end - input.p) {
    return false;
  }
  if (input.depth <= 0) {
    return false;
  }
  WireInput inner{input.p, input.limit, input.p + length, input.depth - 1};
  const bool ok = ReadFields(inner, on_field);
  input.p = inner.p;
  return ok;
}

[[gnu::always_inline]] inline bool ReadFloat(WireInput& input, float& out, bool& has) {
  std::uint32_t bits = 0;
  if (!ReadFixed32(input, bits)) {
    return false;
  }
  out = Fixed32AsFloat(bits);
  has = true;
  return true;
}

[[gnu::always_inline]] inline bool ReadPosition(WireInput& input, WirePosition& position) {
  return ReadMessage(input, [&](WireInput& in, std::uint32_t tag, bool& ok) {
    switch (tag) {
      case MakeTag(pb::Position::kLatitudeFieldNumber, kFixed32):
        ok = ReadFloat(in, position.latitude_, position.has_latitude_);
        return true;
      case MakeTag(pb::Position::kLongitudeFieldNumber, kFixed32):
        ok = ReadFloat(in, position.longitude_, position.has_longitude_);
        return true;
      case MakeTag(pb::Position::kBearingFieldNumber, kFixed32):
        ok = ReadFloat(in, position.bearing_, position.has_bearing_);
        return true;
      case MakeTag(pb::Position::kSpeedFieldNumber, kFixed32):
        ok = ReadFloat(in, position.speed_, position.has_speed_);
        return true;
      default:
        return false;
    }
  });
}

[[gnu::always_inline]] inline bool ReadTrip(WireInput& input, WireTrip& trip) {
  return ReadMessage(input, [&](WireInput& in, std::uint32_t tag, bool& ok) {
    switch (tag) {
      case MakeTag(pb::TripDescriptor::kTripIdFieldNumber, kBytes):
        ok = ReadView(in, trip.trip_id_);
        return true;
      case MakeTag(pb::TripDescriptor::kRouteIdFieldNumber, kBytes):
        ok = ReadView(in, trip.route_id_);
        return true;
      case MakeTag(pb::TripDescriptor::kStartTimeFieldNumber, kBytes):
        ok = ReadView(in, trip.start_time_);
        return true;
      case MakeTag(pb::TripDescriptor::kStartDateFieldNumber, kBytes):
        ok = ReadView(in, trip.start_date_);
        return true;
      case MakeTag(pb::TripDescriptor::kDirectionIdFieldNumber, kVarint):
        // uint32 on the wire is a varint truncated to 32 bits, as protobuf reads it.
        ok = ReadVarint32(in, trip.direction_id_);
        trip.has_direction_id_ = true;
        return true;
      default:
        return false;
    }
  });
}

[[gnu::always_inline]] inline bool ReadVehicleDescriptor(WireInput& input,
                                                         WireVehicleDescriptor& descriptor) {
  return ReadMessage(input, [&](WireInput& in, std::uint32_t tag, bool& ok) {
    switch (tag) {
      case MakeTag(pb::VehicleDescriptor::kIdFieldNumber, kBytes):
        ok = ReadView(in, descriptor.id_);
        return true;
      case MakeTag(pb::VehicleDescriptor::kLabelFieldNumber, kBytes):
        ok = ReadView(in, descriptor.label_);
        return true;
      default:
        return false;
    }
  });
}

[[gnu::always_inline]] inline bool ReadVehicle(WireInput& input, WireVehicle& vehicle) {
  return ReadMessage(input, [&](WireInput& in, std::uint32_t tag, bool& ok) {
    switch (tag) {
      case MakeTag(pb::VehiclePosition::kTripFieldNumber, kBytes):
        ok = ReadTrip(in, vehicle.trip_);
        vehicle.has_trip_ = true;
        return true;
      case MakeTag(pb::VehiclePosition::kVehicleFieldNumber, kBytes):
        ok = ReadVehicleDescriptor(in, vehicle.vehicle_);
        return true;
      case MakeTag(pb::VehiclePosition::kPositionFieldNumber, kBytes):
        ok = ReadPosition(in, vehicle.position_);
        vehicle.has_position_ = true;
        return true;
      case MakeTag(pb::VehiclePosition::kTimestampFieldNumber, kVarint):
        ok = ReadVarint64(in, vehicle.timestamp_);
        vehicle.has_timestamp_ = true;
        return true;
      default:
        return false;
    }
  });
}

[[gnu::always_inline]] inline bool ReadEntity(WireInput& input, WireEntity& entity) {
  return ReadMessage(input, [&](WireInput& in, std::uint32_t tag, bool& ok) {
    switch (tag) {
      case MakeTag(pb::FeedEntity::kIdFieldNumber, kBytes):
        ok = ReadView(in, entity.id_);
        return true;
      case MakeTag(pb::FeedEntity::kIsDeletedFieldNumber, kVarint): {
        std::uint64_t value = 0;
        ok = ReadVarint64(in, value);
        entity.is_deleted_ = value != 0;
        return true;
      }
      case MakeTag(pb::FeedEntity::kVehicleFieldNumber, kBytes):
        ok = ReadVehicle(in, entity.vehicle_);
        entity.has_vehicle_ = true;
        return true;
      case MakeTag(pb::FeedEntity::kTripUpdateFieldNumber, kBytes):
        ok = SkipBytes(in);
        entity.has_trip_update_ = true;
        return true;
      case MakeTag(pb::FeedEntity::kAlertFieldNumber, kBytes):
        ok = SkipBytes(in);
        entity.has_alert_ = true;
        return true;
      case MakeTag(pb::FeedEntity::kShapeFieldNumber, kBytes):
        ok = SkipBytes(in);
        entity.has_shape_ = true;
        return true;
      case MakeTag(pb::FeedEntity::kStopFieldNumber, kBytes):
        ok = SkipBytes(in);
        entity.has_stop_ = true;
        return true;
      case MakeTag(pb::FeedEntity::kTripModificationsFieldNumber, kBytes):
        ok = SkipBytes(in);
        entity.has_trip_modifications_ = true;
        return true;
      default:
        return false;
    }
  });
}

[[gnu::always_inline]] inline bool ReadHeader(WireInput& input, WireHeader& header) {
  return ReadMessage(input, [&](WireInput& in, std::uint32_t tag, bool& ok) {
    if (tag == MakeTag(pb::FeedHeader::kTimestampFieldNumber, kVarint)) {
      ok = ReadVarint64(in, header.timestamp_);
      header.has_timestamp_ = true;
      return true;
    }
    return false;
  });
}

// Reads the top-level fields before the first entity. True when they parse and hold
// the header; the entities are then for ForEachEntity, from `feed.entities_at_`.
inline bool ReadFeedHead(std::string_view bytes, WireFeed& feed) {
  feed = WireFeed{};
  feed.bytes_ = bytes;
  WireInput input = MakeWireInput(bytes);
  const auto* const begin = input.p;
  while (input.p < input.end) {
    const std::uint8_t* const at = input.p;
    std::uint32_t tag = 0;
    if (!ReadTag(input, tag)) {
      return false;
    }
    bool ok = true;
    if (tag == MakeTag(pb::FeedMessage::kEntityFieldNumber, kBytes)) {
      feed.entities_at_ = static_cast<std::size_t>(at - begin);
      return feed.has_header_;
    }
    if (tag == MakeTag(pb::FeedMessage::kHeaderFieldNumber, kBytes)) {
      ok = ReadHeader(input, feed.header_);
      feed.has_header_ = true;
    } else {
      WireInput copy = input;
      ok = SkipUnknown(copy, tag);
      input.p = copy.p;
    }
    if (!ok) {
      return false;
    }
  }
  feed.entities_at_ = bytes.size();
  return feed.has_header_ && input.p == input.end;
}

// Reads the whole top level: the header in full, each entity only as far as its length
// (its content is read by ForEachEntity). False when the top level does not parse.
inline bool ReadFeed(std::string_view bytes, WireFeed& feed) {
  feed = WireFeed{};
  feed.bytes_ = bytes;
  feed.header_complete_ = true;
  WireInput input = MakeWireInput(bytes);
  return ReadFields(input, [&](WireInput& in, std::uint32_t tag, bool& ok) {
    switch (tag) {
      case MakeTag(pb::FeedMessage::kHeaderFieldNumber, kBytes):
        ok = ReadHeader(in, feed.header_);
        feed.has_header_ = true;
        return true;
      case MakeTag(pb::FeedMessage::kEntityFieldNumber, kBytes):
        ok = SkipBytes(in);
        return true;
      default:
        return false;
    }
  });
}

// Calls `f` on each entity of a feed ReadFeedHead or ReadFeed accepted, in order, each
// read into the same WireEntity (as fresh as the generated parser's new FeedEntity).
// Stops at the first entity that does not parse, or at a header field after entities
// when the header was read by ReadFeedHead, with `feed.failed_` set.
template <typename F>
void ForEachEntity(const WireFeed& feed, F&& f) {
  const std::string_view bytes = feed.bytes_;
  WireInput input = MakeWireInput(bytes);
  input.p += feed.entities_at_;
  WireEntity entity;
  const bool ok = ReadFields(input, [&](WireInput& in, std::uint32_t tag, bool& field_ok) {
    switch (tag) {
      case MakeTag(pb::FeedMessage::kHeaderFieldNumber, kBytes):
        if (feed.header_complete_) {
          field_ok = SkipBytes(in);  // read by ReadFeed
        } else {
          feed.late_header_ = true;
          field_ok = false;
        }
        return true;
      case MakeTag(pb::FeedMessage::kEntityFieldNumber, kBytes):
        entity = WireEntity{};
        field_ok = ReadEntity(in, entity);
        if (field_ok) {
          f(std::as_const(entity));
        }
        return true;
      default:
        return false;
    }
  });
  if (!ok) {
    feed.failed_ = true;
  }
}

}  // namespace frota::codec::internal::gtfs_rt_wire
