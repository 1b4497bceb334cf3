#include "frota/collect/collector.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>

#include "frota/base/empty_outputs.h"
#include "frota/base/file.h"
#include "frota/base/run_id.h"
#include "frota/geo/area.h"
#include "frota/job/rules.h"
#include "frota/source/bronze_compact.h"
#include "frota/source/bronze_retention.h"

namespace frota::collect {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

// The area of rule 4 must outlive the medallion writer's rules: one per process is enough.
const geo::Area* LoadArea(const std::string& spec, base::Status& status) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<geo::Area>> areas;
  const std::lock_guard lock(mutex);
  auto& slot = areas[spec];
  if (!slot) {
    auto loaded = geo::Area::LoadSpec(spec);
    if (!loaded.ok()) {
      status = loaded.error();
      areas.erase(spec);
      return nullptr;
    }
    slot = std::make_unique<geo::Area>(std::move(*loaded));
  }
  return slot.get();
}

std::string Iso(std::optional<base::Timestamp> t) {
  return t ? base::FormatIso8601(*t) : std::string();
}

double Seconds(std::chrono::milliseconds d) { return static_cast<double>(d.count()) / 1000.0; }

// ok: the last request succeeded; rate_limited: waiting out a 429; failing: three or
// more failures in a row; stale: no success for ten intervals; starting: nothing yet.
std::string FeedHealth(const FeedStats& s, const FeedConfig& feed, base::Timestamp now) {
  if (s.rate_limited_until && *s.rate_limited_until > now) {
    return "rate_limited";
  }
  if (s.consecutive_failures >= 3) {
    return "failing";
  }
  if (s.last_success && now - *s.last_success > 10 * feed.interval) {
    return "stale";
  }
  if (!s.last_success) {
    return s.requests == 0 ? "starting" : "failing";
  }
  return "ok";
}

}  // namespace

std::int64_t OpenFileDescriptors() {
  std::error_code ec;
  std::int64_t n = 0;
  for (fs::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) {
    ++n;
  }
  return n > 0 ? n - 1 : 0;  // the iterator's own descriptor
}

base::Status WriteStageReport(const fs::path& dir, std::string_view stage,
                              const std::string& json) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return base::IoError("{}: cannot create: {}", dir.string(), ec.message());
  }
  return base::WriteFileAtomic(dir / (std::string(stage) + ".json"), json + "\n");
}

base::Result<std::unique_ptr<Collector>> Collector::Open(CollectorConfig config,
                                                         CollectorOptions options) {
  FROTA_RETURN_IF_ERROR(Validate(config));
  std::unique_ptr<Collector> c(new Collector());
  c->config_ = std::move(config);
  c->options_ = std::move(options);
  c->clock_ = c->options_.clock != nullptr ? c->options_.clock : &base::SystemClock::Get();
  c->started_at_ = c->clock_->Now();
  c->started_steady_ = std::chrono::steady_clock::now();  // uptime, for the metrics only
  c->run_id_ = c->options_.run_id.empty() ? base::NewRunId(c->started_at_) : c->options_.run_id;
  if (c->options_.seed == 0) {
    c->options_.seed = std::random_device{}();
  }
  if (!c->options_.make_client) {
    c->options_.make_client = [] { return MakeCurlClient(); };
  }
  if (c->config_.medallion) {
    job::JobConfig rules;
    FROTA_RETURN_IF_ERROR(job::ApplyRuleFlags(rules, c->config_.rules));
    if (!c->config_.area.empty()) {
      base::Status status = base::Status::Ok();
      rules.area = LoadArea(c->config_.area, status);
      FROTA_RETURN_IF_ERROR(status);
    }
    FROTA_ASSIGN_OR_RETURN(c->medallion_, MedallionWriter::Open(c->config_.silver, c->config_.gold,
                                                                c->run_id_, std::move(rules)));
  }
  for (std::size_t i = 0; i < c->config_.feeds.size(); ++i) {
    FeedPoller::Context context;
    context.clock = c->clock_;
    context.metrics = &c->metrics_;
    context.medallion = c->medallion_.get();
    context.user_agent = c->config_.user_agent;
    context.run_id = c->run_id_;
    context.seed = c->options_.seed + i;
    context.first_poll = c->started_at_ + std::chrono::duration_cast<base::Micros>(
                                              c->options_.stagger * static_cast<int>(i));
    auto poller = FeedPoller::Open(c->config_.feeds[i], c->config_.archive,
                                   c->options_.make_client(), std::move(context));
    if (!poller.ok()) {
      return poller.error();
    }
    c->pollers_.push_back(std::move(*poller));
  }
  c->start_rss_ = base::CurrentRssBytes();
  c->start_fds_ = OpenFileDescriptors();
  c->rss_gauge_ = &c->metrics_.GetGauge("frota_process_resident_memory_bytes", "Resident set size");
  c->fds_gauge_ = &c->metrics_.GetGauge("frota_process_open_fds", "Open file descriptors");
  c->packed_hours_ = &c->metrics_.GetCounter("frota_collect_bronze_packs_total",
                                             "Sealed bronze hours packed by this run");
  // Read at every scrape: a value set at each flush would say 0 until the first.
  c->metrics_.OnRender([rss = c->rss_gauge_, fds = c->fds_gauge_] {
    rss->Set(static_cast<double>(base::CurrentRssBytes()));
    fds->Set(static_cast<double>(OpenFileDescriptors()));
  });
  AddStorageGauge(c->metrics_, "bronze",
                  [archive = c->config_.archive]() -> base::Result<std::int64_t> {
                    FROTA_ASSIGN_OR_RETURN(const auto usage, source::MeasureArchive(archive));
                    return usage.disk_bytes;
                  });
  spdlog::info("collector started run_id={} feeds={} archive={}", c->run_id_, c->pollers_.size(),
               c->config_.archive.string());
  return c;
}

Collector::~Collector() {
  if (server_) {
    server_->Stop();
  }
}

void Collector::AddListener(ResponseListener* listener) {
  for (auto& p : pollers_) {
    p->AddListener(listener);
  }
}

base::Status Collector::StartMetricsServer() {
  if (config_.metrics_listen.empty() || server_) {
    return base::Status::Ok();
  }
  server_ = std::make_unique<MetricsServer>(metrics_, [this] { return Health(); });
  return server_->Start(config_.metrics_listen);
}

int Collector::metrics_port() const { return server_ ? server_->port() : 0; }

base::Status Collector::Run(base::StopSignal& stop,
                            std::optional<std::chrono::milliseconds> run_for) {
  FROTA_RETURN_IF_ERROR(StartMetricsServer());
  std::vector<std::thread> threads;
  threads.reserve(pollers_.size() + 1);
  for (auto& poller : pollers_) {
    threads.emplace_back([this, &stop, p = poller.get()] {
      while (clock_->WaitUntil(p->next_due(), stop)) {
        p->Step();
      }
    });
  }
  threads.emplace_back([this, &stop] {
    auto next = clock_->Now() + std::chrono::duration_cast<base::Micros>(config_.flush_interval);
    while (clock_->WaitUntil(next, stop)) {
      const auto status = FlushAndReport(false);
      if (!status.ok()) {
        spdlog::error("flush failed error={}", status.error().message());
      }
      if (const auto packed = CompactSealedHours(); !packed.ok()) {
        spdlog::error("bronze compaction failed error={}", packed.error().message());
      }
      next += std::chrono::duration_cast<base::Micros>(config_.flush_interval);
    }
  });
  if (run_for) {
    const auto deadline = started_at_ + std::chrono::duration_cast<base::Micros>(*run_for);
    if (clock_->WaitUntil(deadline, stop)) {
      stop_reason_ = "duration";
      stop.Raise();
    }
  } else {
    clock_->WaitUntil(base::Timestamp::max(), stop);
  }
  if (stop_reason_.empty()) {
    stop_reason_ = "signal";
  }
  spdlog::info("collector stopping reason={} run_id={}", stop_reason_, run_id_);
  for (auto& t : threads) {
    t.join();
  }
  return FlushAndReport(true);
}

base::Status Collector::RunVirtual(base::ManualClock& clock, base::Timestamp until,
                                   base::StopSignal& stop) {
  auto next_flush = clock.Now() + std::chrono::duration_cast<base::Micros>(config_.flush_interval);
  while (!stop.raised()) {
    FeedPoller* next = nullptr;
    for (auto& p : pollers_) {
      if (next == nullptr || p->next_due() < next->next_due()) {
        next = p.get();
      }
    }
    const auto due = next != nullptr ? std::min(next->next_due(), next_flush) : next_flush;
    if (due > until) {
      break;
    }
    clock.AdvanceTo(due);
    if (next != nullptr && next->next_due() <= next_flush) {
      next->Step();
    } else {
      FROTA_RETURN_IF_ERROR(FlushAndReport(false));
      FROTA_RETURN_IF_ERROR(CompactSealedHours());
      next_flush += std::chrono::duration_cast<base::Micros>(config_.flush_interval);
    }
  }
  clock.AdvanceTo(until);
  stop_reason_ = stop.raised() ? "signal" : "duration";
  return FlushAndReport(true);
}

base::Status Collector::CompactSealedHours() {
  if (!config_.compact) {
    return base::Status::Ok();
  }
  FROTA_ASSIGN_OR_RETURN(
      const auto report,
      source::CompactArchive(config_.archive, IngestFloor() - source::kSealMargin, /*wait=*/false));
  packed_hours_->Add(static_cast<double>(report.packed.size()));
  return base::Status::Ok();
}

base::Timestamp Collector::IngestFloor() const {
  // Read the clock first: a request that starts after this read gets a later ingest time.
  base::Timestamp floor = clock_->Now();
  for (const auto& p : pollers_) {
    if (const auto since = p->in_flight_since()) {
      floor = std::min(floor, *since);
    }
  }
  return floor;
}

std::vector<FeedStats> Collector::feed_stats() const {
  std::vector<FeedStats> out;
  out.reserve(pollers_.size());
  for (const auto& p : pollers_) {
    out.push_back(p->stats());
  }
  return out;
}

std::optional<MedallionStats> Collector::medallion_stats() const {
  if (!medallion_) {
    return std::nullopt;
  }
  return medallion_->stats();
}

std::pair<bool, std::string> Collector::Health() const {
  const auto now = clock_->Now();
  Json j;
  j["run_id"] = run_id_;
  j["now"] = base::FormatIso8601(now);
  bool any_ok = false;
  Json feeds = Json::object();
  for (const auto& p : pollers_) {
    const auto s = p->stats();
    const auto health = FeedHealth(s, p->feed(), now);
    any_ok = any_ok || health == "ok" || health == "starting" || health == "rate_limited";
    feeds[s.feed_id] = {{"health", health},
                        {"last_success", Iso(s.last_success)},
                        {"consecutive_failures", s.consecutive_failures}};
  }
  // Healthy while at least one feed gets through: a single feed's outage is visible in
  // the document and the metrics, but the process itself is doing its job.
  const bool healthy = any_ok && !finished_;
  j["status"] = healthy ? "ok" : "unhealthy";
  j["feeds"] = feeds;
  for (const auto& [name, part] : health_parts_) {
    j[name] = Json::parse(part(), nullptr, /*allow_exceptions=*/false);
  }
  return {healthy, j.dump()};
}

void Collector::AddHealthPart(std::string name, std::function<std::string()> part) {
  health_parts_.emplace_back(std::move(name), std::move(part));
}

std::string Collector::FinalStatus() const {
  bool degraded = false;
  for (const auto& p : pollers_) {
    const auto s = p->stats();
    if (s.archive_errors > 0 || (s.requests > 0 && !s.last_success)) {
      return "failed";
    }
    degraded = degraded || s.failures_total() > 0 || s.decode_failures > 0;
  }
  if (medallion_ && medallion_->stats().flush_errors > 0) {
    degraded = true;
  }
  return degraded ? "degraded" : "ok";
}

std::string Collector::BronzeReport(std::string_view status) const {
  const auto now = clock_->Now();
  Json j;
  j["stage"] = "bronze";
  j["command"] = options_.command;
  j["run_id"] = run_id_;
  j["status"] = status;
  if (!stop_reason_.empty()) {
    j["stop_reason"] = stop_reason_;
  }
  j["started_at"] = base::FormatIso8601(started_at_);
  j["updated_at"] = base::FormatIso8601(now);
  j["duration_s"] =
      static_cast<double>(
          std::chrono::duration_cast<std::chrono::milliseconds>(now - started_at_).count()) /
      1000.0;
  j["wall_duration_s"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_steady_).count();
  Json inputs = Json::array();
  for (const auto& p : pollers_) {
    inputs.push_back({{"feed", p->feed().id},
                      {"format", codec::FormatName(p->feed().format)},
                      {"url", RedactUrl(p->feed().url, p->feed().auth.query)},
                      {"interval_s", Seconds(p->feed().interval)}});
  }
  j["inputs"] = inputs;
  FeedStats total;
  Json feeds = Json::object();
  for (const auto& p : pollers_) {
    const auto s = p->stats();
    total.polls += s.polls;
    total.requests += s.requests;
    total.responses += s.responses;
    total.not_modified += s.not_modified;
    total.repeats += s.repeats;
    total.retries += s.retries;
    total.bytes += s.bytes;
    total.records += s.records;
    total.positions += s.positions;
    total.decode_failures += s.decode_failures;
    total.archive_errors += s.archive_errors;
    for (const auto& [k, n] : s.failures) {
      total.failures[k] += n;
    }
    for (const auto& [k, n] : s.rejected) {
      total.rejected[k] += n;
    }
    const auto failures = s.failures_total();
    feeds[s.feed_id] = {
        {"health", FeedHealth(s, p->feed(), now)},
        {"polls", s.polls},
        {"requests", s.requests},
        {"responses", s.responses},
        {"not_modified", s.not_modified},
        {"repeats", s.repeats},
        {"retries", s.retries},
        {"retries_abandoned", s.retries_abandoned},
        {"failures", s.failures},
        {"failures_total", failures},
        {"error_rate",
         s.requests > 0 ? static_cast<double>(failures) / static_cast<double>(s.requests) : 0.0},
        {"bytes", s.bytes},
        {"records", s.records},
        {"positions", s.positions},
        {"rejected", s.rejected},
        {"decode_failures", s.decode_failures},
        {"archive_errors", s.archive_errors},
        {"rate_limit_waits", s.rate_limit_waits},
        {"budget_waits", s.budget_waits},
        {"last_status", s.last_status},
        {"last_failure", s.last_failure},
        {"consecutive_failures", s.consecutive_failures},
        {"last_success", Iso(s.last_success)},
        {"last_response", Iso(s.last_response)},
        {"rate_limited_until", Iso(s.rate_limited_until)},
        {"next_poll", base::FormatIso8601(s.next_poll)},
    };
  }
  const auto failures = total.failures_total();
  j["outputs"] = {{"responses", total.responses},
                  {"bytes", total.bytes},
                  {"records", total.records},
                  {"positions", total.positions}};
  j["empty"] = base::EmptyOutputs({{"responses", total.responses}});
  j["polls"] = total.polls;
  j["requests"] = total.requests;
  j["not_modified"] = total.not_modified;
  j["repeats"] = total.repeats;
  j["retries"] = total.retries;
  j["failures"] = total.failures;
  j["failures_total"] = failures;
  j["decode_failures"] = total.decode_failures;
  j["archive_errors"] = total.archive_errors;
  j["rejected"] = total.rejected;
  j["error_rate"] = total.requests > 0
                        ? static_cast<double>(failures) / static_cast<double>(total.requests)
                        : 0.0;
  j["paths"] = {{"archive", config_.archive.string()}, {"reports", report_dir().string()}};
  j["process"] = {{"rss_bytes_start", start_rss_},
                  {"rss_bytes", base::CurrentRssBytes()},
                  {"peak_rss_bytes", base::PeakRssBytes()},
                  {"open_fds_start", start_fds_},
                  {"open_fds", OpenFileDescriptors()}};
  j["feeds"] = feeds;
  return j.dump(2);
}

base::Status Collector::FlushAndReport(bool final) {
  if (final) {
    finished_ = true;
  }
  const auto now = clock_->Now();
  rss_gauge_->Set(static_cast<double>(base::CurrentRssBytes()));
  fds_gauge_->Set(static_cast<double>(OpenFileDescriptors()));
  std::optional<base::Error> error;
  if (medallion_) {
    const auto flushed = medallion_->Flush(now);
    if (!flushed.ok()) {
      error = flushed.error();
    }
  }
  const std::string status = final ? FinalStatus() : "running";
  const auto dir = report_dir();
  auto written = WriteStageReport(dir, "bronze", BronzeReport(status));
  if (final) {
    std::int64_t responses = 0;
    for (const auto& p : pollers_) {
      responses += p->stats().responses;
    }
    base::LogEmptyOutputs("bronze", run_id_, base::EmptyOutputs({{"responses", responses}}));
  }
  if (written.ok() && medallion_) {
    const auto m = medallion_->stats();
    std::int64_t errors = 0;
    std::int64_t refused = 0;
    for (const auto& [reason, n] : m.rejected) {
      refused += n;
      if (reason != "duplicate") {
        errors += n;
      }
    }
    Json silver;
    silver["stage"] = "silver";
    silver["command"] = options_.command;
    silver["run_id"] = run_id_;
    silver["status"] = final ? (m.flush_errors > 0 ? "degraded" : "ok") : "running";
    silver["started_at"] = base::FormatIso8601(started_at_);
    silver["updated_at"] = base::FormatIso8601(now);
    silver["duration_s"] =
        static_cast<double>(
            std::chrono::duration_cast<std::chrono::milliseconds>(now - started_at_).count()) /
        1000.0;
    silver["inputs"] = {{"responses", m.responses}, {"records", m.records}};
    silver["outputs"] = {{"accepted", m.accepted}, {"files", m.silver_files}};
    silver["rejected"] = m.rejected;
    const auto silver_empty = base::EmptyOutputs({{"valid", m.accepted}, {"rejected", refused}});
    silver["empty"] = silver_empty;
    silver["error_rate"] =
        m.records > 0 ? static_cast<double>(errors) / static_cast<double>(m.records) : 0.0;
    silver["flushes"] = m.flushes;
    silver["flush_errors"] = m.flush_errors;
    silver["buffered_records"] = m.buffered_records;
    silver["paths"] = {{"silver", config_.silver.string()}, {"last_files", m.last_files}};
    written = WriteStageReport(dir, "silver", silver.dump(2));
    if (written.ok()) {
      Json gold;
      gold["stage"] = "gold";
      gold["command"] = options_.command;
      gold["run_id"] = run_id_;
      gold["status"] = silver["status"];
      gold["started_at"] = silver["started_at"];
      gold["updated_at"] = silver["updated_at"];
      gold["duration_s"] = silver["duration_s"];
      gold["inputs"] = {{"responses", m.responses}, {"accepted", m.accepted}};
      gold["outputs"] = {
          {"poll_summaries", m.poll_summaries}, {"vehicles", m.vehicles}, {"files", m.gold_files}};
      const auto gold_empty =
          base::EmptyOutputs({{"poll_summary", m.poll_summaries}, {"latest_state", m.vehicles}});
      gold["empty"] = gold_empty;
      if (final) {
        base::LogEmptyOutputs("silver", run_id_, silver_empty);
        base::LogEmptyOutputs("gold", run_id_, gold_empty);
      }
      gold["paths"] = {{"gold", config_.gold.string()}};
      written = WriteStageReport(dir, "gold", gold.dump(2));
    }
  }
  if (!written.ok()) {
    spdlog::error("report not written dir={} error={}", dir.string(), written.error().message());
    if (!error) {
      error = written.error();
    }
  }
  for (const auto& p : pollers_) {
    const auto s = p->stats();
    spdlog::info(
        "feed summary feed={} polls={} responses={} not_modified={} repeats={} failures={} "
        "positions={} decode_failures={} health={}",
        s.feed_id, s.polls, s.responses, s.not_modified, s.repeats, s.failures_total(), s.positions,
        s.decode_failures, FeedHealth(s, p->feed(), now));
  }
  if (error) {
    return *error;
  }
  return base::Status::Ok();
}

}  // namespace frota::collect
