#include "frota/codec/gtfs_rt_encode.h"

#include <cstdint>

#include "frota/codec/gtfs_realtime.pb.h"

namespace frota::codec {

namespace {

namespace pb = ::frota::codec::gtfs_realtime;

std::uint64_t WholeSeconds(base::Timestamp t) {
  const std::int64_t micros = base::ToUnixMicros(t);
  const std::int64_t seconds =
      micros >= 0 ? micros / 1'000'000 : -((-micros + 999'999) / 1'000'000);
  return seconds > 0 ? static_cast<std::uint64_t>(seconds) : 0;
}

bool HasTrip(const VehicleEntity& e) {
  return !e.trip_id.empty() || !e.route_id.empty() || e.direction_id >= 0 ||
         !e.start_date.empty() || !e.start_time.empty() || e.schedule != TripSchedule::kUnset;
}

void WriteTrip(const VehicleEntity& e, pb::TripDescriptor& trip) {
  if (!e.trip_id.empty()) {
    trip.set_trip_id(e.trip_id);
  }
  if (!e.route_id.empty()) {
    trip.set_route_id(e.route_id);
  }
  if (e.direction_id >= 0) {
    trip.set_direction_id(static_cast<std::uint32_t>(e.direction_id));
  }
  if (!e.start_date.empty()) {
    trip.set_start_date(e.start_date);
  }
  if (!e.start_time.empty()) {
    trip.set_start_time(e.start_time);
  }
  if (e.schedule == TripSchedule::kScheduled) {
    trip.set_schedule_relationship(pb::TripDescriptor::SCHEDULED);
  } else if (e.schedule == TripSchedule::kUnscheduled) {
    trip.set_schedule_relationship(pb::TripDescriptor::UNSCHEDULED);
  }
}

void WriteStop(const VehicleEntity& e, pb::VehiclePosition& vehicle) {
  if (!e.stop_id.empty()) {
    vehicle.set_stop_id(e.stop_id);
  }
  switch (e.status) {
    case StopStatus::kUnset:
      break;
    case StopStatus::kIncomingAt:
      vehicle.set_current_status(pb::VehiclePosition::INCOMING_AT);
      break;
    case StopStatus::kStoppedAt:
      vehicle.set_current_status(pb::VehiclePosition::STOPPED_AT);
      break;
    case StopStatus::kInTransitTo:
      vehicle.set_current_status(pb::VehiclePosition::IN_TRANSIT_TO);
      break;
  }
}

}  // namespace

std::string EncodeVehicleFeed(const std::vector<VehicleEntity>& entities,
                              base::Timestamp header_time) {
  pb::FeedMessage feed;
  pb::FeedHeader* header = feed.mutable_header();
  header->set_gtfs_realtime_version("2.0");
  header->set_incrementality(pb::FeedHeader::FULL_DATASET);
  header->set_timestamp(WholeSeconds(header_time));
  for (const VehicleEntity& e : entities) {
    pb::FeedEntity* entity = feed.add_entity();
    entity->set_id(e.entity_id);
    pb::VehiclePosition* vehicle = entity->mutable_vehicle();
    if (HasTrip(e)) {
      WriteTrip(e, *vehicle->mutable_trip());
    }
    pb::VehicleDescriptor* descriptor = vehicle->mutable_vehicle();
    descriptor->set_id(e.vehicle_id);
    if (!e.vehicle_label.empty()) {
      descriptor->set_label(e.vehicle_label);
    }
    pb::Position* where = vehicle->mutable_position();
    where->set_latitude(static_cast<float>(e.lat));
    where->set_longitude(static_cast<float>(e.lon));
    if (!std::isnan(e.bearing_deg)) {
      where->set_bearing(e.bearing_deg);
    }
    if (!std::isnan(e.speed_mps)) {
      where->set_speed(e.speed_mps);
    }
    WriteStop(e, *vehicle);
    vehicle->set_timestamp(WholeSeconds(e.time));
  }
  std::string bytes;
  feed.SerializeToString(&bytes);
  return bytes;
}

}  // namespace frota::codec
