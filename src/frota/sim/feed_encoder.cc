#include "frota/sim/feed_encoder.h"

#include <fmt/format.h>

#include <cmath>

#include "frota/base/time.h"
#include "frota/codec/gtfs_realtime.pb.h"

namespace frota::sim {

namespace pb = ::frota::codec::gtfs_realtime;

struct FeedEncoder::Message {
  pb::FeedMessage feed;
};

FeedEncoder::FeedEncoder(const Fleet& fleet, const DayPlan& plan)
    : fleet_(fleet),
      plan_(plan),
      start_date_(base::FormatGtfsDate(plan.service_date)),
      message_(std::make_unique<Message>()) {}

FeedEncoder::~FeedEncoder() = default;

std::string FeedEncoder::GtfsRt(const std::vector<SimRecord>& records,
                                std::optional<std::int64_t> header_time_s) {
  pb::FeedMessage& feed = message_->feed;
  feed.Clear();
  pb::FeedHeader* header = feed.mutable_header();
  header->set_gtfs_realtime_version("2.0");
  header->set_incrementality(pb::FeedHeader::FULL_DATASET);
  if (header_time_s) {
    header->set_timestamp(static_cast<std::uint64_t>(*header_time_s));
  }
  for (const SimRecord& record : records) {
    const SimVehicle& vehicle = fleet_.vehicles[static_cast<std::size_t>(record.vehicle)];
    pb::FeedEntity* entity = feed.add_entity();
    pb::VehiclePosition* position = entity->mutable_vehicle();
    if (record.has_vehicle_id) {
      entity->set_id(vehicle.id);
      position->mutable_vehicle()->set_id(vehicle.id);
    } else {
      entity->set_id("");
    }
    pb::TripDescriptor* trip = position->mutable_trip();
    if (record.slot >= 0) {
      const PlannedTrip& planned = plan_.trips[static_cast<std::size_t>(record.slot)];
      trip->set_trip_id(planned.trip_id);
      trip->set_route_id(planned.route_id);
      if (planned.direction_id >= 0) {
        trip->set_direction_id(static_cast<std::uint32_t>(planned.direction_id));
      }
      trip->set_start_time(planned.start_time);
      trip->set_start_date(start_date_);
      trip->set_schedule_relationship(pb::TripDescriptor::SCHEDULED);
    } else {
      trip->set_route_id(fleet_.route_ids[static_cast<std::size_t>(vehicle.route)]);
    }
    if (record.has_position) {
      pb::Position* where = position->mutable_position();
      where->set_latitude(record.lat);
      where->set_longitude(record.lon);
      where->set_bearing(record.bearing_deg);
      where->set_speed(record.speed_mps);
    }
    if (record.has_timestamp) {
      position->set_timestamp(static_cast<std::uint64_t>(
          record.timestamp_in_ms ? record.timestamp_s * 1000 : record.timestamp_s));
    }
  }
  std::string bytes;
  feed.SerializePartialToString(&bytes);
  return bytes;
}

namespace {

void AppendDecimal(std::string& out, float value) {
  std::string text = fmt::format("{:.5f}", value);
  for (char& c : text) {
    if (c == '.') {
      c = ',';
    }
  }
  out += text;
}

}  // namespace

std::string FeedEncoder::RioSppo(const std::vector<SimRecord>& records,
                                 std::int64_t server_ms) const {
  std::string out = "[";
  bool first = true;
  for (const SimRecord& record : records) {
    const SimVehicle& vehicle = fleet_.vehicles[static_cast<std::size_t>(record.vehicle)];
    out += first ? "\n  {" : ",\n  {";
    first = false;
    out += "\"ordem\":\"";
    out += record.has_vehicle_id ? vehicle.id : std::string();
    out += "\",\"latitude\":\"";
    if (record.has_position) {
      AppendDecimal(out, record.lat);
    }
    out += "\",\"longitude\":\"";
    if (record.has_position) {
      AppendDecimal(out, record.lon);
    }
    // Rio's API speaks milliseconds: a record without a timestamp has an empty one, and
    // the seconds-for-milliseconds mistake of GTFS-RT has no counterpart, so it is
    // written as a valid time.
    const std::int64_t event_ms = record.timestamp_s * 1000;
    out += "\",\"datahora\":\"";
    if (record.has_timestamp) {
      out += fmt::format("{}", event_ms);
    }
    out += fmt::format(
        "\",\"velocidade\":\"{}\",\"linha\":\"{}\",\"datahoraenvio\":\"{}\","
        "\"datahoraservidor\":\"{}\"}}",
        static_cast<int>(std::lround(record.speed_mps * 3.6)),
        fleet_.route_ids[static_cast<std::size_t>(vehicle.route)],
        record.has_timestamp ? event_ms + 2000 : server_ms, server_ms);
  }
  out += first ? "]" : "\n]";
  return out;
}

}  // namespace frota::sim
