// The live collector: one poller per feed, bronze, silver and gold, reports and metrics.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "frota/base/clock.h"
#include "frota/base/status.h"
#include "frota/collect/config.h"
#include "frota/collect/medallion.h"
#include "frota/collect/metrics.h"
#include "frota/collect/poller.h"

namespace frota::collect {

struct CollectorOptions {
  base::Clock* clock = nullptr;  // null: the system clock
  std::string run_id;            // empty: a new random id
  std::string command = "collect";
  /// Makes each poller's HTTP client; empty: libcurl.
  std::function<std::unique_ptr<HttpClient>()> make_client;
  std::uint64_t seed = 0;  // jitter; 0: random
  /// Stagger of the feeds' first polls (feed i starts at i * stagger), so that feeds of
  /// one host are not hit in the same instant.
  std::chrono::milliseconds stagger{500};
};

/// Runs the pollers of every configured feed and the layers behind them.
///
/// Threads (Run): one per feed poller; one "flusher" that writes silver and gold
/// Parquet and the stage reports every flush interval; the metrics endpoint's server
/// thread. RunVirtual drives the same pollers and flushes from the calling thread in
/// virtual time (a base::ManualClock), in due-time order: the soak and fault tests' mode.
///
/// Stopping: raising the base::StopSignal (SIGINT/SIGTERM in the CLI) lets every poller
/// finish the request in progress, then the final flush and the final reports are
/// written. Listeners must outlive Run. Not thread-safe itself: one thread calls Run.
class Collector {
 public:
  static base::Result<std::unique_ptr<Collector>> Open(CollectorConfig config,
                                                       CollectorOptions options);
  ~Collector();
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  void AddListener(ResponseListener* listener);
  /// Starts the /metrics and /healthz endpoint when configured.
  base::Status StartMetricsServer();
  /// Polls until `stop` is raised or `run_for` has passed; returns after the final
  /// flush and reports.
  base::Status Run(base::StopSignal& stop, std::optional<std::chrono::milliseconds> run_for);
  /// Virtual time: steps pollers and flushes in due order until `until`.
  base::Status RunVirtual(base::ManualClock& clock, base::Timestamp until, base::StopSignal& stop);

  /// Writes silver/gold (if enabled) and the stage reports now.
  base::Status FlushAndReport(bool final);
  /// Packs the archive's sealed hours (config.compact): those ending at least
  /// source::kSealMargin before IngestFloor(). Skipped while another process maintains
  /// the archive. Called after each flush.
  base::Status CompactSealedHours();

  /// Every response with an ingest time before this instant is already visible in
  /// bronze: the live runner's heartbeat for idle partitions.
  [[nodiscard]] base::Timestamp IngestFloor() const;
  [[nodiscard]] std::vector<FeedStats> feed_stats() const;
  [[nodiscard]] std::optional<MedallionStats> medallion_stats() const;
  [[nodiscard]] MetricsRegistry& metrics() { return metrics_; }
  [[nodiscard]] const std::string& run_id() const { return run_id_; }
  [[nodiscard]] const CollectorConfig& config() const { return config_; }
  [[nodiscard]] std::filesystem::path report_dir() const { return config_.reports / run_id_; }
  [[nodiscard]] int metrics_port() const;
  [[nodiscard]] base::Clock& clock() { return *clock_; }
  /// The /healthz document and whether the service is healthy.
  [[nodiscard]] std::pair<bool, std::string> Health() const;
  /// Adds `name` to the /healthz document: `part` returns a JSON document (e.g. the Kafka
  /// publisher's state). It informs; it never makes the collector unhealthy, since
  /// archiving goes on whatever happens behind it. Call before Run.
  void AddHealthPart(std::string name, std::function<std::string()> part);

 private:
  Collector() = default;
  std::string BronzeReport(std::string_view status) const;
  std::string FinalStatus() const;

  CollectorConfig config_;
  CollectorOptions options_;
  std::string run_id_;
  base::Clock* clock_ = nullptr;
  MetricsRegistry metrics_;
  std::unique_ptr<MedallionWriter> medallion_;
  std::vector<std::unique_ptr<FeedPoller>> pollers_;
  std::unique_ptr<MetricsServer> server_;
  base::Timestamp started_at_;
  std::chrono::steady_clock::time_point started_steady_;
  std::string stop_reason_;
  std::vector<std::pair<std::string, std::function<std::string()>>> health_parts_;
  bool finished_ = false;
  std::int64_t start_rss_ = 0;
  std::int64_t start_fds_ = 0;
  Gauge* rss_gauge_ = nullptr;
  Counter* packed_hours_ = nullptr;
  Gauge* fds_gauge_ = nullptr;
};

/// Open file descriptors of this process (entries of /proc/self/fd), 0 if unknown.
std::int64_t OpenFileDescriptors();

/// Writes `json` to `dir/STAGE.json` atomically.
base::Status WriteStageReport(const std::filesystem::path& dir, std::string_view stage,
                              const std::string& json);

}  // namespace frota::collect
