// Throughput of the scale-out pieces against a real broker and server:
//   scale_out_bench producer BROKERS TOPIC [MESSAGES] [WARMUP]
//                                                       messages/s through transport::Producer,
//                                                       after WARMUP untimed messages
//   scale_out_bench pg-sink DSN [ROWS] [EPOCH_ROWS]     upserted rows/s through PostgresSink
// Inputs are synthetic but shaped like real positions (a fleet of 3,600 vehicles, ids,
// routes and trips as strings, one source file). Prints one JSON line.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "frota/sink/postgres_sink.h"
#include "frota/transport/producer.h"

namespace {

using namespace frota;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

model::Position MakePosition(std::int64_t i, model::SourceId source) {
  model::Position p;
  const std::int64_t vehicle = i % 3600;
  p.feed_id = "sim-city";
  p.vehicle_id = fmt::format("bus-{:05}", vehicle);
  p.route_id = fmt::format("R{:03}", vehicle % 120);
  p.trip_id = fmt::format("R{:03}-{:04}", vehicle % 120, (i / 3600) % 2000);
  p.trip_start_date = "20240506";
  p.trip_start_time = "06:00:00";
  p.direction_id = static_cast<std::int8_t>(vehicle % 2);
  p.mode = model::Mode::kBus;
  p.lat = -22.9 + static_cast<double>(vehicle) * 1e-4 + static_cast<double>(i / 3600) * 1e-6;
  p.lon = -43.2 - static_cast<double>(vehicle) * 1e-4;
  p.reported_speed_kmh = static_cast<float>(i % 60);
  p.bearing_deg = static_cast<float>(i % 360);
  p.event_time = base::FromUnixSeconds(1'714'986'000 + (i / 3600) * 15);
  p.ingest_time = p.event_time + std::chrono::seconds(7);
  p.source = {source, i};
  return p;
}

int Producer(const std::string& brokers, const std::string& topic, std::int64_t messages,
             std::int64_t warmup) {
  transport::ProducerOptions options;
  options.brokers = brokers;
  options.topic = topic;
  auto producer = transport::Producer::Create(options);
  if (!producer.ok()) {
    fmt::print(stderr, "{}\n", producer.error().message());
    return 1;
  }
  model::SourceCatalog catalog;
  const auto source = catalog.Intern("/archive/sim-city/2024-05-06.pb");
  // Positions built beforehand: the benchmark measures encoding and publishing.
  std::vector<model::Position> positions;
  constexpr std::int64_t kDistinct = 200'000;
  for (std::int64_t i = 0; i < std::min(messages, kDistinct); ++i) {
    positions.push_back(MakePosition(i, source));
  }
  // Untimed first: a broker just started serves its first million messages or so slower
  // (the JVM compiles its hot paths), which no long-running broker does.
  for (std::int64_t i = 0; i < warmup; ++i) {
    auto& p = positions[static_cast<std::size_t>(i % kDistinct)];
    p.source.offset = -1 - i;
    if (const auto s = (*producer)->PublishPosition(p, catalog.Name(source)); !s.ok()) {
      fmt::print(stderr, "{}\n", s.error().message());
      return 1;
    }
  }
  if (const auto s = (*producer)->Flush(); !s.ok()) {
    fmt::print(stderr, "{}\n", s.error().message());
    return 1;
  }
  const std::int64_t delivered_before = (*producer)->delivered();
  const auto started = Clock::now();
  for (std::int64_t i = 0; i < messages; ++i) {
    auto& p = positions[static_cast<std::size_t>(i % kDistinct)];
    p.source.offset = i;
    if (const auto s = (*producer)->PublishPosition(p, catalog.Name(source)); !s.ok()) {
      fmt::print(stderr, "{}\n", s.error().message());
      return 1;
    }
  }
  const auto queued = Clock::now();
  if (const auto s = (*producer)->Flush(); !s.ok()) {
    fmt::print(stderr, "{}\n", s.error().message());
    return 1;
  }
  const double total = Seconds(Clock::now() - started);
  fmt::print(
      "{{\"bench\":\"producer\",\"messages\":{},\"seconds\":{:.3f},\"messages_per_s\":{:.0f},"
      "\"queue_seconds\":{:.3f},\"delivered\":{},\"warmup_messages\":{}}}\n",
      messages, total, static_cast<double>(messages) / total, Seconds(queued - started),
      (*producer)->delivered() - delivered_before, warmup);
  return 0;
}

int PgSink(const std::string& dsn, std::int64_t rows, std::int64_t epoch_rows) {
  model::SourceCatalog catalog;
  const auto source = catalog.Intern("/archive/sim-city/2024-05-06.pb");
  sink::PostgresSinkOptions options;
  options.dsn = dsn;
  options.run_id = fmt::format("bench-{}", std::random_device()());
  auto opened = sink::PostgresSink::Open(options, &catalog);
  if (!opened.ok()) {
    fmt::print(stderr, "{}\n", opened.error().message());
    return 1;
  }
  auto& pg = **opened;
  auto recovered = pg.Recover();
  if (!recovered.ok()) {
    fmt::print(stderr, "{}\n", recovered.error().message());
    return 1;
  }
  std::int64_t epoch = recovered->last_epoch.value();
  const std::int64_t base = epoch * epoch_rows;  // fresh keys on every run
  double commit_seconds = 0;
  for (std::int64_t done = 0; done < rows; done += epoch_rows) {
    model::EpochRows batch;
    auto strings = std::make_shared<model::StringDictionary>();
    batch.strings = strings;
    for (std::int64_t i = done; i < std::min(rows, done + epoch_rows); ++i) {
      const auto p = MakePosition(base + i, source);
      batch.positions.push_back(model::InternPosition(p, *strings));
    }
    engine::EpochCheckpoint checkpoint;
    checkpoint.epoch = base::EpochId(++epoch);
    checkpoint.records = static_cast<std::int64_t>(batch.positions.size());
    checkpoint.progress = {{"bench", base::PartitionId(0), base::Offset(base + done + epoch_rows)}};
    const auto started = Clock::now();
    if (const auto s = pg.Commit(batch, checkpoint); !s.ok()) {
      fmt::print(stderr, "{}\n", s.error().message());
      return 1;
    }
    commit_seconds += Seconds(Clock::now() - started);
  }
  fmt::print(
      "{{\"bench\":\"pg-sink\",\"rows\":{},\"epoch_rows\":{},\"commit_seconds\":{:.3f},"
      "\"rows_per_s\":{:.0f}}}\n",
      rows, epoch_rows, commit_seconds, static_cast<double>(rows) / commit_seconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "producer" && argc >= 4) {
    return Producer(argv[2], argv[3], argc > 4 ? std::atoll(argv[4]) : 5'000'000,
                    argc > 5 ? std::atoll(argv[5]) : 0);
  }
  if (mode == "pg-sink" && argc >= 3) {
    return PgSink(argv[2], argc > 3 ? std::atoll(argv[3]) : 2'000'000,
                  argc > 4 ? std::atoll(argv[4]) : 100'000);
  }
  fmt::print(stderr,
             "usage: scale_out_bench producer BROKERS TOPIC [MESSAGES] [WARMUP]\n"
             "       scale_out_bench pg-sink DSN [ROWS] [EPOCH_ROWS]\n");
  return 2;
}
