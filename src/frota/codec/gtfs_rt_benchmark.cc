// Positions per second of the GTFS-Realtime reader: real captures and a large synthetic feed.
#include <benchmark/benchmark.h>

#include <string>

#include "frota/base/file.h"
#include "frota/codec/decode.h"
#include "frota/codec/gtfs_realtime.pb.h"
#include "frota/codec/gtfs_rt_internal.h"
#include "frota/testing/shared_data.h"

namespace frota::codec {
namespace {

namespace pb = ::frota::codec::gtfs_realtime;

using DecodeFunction = base::Result<ResponseInfo> (*)(std::string_view, const DecodeOptions&,
                                                      DecodedBatch&);

void DecodeBytes(benchmark::State& state, const std::string& bytes,
                 DecodeFunction decode = internal::DecodeGtfsRt) {
  DecodeOptions options;
  DecodedBatch batch;
  std::int64_t records = 0;
  for (auto _ : state) {
    batch.clear();
    const auto info = decode(bytes, options, batch);
    if (!info.ok()) {
      state.SkipWithError(info.error().message().c_str());
      return;
    }
    records += info->records;
    benchmark::DoNotOptimize(batch.positions.data());
  }
  state.SetItemsProcessed(records);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
}

void DecodeCapture(benchmark::State& state, std::string_view relative) {
  const auto path = testing::SharedFile(relative);
  if (!path) {
    state.SkipWithError("real capture not found (set FROTA_SHARED_DATA)");
    return;
  }
  const auto bytes = base::ReadFile(*path);
  if (!bytes.ok()) {
    state.SkipWithError(bytes.error().message().c_str());
    return;
  }
  DecodeBytes(state, *bytes);
}

void BM_GtfsRtCaltrain(benchmark::State& state) {
  DecodeCapture(state, "gtfs-rt/caltrain/ct-vehicle-positions.pb");
}
BENCHMARK(BM_GtfsRtCaltrain);

void BM_GtfsRtBullrunner(benchmark::State& state) {
  DecodeCapture(state, "gtfs-rt/bullrunner/bullrunner-vehicle-positions.pb");
}
BENCHMARK(BM_GtfsRtBullrunner);

// A city-sized feed: every entity carries what a full-featured producer sends.
std::string SyntheticFeed(int vehicles) {
  pb::FeedMessage feed;
  feed.mutable_header()->set_gtfs_realtime_version("2.0");
  feed.mutable_header()->set_timestamp(1'699'405'559);
  for (int i = 0; i < vehicles; ++i) {
    pb::FeedEntity* entity = feed.add_entity();
    entity->set_id("entity-" + std::to_string(i));
    pb::VehiclePosition* vehicle = entity->mutable_vehicle();
    pb::TripDescriptor* trip = vehicle->mutable_trip();
    trip->set_trip_id("trip-" + std::to_string(i % 5000));
    trip->set_route_id("route-" + std::to_string(i % 300));
    trip->set_direction_id(static_cast<std::uint32_t>(i % 2));
    trip->set_start_date("20231107");
    trip->set_start_time("15:37:00");
    vehicle->mutable_vehicle()->set_id("veh-" + std::to_string(i));
    vehicle->mutable_vehicle()->set_label(std::to_string(1000 + i));
    pb::Position* position = vehicle->mutable_position();
    position->set_latitude(37.0F + static_cast<float>(i % 1000) * 0.001F);
    position->set_longitude(-122.0F + static_cast<float>(i % 997) * 0.001F);
    position->set_bearing(static_cast<float>(i % 360));
    position->set_speed(12.5F);
    vehicle->set_timestamp(1'699'405'549 + static_cast<std::uint64_t>(i % 30));
    vehicle->set_current_stop_sequence(static_cast<std::uint32_t>(i % 40));
    vehicle->set_stop_id("stop-" + std::to_string(i % 2000));
  }
  return feed.SerializeAsString();
}

void BM_GtfsRtSynthetic(benchmark::State& state) {
  static const std::string kBytes = SyntheticFeed(static_cast<int>(state.range(0)));
  DecodeBytes(state, kBytes);
}
BENCHMARK(BM_GtfsRtSynthetic)->Arg(50'000);

// The same feed through libprotobuf's generated parser (the fuzz reference): the ratio
// to BM_GtfsRtSynthetic in one run is what the wire reader buys on this noisy machine.
void BM_GtfsRtSyntheticGeneratedParser(benchmark::State& state) {
  static const std::string kBytes = SyntheticFeed(static_cast<int>(state.range(0)));
  DecodeBytes(state, kBytes, internal::DecodeGtfsRtWithGeneratedCode);
}
BENCHMARK(BM_GtfsRtSyntheticGeneratedParser)->Arg(50'000);

}  // namespace
}  // namespace frota::codec
