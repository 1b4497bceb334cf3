#include "frota/collect/metrics.h"

#include <fmt/format.h>
#include <httplib.h>
#include <spdlog/spdlog.h>

#include <cmath>

#include "frota/base/listen_address.h"

namespace frota::collect {

namespace {

std::string EscapeLabel(std::string_view v) {
  std::string out;
  for (const char c : v) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string RenderLabels(const Labels& labels) {
  if (labels.empty()) {
    return {};
  }
  std::string out = "{";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) {
      out += ',';
    }
    out += fmt::format("{}=\"{}\"", labels[i].first, EscapeLabel(labels[i].second));
  }
  out += '}';
  return out;
}

std::string FormatValue(double v) {
  if (std::isnan(v)) {
    return "NaN";
  }
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    return fmt::format("{}", static_cast<std::int64_t>(v));
  }
  return fmt::format("{}", v);
}

}  // namespace

Counter& MetricsRegistry::GetCounter(std::string_view name, std::string_view help,
                                     const Labels& labels) {
  const std::lock_guard lock(mutex_);
  auto it = families_.find(name);
  if (it == families_.end()) {
    it = families_.emplace(std::string(name), Family{std::string(help), true, {}, {}}).first;
  }
  auto& slot = it->second.counters[RenderLabels(labels)];
  if (!slot) {
    slot = std::make_unique<Counter>();
  }
  return *slot;
}

Gauge& MetricsRegistry::GetGauge(std::string_view name, std::string_view help,
                                 const Labels& labels) {
  const std::lock_guard lock(mutex_);
  auto it = families_.find(name);
  if (it == families_.end()) {
    it = families_.emplace(std::string(name), Family{std::string(help), false, {}, {}}).first;
  }
  auto& slot = it->second.gauges[RenderLabels(labels)];
  if (!slot) {
    slot = std::make_unique<Gauge>();
  }
  return *slot;
}

double MetricsRegistry::Value(std::string_view name, const Labels& labels) const {
  const std::lock_guard lock(mutex_);
  const auto it = families_.find(name);
  if (it == families_.end()) {
    return 0;
  }
  const auto key = RenderLabels(labels);
  if (const auto c = it->second.counters.find(key); c != it->second.counters.end()) {
    return c->second->value();
  }
  if (const auto g = it->second.gauges.find(key); g != it->second.gauges.end()) {
    return g->second->value();
  }
  return 0;
}

std::string MetricsRegistry::Render() const {
  const std::lock_guard lock(mutex_);
  std::string out;
  for (const auto& [name, family] : families_) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, family.help, name,
                       family.counter ? "counter" : "gauge");
    for (const auto& [labels, counter] : family.counters) {
      out += fmt::format("{}{} {}\n", name, labels, FormatValue(counter->value()));
    }
    for (const auto& [labels, gauge] : family.gauges) {
      out += fmt::format("{}{} {}\n", name, labels, FormatValue(gauge->value()));
    }
  }
  return out;
}

MetricsServer::MetricsServer(const MetricsRegistry& registry, HealthFn health)
    : registry_(registry), health_(std::move(health)) {}

MetricsServer::~MetricsServer() { Stop(); }

base::Status MetricsServer::Start(std::string_view listen) {
  FROTA_ASSIGN_OR_RETURN(const auto address, base::ParseListenAddress(listen, "metrics_listen"));
  const std::string& host = address.host;
  const int port = address.port;
  server_ = std::make_unique<httplib::Server>();
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(registry_.Render(), "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    const auto [healthy, body] = health_();
    res.status = healthy ? 200 : 503;
    res.set_content(body, "application/json");
  });
  if (port == 0) {
    port_ = server_->bind_to_any_port(host);
  } else {
    port_ = server_->bind_to_port(host, port) ? port : -1;
  }
  if (port_ <= 0) {
    server_.reset();
    return base::Unavailable("metrics endpoint: cannot listen on {}", listen);
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  spdlog::info("metrics endpoint listening address={} paths=/metrics,/healthz",
               base::FormatHostPort(host, port_));
  return base::Status::Ok();
}

void MetricsServer::Stop() {
  if (server_) {
    server_->stop();
  }
  if (thread_.joinable()) {
    thread_.join();
  }
  server_.reset();
}

}  // namespace frota::collect
