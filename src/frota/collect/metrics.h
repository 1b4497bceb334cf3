// Prometheus metrics: a registry of labelled counters and gauges, and their HTTP endpoint.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "frota/base/status.h"

namespace httplib {
class Server;
}

namespace frota::collect {

using Labels = std::vector<std::pair<std::string, std::string>>;

/// A monotonically increasing value. Thread-safe.
class Counter {
 public:
  void Add(double v = 1) {
    double current = value_.load(std::memory_order_relaxed);
    while (!value_.compare_exchange_weak(current, current + v, std::memory_order_relaxed)) {
    }
  }
  [[nodiscard]] double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

/// A value that goes up and down. Thread-safe.
class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  [[nodiscard]] double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

/// Observations counted in cumulative buckets (Prometheus's histogram: `_bucket{le}`,
/// `_sum`, `_count`). Thread-safe.
class Histogram {
 public:
  /// Upper bounds, increasing; +Inf is implied.
  explicit Histogram(std::vector<double> bounds);
  void Observe(double v);
  /// Cumulative counts per bound and then +Inf, the sum and the count, read together.
  struct Snapshot {
    std::vector<std::uint64_t> cumulative;
    double sum = 0;
    std::uint64_t count = 0;
  };
  [[nodiscard]] Snapshot Read() const;
  [[nodiscard]] const std::vector<double>& bounds() const { return bounds_; }

 private:
  std::vector<double> bounds_;
  mutable std::mutex mutex_;
  std::vector<std::uint64_t> counts_;  // per bucket, +Inf last (not cumulative)
  double sum_ = 0;
  std::uint64_t count_ = 0;
};

/// Bucket bounds in seconds for durations from milliseconds to a minute: HTTP requests,
/// epoch commits.
std::vector<double> DurationBuckets();

/// Named metric families, each with samples per label set, rendered in Prometheus's text
/// exposition format (version 0.0.4), which `promtool check metrics` accepts.
///
/// Samples live as long as the registry, so callers keep the references returned by
/// GetCounter/GetGauge/GetHistogram and update them without locking. Thread-safe.
class MetricsRegistry {
 public:
  Counter& GetCounter(std::string_view name, std::string_view help, const Labels& labels = {});
  Gauge& GetGauge(std::string_view name, std::string_view help, const Labels& labels = {});
  /// Every sample of a family should be given the same bounds.
  Histogram& GetHistogram(std::string_view name, std::string_view help,
                          const std::vector<double>& bounds, const Labels& labels = {});
  /// Called at each Render, before the samples are read: values that are read rather than
  /// counted (the process's resident memory and open files) are current at every scrape.
  void OnRender(std::function<void()> refresh);
  /// The current value of a sample, 0 when it does not exist (tests, reports).
  [[nodiscard]] double Value(std::string_view name, const Labels& labels = {}) const;
  [[nodiscard]] std::string Render() const;

 private:
  enum class Type : std::uint8_t { kCounter, kGauge, kHistogram };
  struct Family {
    std::string help;
    Type type = Type::kCounter;
    std::map<std::string, std::unique_ptr<Counter>> counters;  // by rendered labels
    std::map<std::string, std::unique_ptr<Gauge>> gauges;
    std::map<std::string, std::unique_ptr<Histogram>> histograms;
  };
  Family& FamilyOf(std::string_view name, std::string_view help, Type type);
  mutable std::mutex mutex_;
  std::map<std::string, Family, std::less<>> families_;
  std::vector<std::function<void()>> refreshers_;
};

/// Serves GET /metrics (the registry) and GET /healthz (a JSON document from `health`,
/// status 200 when it says healthy, else 503) on one address.
///
/// Start() binds and serves on its own thread; Stop() (or the destructor) ends it.
class MetricsServer {
 public:
  using HealthFn = std::function<std::pair<bool, std::string>()>;
  MetricsServer(const MetricsRegistry& registry, HealthFn health);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  /// `listen` is HOST:PORT (base::ParseListenAddress); PORT 0 picks a free port. The
  /// endpoint has no authentication: a loopback address keeps it on the machine, and
  /// another one (every interface of a container, 0.0.0.0, for a Prometheus on the
  /// container network) should be reachable from a private network only.
  base::Status Start(std::string_view listen);
  void Stop();
  [[nodiscard]] int port() const { return port_; }

 private:
  const MetricsRegistry& registry_;
  HealthFn health_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

/// The gauge `frota_storage_bytes{store=STORE}`: bytes on disk of one store (the bronze
/// archive, a DuckDB file), `measure` called at a scrape at most once every `every`
/// (measuring walks files); a measure that fails leaves the last value.
void AddStorageGauge(MetricsRegistry& registry, std::string store,
                     std::function<base::Result<std::int64_t>()> measure,
                     std::chrono::seconds every = std::chrono::seconds(60));

}  // namespace frota::collect
