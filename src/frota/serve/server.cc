#include "frota/serve/server.h"

#include <httplib.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "frota/codec/gtfs_rt_encode.h"
#include "frota/serve/assets.h"

namespace frota::serve {

namespace {

using Json = nlohmann::ordered_json;

// The page's policy: its own script and style files, requests to its own origin, nothing
// inline, nothing framed.
constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
constexpr std::size_t kKeptEvents = 10'000;
constexpr auto kKeepAlive = std::chrono::seconds(15);

// Feed strings need not be UTF-8: invalid bytes become U+FFFD rather than an exception.
std::string Dump(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json TimeJson(std::optional<base::Timestamp> t) {
  return t ? Json(base::FormatIso8601(*t)) : Json(nullptr);
}

Json NumberJson(std::optional<double> v) {
  return v && std::isfinite(*v) ? Json(*v) : Json(nullptr);
}

Json FloatJson(float v) { return std::isnan(v) ? Json(nullptr) : Json(static_cast<double>(v)); }

Json DirectionJson(int direction) { return direction >= 0 ? Json(direction) : Json(nullptr); }

void SendJson(httplib::Response& res, const std::string& body, int status = 200) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(body, "application/json; charset=utf-8");
}

void SendError(httplib::Response& res, const base::Error& error, int status) {
  SendJson(res, Dump(Json{{"error", error.message()}}), status);
}

}  // namespace

std::string VehiclesJson(std::optional<base::Timestamp> as_of, const std::vector<Vehicle>& vehicles,
                         std::chrono::seconds window) {
  Json list = Json::array();
  for (const Vehicle& v : vehicles) {
    const model::Position& p = v.position;
    list.push_back(Json{{"feed_id", p.feed_id},
                        {"vehicle_id", p.vehicle_id},
                        {"mode", v.mode},
                        {"route_id", p.route_id},
                        {"trip_id", p.trip_id},
                        {"direction_id", DirectionJson(p.direction_id)},
                        {"lat", p.lat},
                        {"lon", p.lon},
                        {"speed_kmh", FloatJson(p.reported_speed_kmh)},
                        {"bearing_deg", FloatJson(p.bearing_deg)},
                        {"event_time", base::FormatIso8601(p.event_time)}});
  }
  return Dump(Json{
      {"as_of", TimeJson(as_of)}, {"window_s", window.count()}, {"vehicles", std::move(list)}});
}

std::string LinesJson(std::optional<base::Timestamp> as_of,
                      const std::optional<std::vector<LineStatus>>& lines) {
  Json list = Json::array();
  for (const LineStatus& l : lines.value_or(std::vector<LineStatus>{})) {
    list.push_back(
        Json{{"route_id", l.route_id},
             {"route_short_name", l.route_short_name ? Json(*l.route_short_name) : Json(nullptr)},
             {"direction_id", DirectionJson(l.direction_id)},
             {"status", l.status},
             {"last_departure", base::FormatIso8601(l.last_departure)},
             {"last_headway_s", NumberJson(l.last_headway_s)},
             {"planned_headway_s", NumberJson(l.planned_headway_s)},
             {"departures_last_hour", l.departures_last_hour},
             {"headways_last_hour", l.headways_last_hour},
             {"median_headway_last_hour_s", NumberJson(l.median_headway_last_hour_s)},
             {"bunching_last_hour", l.bunching_last_hour},
             {"gaps_last_hour", l.gaps_last_hour}});
  }
  return Dump(Json{{"as_of", TimeJson(as_of)},
                   {"headways_computed", lines.has_value()},
                   {"lines", std::move(list)}});
}

namespace {

Json AlertObject(const model::AlertRow& a) {
  return Json{
      {"alert_id", a.alert_id},
      {"kind", a.kind},
      {"feed_id", a.feed_id},
      {"route_id", a.route_id},
      {"direction_id", DirectionJson(a.direction_id)},
      {"service_date", a.service_date ? Json(base::FormatDate(*a.service_date)) : Json(nullptr)},
      {"start_time", base::FormatIso8601(a.start_time)},
      {"end_time", TimeJson(a.end_time)},
      {"raised_at", base::FormatIso8601(a.raised_at)},
      {"closed_at", TimeJson(a.closed_at)},
      {"planned_headway_s", NumberJson(a.planned_headway_s)},
      {"actual_headway_s", NumberJson(a.actual_headway_s)},
      {"vehicles", a.vehicles}};
}

}  // namespace

std::string AlertJson(const model::AlertRow& alert) { return Dump(AlertObject(alert)); }

std::string AlertsJson(std::optional<base::Timestamp> as_of, std::optional<base::Timestamp> since,
                       const std::optional<std::vector<model::AlertRow>>& alerts) {
  Json list = Json::array();
  for (const model::AlertRow& a : alerts.value_or(std::vector<model::AlertRow>{})) {
    list.push_back(AlertObject(a));
  }
  return Dump(Json{{"as_of", TimeJson(as_of)},
                   {"since", TimeJson(since)},
                   {"alerts_table", alerts.has_value()},
                   {"alerts", std::move(list)}});
}

base::Result<std::string> VehiclePositionsFeed(Store& store, const VehicleFeed& feed,
                                               std::optional<base::Timestamp> as_of,
                                               std::chrono::seconds window) {
  std::vector<Vehicle> vehicles;
  std::vector<Departure> departures;
  if (as_of) {
    FROTA_ASSIGN_OR_RETURN(vehicles, store.LatestPositions(*as_of, window));
    FROTA_ASSIGN_OR_RETURN(departures, store.LastDepartures(*as_of, VehicleFeed::kLookback));
  }
  return EncodeVehicleFeed(feed, vehicles, departures, as_of.value_or(base::FromUnixMicros(0)));
}

Server::Server(std::unique_ptr<Store> store, ServerOptions options)
    : store_(std::move(store)), options_(std::move(options)) {}

Server::~Server() { Stop(); }

base::Status Server::PollAlerts() {
  auto as_of = store_->AsOf();
  if (!as_of.ok()) {
    return as_of.error();
  }
  auto alerts = store_->Alerts(std::nullopt);
  if (!alerts.ok()) {
    return alerts.error();
  }
  const std::lock_guard lock(mutex_);
  for (const model::AlertRow& alert : alerts->value_or(std::vector<model::AlertRow>{})) {
    std::string json = AlertJson(alert);
    auto [it, inserted] = known_alerts_.try_emplace(alert.alert_id);
    if (inserted || it->second != json) {
      it->second = json;
      Publish("alert", std::move(json));
    }
  }
  if (*as_of != as_of_) {
    as_of_ = *as_of;
    Publish("as_of", Dump(Json{{"as_of", TimeJson(*as_of)}}));
  }
  return base::Status::Ok();
}

void Server::Publish(std::string name, std::string data) {
  events_.push_back(Event{next_event_id_++, std::move(name), std::move(data)});
  while (events_.size() > kKeptEvents) {
    events_.pop_front();
  }
  changed_.notify_all();
}

void Server::WatchAlerts() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    changed_.wait_for(lock, options_.alert_poll, [this] { return stopping_; });
    if (stopping_) {
      break;
    }
    lock.unlock();
    if (const auto polled = PollAlerts(); !polled.ok()) {
      spdlog::warn("serve: cannot read alerts error={}", polled.error().message());
    }
    lock.lock();
  }
}

void Server::Routes() {
  server_->set_default_headers({{"X-Content-Type-Options", "nosniff"},
                                {"Content-Security-Policy", kContentSecurityPolicy},
                                {"Referrer-Policy", "no-referrer"}});
  // Every route is read-only: any other method is refused as such (405), not as a path
  // that does not exist.
  server_->set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    if (req.method == "GET" || req.method == "HEAD") {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    res.set_header("Allow", "GET, HEAD");
    SendJson(res, Dump(Json{{"error", "method " + req.method + " not allowed: GET or HEAD"}}), 405);
    return httplib::Server::HandlerResponse::Handled;
  });
  server_->Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(assets::kLiveHtml), "text/html; charset=utf-8");
  });
  server_->Get("/live.js", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(assets::kLiveJs), "text/javascript; charset=utf-8");
  });
  server_->Get("/live.css", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(assets::kLiveCss), "text/css; charset=utf-8");
  });
  server_->Get("/openapi.json", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(assets::kOpenapiJson), "application/json; charset=utf-8");
  });
  const auto handle = [this](void (Server::*handler)(httplib::Response&)) {
    return
        [this, handler](const httplib::Request&, httplib::Response& res) { (this->*handler)(res); };
  };
  server_->Get("/healthz", handle(&Server::Health));
  server_->Get("/api/vehicles", handle(&Server::Vehicles));
  server_->Get("/api/lines", handle(&Server::Lines));
  server_->Get("/api/alerts",
               [this](const httplib::Request& req, httplib::Response& res) { Alerts(req, res); });
  server_->Get("/api/alerts/stream", [this](const httplib::Request& req, httplib::Response& res) {
    AlertStream(req, res);
  });
  server_->Get("/gtfs-rt/vehicle-positions.pb", handle(&Server::VehiclePositions));
}

void Server::Health(httplib::Response& res) {
  const auto as_of = store_->AsOf();
  if (!as_of.ok()) {
    SendJson(res,
             Dump(Json{{"status", "unavailable"},
                       {"database", store_->Describe()},
                       {"error", as_of.error().message()}}),
             503);
    return;
  }
  SendJson(
      res,
      Dump(Json{{"status", "ok"}, {"database", store_->Describe()}, {"as_of", TimeJson(*as_of)}}));
}

void Server::Vehicles(httplib::Response& res) {
  const auto as_of = store_->AsOf();
  if (!as_of.ok()) {
    return SendError(res, as_of.error(), 503);
  }
  std::vector<Vehicle> vehicles;
  if (*as_of) {
    auto latest = store_->LatestPositions(**as_of, options_.vehicle_window);
    if (!latest.ok()) {
      return SendError(res, latest.error(), 503);
    }
    vehicles = std::move(*latest);
  }
  SendJson(res, VehiclesJson(*as_of, vehicles, options_.vehicle_window));
}

void Server::Lines(httplib::Response& res) {
  const auto as_of = store_->AsOf();
  if (!as_of.ok()) {
    return SendError(res, as_of.error(), 503);
  }
  std::optional<std::vector<LineStatus>> lines;
  if (*as_of) {
    auto read = store_->Lines(**as_of);
    if (!read.ok()) {
      return SendError(res, read.error(), 503);
    }
    lines = std::move(*read);
  }
  // The GTFS the server was given names the routes, whatever the database holds.
  if (lines) {
    for (LineStatus& line : *lines) {
      if (const std::string* name = options_.vehicle_feed->RouteShortName(line.route_id)) {
        line.route_short_name = *name;
      }
    }
  }
  SendJson(res, LinesJson(*as_of, lines));
}

void Server::Alerts(const httplib::Request& req, httplib::Response& res) {
  std::optional<base::Timestamp> since;
  if (req.has_param("since")) {
    const std::string text = req.get_param_value("since");
    since = base::ParseIso8601(text);
    if (!since) {
      return SendError(
          res,
          base::InvalidInput("since '{}': expected an ISO 8601 time such as 2024-05-01T12:00:00Z",
                             text),
          400);
    }
  }
  const auto as_of = store_->AsOf();
  if (!as_of.ok()) {
    return SendError(res, as_of.error(), 503);
  }
  const auto alerts = store_->Alerts(since);
  if (!alerts.ok()) {
    return SendError(res, alerts.error(), 503);
  }
  SendJson(res, AlertsJson(*as_of, since, *alerts));
}

// Server-sent events: the events after the client's Last-Event-ID (or from now), then each
// new one as it comes, a keep-alive comment when nothing came.
void Server::AlertStream(const httplib::Request& req, httplib::Response& res) {
  std::uint64_t cursor = 0;
  std::string head = "retry: 2000\n\n";
  {
    const std::lock_guard lock(mutex_);
    cursor = next_event_id_ - 1;
    // The current as-of time first, so a page knows it at once.
    head += "event: as_of\ndata: " + Dump(Json{{"as_of", TimeJson(as_of_)}}) + "\n\n";
  }
  if (req.has_header("Last-Event-ID")) {
    const std::string last = req.get_header_value("Last-Event-ID");
    std::uint64_t id = 0;
    const auto [end, ec] = std::from_chars(last.data(), last.data() + last.size(), id);
    if (ec == std::errc() && end == last.data() + last.size() && id <= cursor) {
      cursor = id;
    }
  }
  res.set_header("Cache-Control", "no-store");
  res.set_chunked_content_provider(
      "text/event-stream", [this, cursor, head](std::size_t, httplib::DataSink& sink) mutable {
        std::string out = std::move(head);
        head.clear();
        {
          std::unique_lock lock(mutex_);
          if (out.empty()) {
            changed_.wait_for(lock, kKeepAlive, [&] {
              return stopping_ || (!events_.empty() && events_.back().id > cursor);
            });
          }
          if (stopping_) {
            return false;
          }
          for (const Event& e : events_) {
            if (e.id > cursor) {
              out += "id: " + std::to_string(e.id) + "\nevent: " + e.name + "\ndata: " + e.data +
                     "\n\n";
              cursor = e.id;
            }
          }
        }
        if (out.empty()) {
          out = ": keep-alive\n\n";
        }
        return sink.write(out.data(), out.size());
      });
}

void Server::VehiclePositions(httplib::Response& res) {
  const auto as_of = store_->AsOf();
  if (!as_of.ok()) {
    return SendError(res, as_of.error(), 503);
  }
  const auto feed =
      VehiclePositionsFeed(*store_, *options_.vehicle_feed, *as_of, options_.vehicle_window);
  if (!feed.ok()) {
    return SendError(res, feed.error(), 503);
  }
  res.set_header("Cache-Control", "no-store");
  res.set_content(*feed, "application/x-protobuf");
}

base::Status Server::Start() {
  const auto colon = options_.listen.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return base::InvalidInput("--listen '{}': expected HOST:PORT", options_.listen);
  }
  host_ = options_.listen.substr(0, colon);
  if (host_.size() > 2 && host_.front() == '[' && host_.back() == ']') {
    host_ = host_.substr(1, host_.size() - 2);
  }
  int port = -1;
  const std::string port_text = options_.listen.substr(colon + 1);
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 0 || port > 65535) {
    return base::InvalidInput("--listen '{}': bad port", options_.listen);
  }
  FROTA_RETURN_IF_ERROR(PollAlerts());
  {
    // What the database holds at start is the baseline, not news.
    const std::lock_guard lock(mutex_);
    events_.clear();
  }
  server_ = std::make_unique<httplib::Server>();
  const int threads = options_.threads;
  server_->new_task_queue = [threads] {
    return new httplib::ThreadPool(static_cast<std::size_t>(threads));
  };
  Routes();
  port_ = port == 0 ? server_->bind_to_any_port(host_)
                    : (server_->bind_to_port(host_, port) ? port : -1);
  if (port_ <= 0) {
    server_.reset();
    return base::Unavailable("serve: cannot listen on {}", options_.listen);
  }
  listener_ = std::thread([this] { server_->listen_after_bind(); });
  watcher_ = std::thread([this] { WatchAlerts(); });
  spdlog::info("serve listening url=http://{}:{}/ database={}",
               host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_, port_,
               store_->Describe());
  return base::Status::Ok();
}

void Server::Stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (watcher_.joinable()) {
    watcher_.join();
  }
  if (server_) {
    server_->stop();
  }
  if (listener_.joinable()) {
    listener_.join();
  }
  server_.reset();
}

}  // namespace frota::serve
