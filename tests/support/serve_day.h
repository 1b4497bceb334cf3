// serve tests and benchmark: a small simulated day in a database, with its headways, and
// the `alerts` table of the contract with the streaming jobs.
#pragma once

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "frota/base/status.h"
#include "frota/sim/simulator.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::serve::testing_util {

/// The `alerts` table as the streaming jobs' contract defines it (DuckDB types; for
/// PostgreSQL TINYINT is smallint and DOUBLE double precision), created unless the sink's
/// schema (DuckDB 6, PostgreSQL 4) has it, then emptied of what the replay's streaming
/// job wrote, so a test holds exactly the alerts it inserts.
std::string AlertsDdl(bool postgres);

/// An INSERT of one alert row (text values quoted, NULLs spelled out by the caller).
std::string InsertAlert(const std::string& alert_id, const std::string& kind,
                        const std::string& route_id, const std::string& start_time,
                        const std::string& raised_at, const std::string& vehicles);

/// A small simulated morning: simulated into `dir`, its summary returned.
base::Result<sim::SimulateSummary> SimulateMorning(const std::filesystem::path& dir);

/// Replays the simulated day into the DuckDB file `db`, then computes its headways.
base::Status ReplayIntoDuckDb(const sim::SimulateSummary& day, const std::filesystem::path& db);

/// The same into the PostgreSQL database `dsn` (headways as `frota headways --postgres`).
base::Status ReplayIntoPostgres(const sim::SimulateSummary& day, const std::string& dsn);

/// Collects a Server-Sent Events stream on a thread of its own.
class StreamReader {
 public:
  StreamReader(int port, std::string path);
  ~StreamReader();
  StreamReader(const StreamReader&) = delete;
  StreamReader& operator=(const StreamReader&) = delete;
  /// Waits until the text received holds `needle` (true) or `timeout` passes (false).
  bool WaitFor(const std::string& needle, std::chrono::milliseconds timeout);
  std::string Received();

 private:
  httplib::Client client_;
  std::string path_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string received_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace frota::serve::testing_util
