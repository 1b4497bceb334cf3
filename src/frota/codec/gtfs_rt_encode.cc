#include "frota/codec/gtfs_rt_encode.h"

#include <cmath>
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

}  // namespace

std::string EncodeVehiclePositions(const std::vector<model::Position>& positions,
                                   base::Timestamp header_time) {
  pb::FeedMessage feed;
  pb::FeedHeader* header = feed.mutable_header();
  header->set_gtfs_realtime_version("2.0");
  header->set_incrementality(pb::FeedHeader::FULL_DATASET);
  header->set_timestamp(WholeSeconds(header_time));
  for (const model::Position& p : positions) {
    pb::FeedEntity* entity = feed.add_entity();
    entity->set_id(p.feed_id + "/" + p.vehicle_id);
    pb::VehiclePosition* vehicle = entity->mutable_vehicle();
    vehicle->mutable_vehicle()->set_id(p.vehicle_id);
    pb::TripDescriptor* trip = vehicle->mutable_trip();
    trip->set_route_id(p.route_id);
    if (!p.trip_id.empty()) {
      trip->set_trip_id(p.trip_id);
    }
    if (!p.trip_start_date.empty()) {
      trip->set_start_date(p.trip_start_date);
    }
    if (!p.trip_start_time.empty()) {
      trip->set_start_time(p.trip_start_time);
    }
    if (p.direction_id >= 0) {
      trip->set_direction_id(static_cast<std::uint32_t>(p.direction_id));
    }
    pb::Position* where = vehicle->mutable_position();
    where->set_latitude(static_cast<float>(p.lat));
    where->set_longitude(static_cast<float>(p.lon));
    if (!std::isnan(p.bearing_deg)) {
      where->set_bearing(p.bearing_deg);
    }
    if (!std::isnan(p.reported_speed_kmh)) {
      where->set_speed(p.reported_speed_kmh / 3.6F);
    }
    vehicle->set_timestamp(WholeSeconds(p.event_time));
  }
  std::string bytes;
  feed.SerializeToString(&bytes);
  return bytes;
}

}  // namespace frota::codec
