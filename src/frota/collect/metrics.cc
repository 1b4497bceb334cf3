#include "frota/collect/metrics.h"

#include <fmt/format.h>
#include <httplib.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <optional>

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

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::Observe(double v) {
  const std::size_t bucket = static_cast<std::size_t>(
      std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin());
  const std::lock_guard lock(mutex_);
  ++counts_[bucket];
  sum_ += v;
  ++count_;
}

Histogram::Snapshot Histogram::Read() const {
  const std::lock_guard lock(mutex_);
  Snapshot out;
  std::uint64_t running = 0;
  for (const std::uint64_t n : counts_) {
    running += n;
    out.cumulative.push_back(running);
  }
  out.sum = sum_;
  out.count = count_;
  return out;
}

std::vector<double> DurationBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

MetricsRegistry::Family& MetricsRegistry::FamilyOf(std::string_view name, std::string_view help,
                                                   Type type) {
  auto it = families_.find(name);
  if (it == families_.end()) {
    it = families_.emplace(std::string(name), Family{std::string(help), type, {}, {}, {}}).first;
  }
  return it->second;
}

Counter& MetricsRegistry::GetCounter(std::string_view name, std::string_view help,
                                     const Labels& labels) {
  const std::lock_guard lock(mutex_);
  auto& slot = FamilyOf(name, help, Type::kCounter).counters[RenderLabels(labels)];
  if (!slot) {
    slot = std::make_unique<Counter>();
  }
  return *slot;
}

Gauge& MetricsRegistry::GetGauge(std::string_view name, std::string_view help,
                                 const Labels& labels) {
  const std::lock_guard lock(mutex_);
  auto& slot = FamilyOf(name, help, Type::kGauge).gauges[RenderLabels(labels)];
  if (!slot) {
    slot = std::make_unique<Gauge>();
  }
  return *slot;
}

Histogram& MetricsRegistry::GetHistogram(std::string_view name, std::string_view help,
                                         const std::vector<double>& bounds, const Labels& labels) {
  const std::lock_guard lock(mutex_);
  Family& family = FamilyOf(name, help, Type::kHistogram);
  auto& slot = family.histograms[RenderLabels(labels)];
  if (!slot) {
    slot = std::make_unique<Histogram>(bounds);
  }
  return *slot;
}

void MetricsRegistry::OnRender(std::function<void()> refresh) {
  const std::lock_guard lock(mutex_);
  refreshers_.push_back(std::move(refresh));
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
  if (const auto h = it->second.histograms.find(key); h != it->second.histograms.end()) {
    return static_cast<double>(h->second->Read().count);
  }
  return 0;
}

namespace {

// `name{labels,le="bound"}`: the bucket label joins the sample's own.
std::string BucketLabels(const std::string& labels, const std::string& le) {
  const std::string bound = fmt::format("le=\"{}\"", le);
  return labels.empty() ? "{" + bound + "}"
                        : labels.substr(0, labels.size() - 1) + "," + bound + "}";
}

void RenderHistogram(std::string& out, const std::string& name, const std::string& labels,
                     const Histogram& histogram) {
  const Histogram::Snapshot s = histogram.Read();
  for (std::size_t i = 0; i < s.cumulative.size(); ++i) {
    const std::string le =
        i < histogram.bounds().size() ? FormatValue(histogram.bounds()[i]) : std::string("+Inf");
    out += fmt::format("{}_bucket{} {}\n", name, BucketLabels(labels, le), s.cumulative[i]);
  }
  out += fmt::format("{}_sum{} {}\n{}_count{} {}\n", name, labels, FormatValue(s.sum), name, labels,
                     s.count);
}

}  // namespace

std::string MetricsRegistry::Render() const {
  std::vector<std::function<void()>> refreshers;
  {
    const std::lock_guard lock(mutex_);
    refreshers = refreshers_;
  }
  for (const auto& refresh : refreshers) {
    refresh();
  }
  const std::lock_guard lock(mutex_);
  std::string out;
  for (const auto& [name, family] : families_) {
    const char* type = family.type == Type::kCounter ? "counter"
                       : family.type == Type::kGauge ? "gauge"
                                                     : "histogram";
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, family.help, name, type);
    for (const auto& [labels, counter] : family.counters) {
      out += fmt::format("{}{} {}\n", name, labels, FormatValue(counter->value()));
    }
    for (const auto& [labels, gauge] : family.gauges) {
      out += fmt::format("{}{} {}\n", name, labels, FormatValue(gauge->value()));
    }
    for (const auto& [labels, histogram] : family.histograms) {
      RenderHistogram(out, name, labels, *histogram);
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

void AddStorageGauge(MetricsRegistry& registry, std::string store,
                     std::function<base::Result<std::int64_t>()> measure,
                     std::chrono::seconds every) {
  Gauge* gauge =
      &registry.GetGauge("frota_storage_bytes", "Bytes on disk of each store", {{"store", store}});
  struct Last {
    std::mutex mutex;
    std::optional<std::chrono::steady_clock::time_point> at;
  };
  auto last = std::make_shared<Last>();
  registry.OnRender([gauge, last, every, store = std::move(store), measure = std::move(measure)] {
    const std::lock_guard lock(last->mutex);
    const auto now = std::chrono::steady_clock::now();
    if (last->at && now - *last->at < every) {
      return;
    }
    last->at = now;
    const auto bytes = measure();
    if (bytes.ok()) {
      gauge->Set(static_cast<double>(*bytes));
    } else {
      spdlog::warn("storage not measured store={} error={}", store, bytes.error().message());
    }
  });
}

}  // namespace frota::collect
