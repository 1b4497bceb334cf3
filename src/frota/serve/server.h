// `frota serve`: the JSON API, the alert stream (Server-Sent Events), the cleaned
// GTFS-Realtime feed and the live page over a Store, on cpp-httplib.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/model/tables.h"
#include "frota/serve/store.h"
#include "frota/serve/vehicle_feed.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace frota::serve {

struct ServerOptions {
  /// HOST:PORT ("[::1]:PORT" for IPv6); PORT 0 picks a free port (see port()).
  std::string listen = "127.0.0.1:8080";
  /// How often the alert watcher reads the `alerts` table for new and changed rows.
  std::chrono::milliseconds alert_poll{250};
  /// Vehicles seen within this long before the as-of time are on the map and in the
  /// GTFS-Realtime feed.
  std::chrono::seconds vehicle_window{300};
  /// Threads answering requests; each open alert stream holds one.
  int threads = 32;
  /// What the GTFS-Realtime feed and the lines' names are described against: the static
  /// GTFS the jobs ran with (VehicleFeed::ForGtfs), or the feed's own ids without one.
  std::shared_ptr<const VehicleFeed> vehicle_feed = std::make_shared<const VehicleFeed>();
};

/// The JSON documents of the API (also used by tests to compare backends).
std::string VehiclesJson(std::optional<base::Timestamp> as_of, const std::vector<Vehicle>& vehicles,
                         std::chrono::seconds window);
std::string LinesJson(std::optional<base::Timestamp> as_of,
                      const std::optional<std::vector<LineStatus>>& lines);
/// The GTFS-Realtime VehiclePositions feed as of `as_of` (an empty feed of header time 0
/// when the database holds no position).
base::Result<std::string> VehiclePositionsFeed(Store& store, const VehicleFeed& feed,
                                               std::optional<base::Timestamp> as_of,
                                               std::chrono::seconds window);
std::string AlertJson(const model::AlertRow& alert);
std::string AlertsJson(std::optional<base::Timestamp> as_of, std::optional<base::Timestamp> since,
                       const std::optional<std::vector<model::AlertRow>>& alerts);

/// Serves, on its own threads:
///   GET /                              the live page (assets/live.html, .js, .css)
///   GET /healthz                       {"status":"ok", "as_of", "database"}; 503 when
///                                      the database cannot be read
///   GET /api/vehicles                  latest position per vehicle (ServerOptions window)
///   GET /api/lines                     current regularity per route and direction
///   GET /api/alerts[?since=ISO-8601]   alerts raised or closed since, or all
///   GET /api/alerts/stream             Server-Sent Events: `alert` (a new or changed
///                                      alert's JSON) and `as_of` (the as-of time when it
///                                      moves); `Last-Event-ID` resumes
///   GET /gtfs-rt/vehicle-positions.pb  the cleaned GTFS-Realtime VehiclePositions feed
///   GET /openapi.json                  the OpenAPI 3.1 description of the JSON routes
class Server {
 public:
  Server(std::unique_ptr<Store> store, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Reads the alerts once (what is there is not "new"), binds and starts serving.
  base::Status Start();
  /// Ends the streams and the server; idempotent.
  void Stop();
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] const std::string& host() const { return host_; }

  /// One alert-watcher round now (tests and benchmarks; the watcher thread also does it
  /// every alert_poll).
  base::Status PollAlerts();

 private:
  struct Event {
    std::uint64_t id = 0;
    std::string name;  // "alert" or "as_of"
    std::string data;
  };
  void WatchAlerts();
  void Publish(std::string name, std::string data);
  void Routes();
  // The handlers of the API's routes (Routes() registers them).
  void Health(httplib::Response& res);
  void Vehicles(httplib::Response& res);
  void Lines(httplib::Response& res);
  void Alerts(const httplib::Request& req, httplib::Response& res);
  void AlertStream(const httplib::Request& req, httplib::Response& res);
  void VehiclePositions(httplib::Response& res);

  std::unique_ptr<Store> store_;
  ServerOptions options_;
  std::unique_ptr<httplib::Server> server_;
  std::thread listener_;
  std::thread watcher_;
  std::string host_;
  int port_ = 0;

  std::mutex mutex_;  // guards what follows
  std::condition_variable changed_;
  bool stopping_ = false;
  std::map<std::string, std::string> known_alerts_;  // alert_id -> its JSON
  std::optional<base::Timestamp> as_of_;
  std::deque<Event> events_;  // the latest events, oldest first
  std::uint64_t next_event_id_ = 1;
};

}  // namespace frota::serve
