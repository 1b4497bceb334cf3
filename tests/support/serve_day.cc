#include "serve_day.h"

#include <fmt/format.h>

#include "frota/batch/headways.h"
#include "frota/gtfs/static_feed.h"
#include "frota/runner/replay_runner.h"
#include "frota/sim/sim_test_util.h"
#include "frota/sink/duckdb_sink.h"
#include "frota/sink/postgres_sink.h"
#include "frota/sink/postgres_to_duckdb.h"

namespace frota::serve::testing_util {

std::string AlertsDdl(bool postgres) {
  const std::string tinyint = postgres ? "smallint" : "TINYINT";
  const std::string dbl = postgres ? "double precision" : "DOUBLE";
  return fmt::format(
      "CREATE TABLE IF NOT EXISTS alerts (alert_id VARCHAR NOT NULL PRIMARY KEY, "
      "kind VARCHAR NOT NULL, "
      "feed_id VARCHAR NOT NULL, route_id VARCHAR NOT NULL, direction_id {0}, service_date DATE, "
      "start_time TIMESTAMP NOT NULL, end_time TIMESTAMP, raised_at TIMESTAMP NOT NULL, "
      "closed_at TIMESTAMP, planned_headway_s {1}, actual_headway_s {1}, "
      "vehicles VARCHAR NOT NULL); DELETE FROM alerts",
      tinyint, dbl);
}

namespace {
std::string Quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    out += c;
    if (c == '\'') {
      out += '\'';
    }
  }
  return out + "'";
}
}  // namespace

std::string InsertAlert(const std::string& alert_id, const std::string& kind,
                        const std::string& route_id, const std::string& start_time,
                        const std::string& raised_at, const std::string& vehicles) {
  return fmt::format(
      "INSERT INTO alerts VALUES ({}, {}, 'frota-sim', {}, 0, DATE '2024-06-05', "
      "TIMESTAMP {}, NULL, TIMESTAMP {}, NULL, 480, 60, {})",
      Quote(alert_id), Quote(kind), Quote(route_id), Quote(start_time), Quote(raised_at),
      Quote(vehicles));
}

base::Result<sim::SimulateSummary> SimulateMorning(const std::filesystem::path& dir) {
  auto options = sim::testing_util::SmallDay(dir, 40);
  options.departures_between_s = std::pair(6 * 3600, 8 * 3600);
  return sim::Simulate(options);
}

namespace {
runner::ReplayConfig ReplayOf(const sim::SimulateSummary& day) {
  runner::ReplayConfig replay;
  replay.inputs = {"archive:" + day.archive.string()};
  replay.gtfs = day.gtfs.string();
  replay.area = day.area.string();
  replay.partitions = 2;
  return replay;
}

base::Status Headways(sink::DuckDbConnection& db, const sim::SimulateSummary& day) {
  FROTA_ASSIGN_OR_RETURN(const auto feed, gtfs::StaticFeed::Load(day.gtfs));
  batch::HeadwayOptions options;
  options.min_headways = 1;
  FROTA_ASSIGN_OR_RETURN(const auto report, batch::ComputeHeadways(db, feed, options));
  (void)report;
  return base::Status::Ok();
}
}  // namespace

base::Status ReplayIntoDuckDb(const sim::SimulateSummary& day, const std::filesystem::path& db) {
  const auto replay = ReplayOf(day);
  {
    FROTA_ASSIGN_OR_RETURN(auto context, runner::LoadReplayContext(replay));
    model::SourceCatalog catalog;
    FROTA_ASSIGN_OR_RETURN(auto sink, sink::DuckDbSink::Open(db, &catalog, "serve-test"));
    FROTA_ASSIGN_OR_RETURN(const auto report, runner::RunReplay(replay, *context, catalog, *sink));
    (void)report;
  }
  FROTA_ASSIGN_OR_RETURN(auto connection, sink::OpenFrotaDuckDb(db, /*must_exist=*/true));
  return Headways(*connection, day);
}

base::Status ReplayIntoPostgres(const sim::SimulateSummary& day, const std::string& dsn) {
  const auto replay = ReplayOf(day);
  {
    FROTA_ASSIGN_OR_RETURN(auto context, runner::LoadReplayContext(replay));
    model::SourceCatalog catalog;
    sink::PostgresSinkOptions options;
    options.dsn = dsn;
    options.run_id = "serve-test";
    FROTA_ASSIGN_OR_RETURN(auto sink, sink::PostgresSink::Open(std::move(options), &catalog));
    FROTA_ASSIGN_OR_RETURN(const auto report, runner::RunReplay(replay, *context, catalog, *sink));
    (void)report;
  }
  FROTA_ASSIGN_OR_RETURN(auto copy, sink::CopyPostgresToDuckDb(dsn));
  FROTA_RETURN_IF_ERROR(Headways(*copy, day));
  return sink::ReplacePostgresTables(*copy, dsn, batch::HeadwayTables());
}

StreamReader::StreamReader(int port, std::string path)
    : client_("127.0.0.1", port), path_(std::move(path)) {
  client_.set_read_timeout(std::chrono::seconds(60));  // the server keeps alive every 15 s
  thread_ = std::thread([this] {
    while (!stop_.load()) {
      client_.Get(path_, [this](const char* data, std::size_t size) {
        {
          const std::lock_guard lock(mutex_);
          received_.append(data, size);
        }
        changed_.notify_all();
        return !stop_.load();
      });
    }
  });
}

StreamReader::~StreamReader() {
  stop_.store(true);
  client_.stop();
  thread_.join();
}

bool StreamReader::WaitFor(const std::string& needle, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout,
                           [&] { return received_.find(needle) != std::string::npos; });
}

std::string StreamReader::Received() {
  const std::lock_guard lock(mutex_);
  return received_;
}

}  // namespace frota::serve::testing_util
