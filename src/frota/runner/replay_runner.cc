#include "frota/runner/replay_runner.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>
#include <unordered_set>

#include "frota/base/bytes.h"
#include "frota/base/file.h"
#include "frota/engine/epoch.h"
#include "frota/engine/watermark.h"
#include "frota/gtfs/holidays.h"
#include "frota/job/pipeline.h"
#include "frota/runner/bronze_retention.h"
#include "frota/runner/epoch_driver.h"
#include "frota/runner/regularity_jobs.h"
#include "frota/source/replay_source.h"

namespace frota::runner {

namespace {

constexpr std::string_view kDefaultZone = "America/Sao_Paulo";

// One line, rewritten in place, on a terminal.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled && ::isatty(STDERR_FILENO) == 1) {}
  void Update(std::int64_t records, base::Timestamp watermark, std::int64_t epochs,
              double done_fraction) {
    if (!enabled_) {
      return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(250)) {
      return;
    }
    last_ = now;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double rate = seconds > 0 ? static_cast<double>(records) / seconds : 0;
    std::string eta = "?";
    if (done_fraction > 0.01 && done_fraction < 1) {
      eta = fmt::format("{:.0f}s", seconds / done_fraction * (1 - done_fraction));
    }
    fmt::print(stderr, "\r\x1b[Kreplay {} records  {:.0f}/s  watermark {}  epochs {}  eta {}",
               records, rate, engine::WatermarkText(watermark), epochs, eta);
  }
  void Finish() {
    if (enabled_) {
      fmt::print(stderr, "\r\x1b[K");
    }
  }

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

// The route ids of accepted positions that the GTFS does not resolve, sorted, with a
// warning naming the first ten: their stops have near_terminal = null.
std::vector<std::string> UnknownRoutes(const gtfs::RouteResolver& routes,
                                       const std::unordered_set<model::StringDictionary::Id>& ids,
                                       const model::StringDictionary& strings) {
  std::set<std::string> seen;
  for (const auto id : ids) {
    if (id != model::StringDictionary::kEmpty) {
      seen.emplace(strings.View(id));
    }
  }
  std::vector<std::string> unknown;
  for (const auto& route : seen) {
    if (routes.Resolve(route).route == nullptr) {
      unknown.push_back(route);
    }
  }
  if (!unknown.empty()) {
    const auto shown = std::min<std::size_t>(10, unknown.size());
    spdlog::warn(
        "the GTFS has no route for {} route ids seen in the feed ({}{}): their stops have "
        "near_terminal = null",
        unknown.size(),
        fmt::join(unknown.begin(), unknown.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
        unknown.size() > 10 ? ", ..." : "");
  }
  return unknown;
}

}  // namespace

base::Result<std::unique_ptr<ReplayContext>> LoadReplayContext(const ReplayConfig& config) {
  auto context = std::make_unique<ReplayContext>();
  FROTA_RETURN_IF_ERROR(job::ApplyRuleFlags(context->job, config.rules));
  if (!config.rules.empty()) {
    std::string rules;
    for (const auto& [key, value] : job::RuleValues(context->job)) {
      rules += fmt::format(" {}={}", key, value);
    }
    spdlog::info(
        "rules{} watermark_lag_s={}", rules,
        std::chrono::duration_cast<std::chrono::seconds>(context->job.max_lateness()).count());
  }
  std::string zone = config.time_zone;
  if (!config.gtfs.empty()) {
    FROTA_ASSIGN_OR_RETURN(auto feed, gtfs::StaticFeed::Load(config.gtfs));
    context->feed.emplace(std::move(feed));
    context->routes.emplace(*context->feed);
    context->terminals.emplace(*context->feed, *context->routes);
    const gtfs::TerminalIndex* terminals = &*context->terminals;
    const double radius = context->job.terminal_radius_m;
    context->job.near_terminal = [terminals, radius](std::string_view route, double lat,
                                                     double lon) {
      return terminals->NearTerminal(route, lat, lon, radius);
    };
    context->job.plan_slot = PlanSlotRule(*context->feed);
    if (zone.empty() && !context->feed->time_zone().empty()) {
      zone = std::string(context->feed->time_zone());
    }
  }
  if (!config.area.empty()) {
    FROTA_ASSIGN_OR_RETURN(auto area, geo::Area::LoadSpec(config.area));
    context->area.emplace(std::move(area));
    context->job.area = &*context->area;
  }
  if (zone.empty()) {
    zone = std::string(kDefaultZone);
  }
  FROTA_ASSIGN_OR_RETURN(auto tz, base::TimeZone::Load(zone));
  context->job.time_zone = std::make_shared<const base::TimeZone>(std::move(tz));
  return context;
}

std::function<bool(std::string_view, bool)> PlanSlotRule(const gtfs::StaticFeed& feed) {
  auto frequency_trips = std::make_shared<std::unordered_set<std::string>>();
  for (const auto& f : feed.frequencies()) {
    frequency_trips->insert(f.trip_id);
  }
  const gtfs::StaticFeed* plan = &feed;
  return [plan, frequency_trips](std::string_view trip_id, bool start_time_given) {
    if (plan->FindTrip(trip_id) == nullptr) {
      return false;  // a trip the plan does not have defines no slot of it
    }
    return !frequency_trips->contains(std::string(trip_id)) || start_time_given;
  };
}

base::Result<std::vector<source::PartitionInput>> ReplayPartitions(const ReplayConfig& config) {
  std::vector<source::InputSpec> specs;
  for (const auto& text : config.inputs) {
    FROTA_ASSIGN_OR_RETURN(auto spec, source::ParseInputSpec(text));
    specs.push_back(std::move(spec));
  }
  return source::ExpandInputs(specs, config.feed_id);
}

// The bronze archives among the inputs (`archive:ROOT`); the inputs parsed already.
std::vector<std::filesystem::path> ArchiveRoots(const std::vector<std::string>& inputs) {
  std::vector<std::filesystem::path> roots;
  for (const auto& text : inputs) {
    const auto spec = source::ParseInputSpec(text);
    if (spec.ok() && spec->archive) {
      roots.push_back(spec->path);
    }
  }
  return roots;
}

source::ReplayOptions ReplaySourceOptions(const ReplayConfig& config,
                                          const ReplayContext& context) {
  source::ReplayOptions options;
  options.mode = config.mode;
  options.time_zone = context.job.time_zone->name();
  return options;
}

std::int64_t InputBytes(const std::vector<source::PartitionInput>& partitions) {
  std::int64_t bytes = 0;
  for (const auto& p : partitions) {
    for (const auto& f : p.files) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(f, ec);
      bytes += ec ? 0 : static_cast<std::int64_t>(size);
    }
  }
  return bytes;
}

namespace {

// offered's index by partition id, looked up for every record: the ids are small and
// dense (ReplaySource numbers partitions 0, 1, 2...; a resume keeps the database's).
base::Result<std::vector<std::size_t>> IndexByPartition(
    const std::vector<engine::SourceProgress>& offered) {
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < offered.size(); ++i) {
    const std::int32_t id = offered[i].partition.value();
    if (id < 0) {
      return base::Internal("source partition id {} is negative", id);
    }
    if (static_cast<std::size_t>(id) >= index.size()) {
      index.resize(static_cast<std::size_t>(id) + 1, offered.size());
    }
    index[static_cast<std::size_t>(id)] = i;
  }
  return index;
}

// After each commit: the bronze that every downstream committed goes (`--retain-days`),
// and the test hook sees the epoch.
AsyncCommitter::AfterCommit AfterReplayCommit(const ReplayConfig& config, BronzeRetention& bronze) {
  if (!config.after_commit && !bronze.enabled()) {
    return {};
  }
  return [&config, &bronze](const engine::EpochCheckpoint& committed) {
    bronze.AfterCommit(0, committed);
    if (config.after_commit) {
      config.after_commit(committed.epoch.value());
    }
  };
}

// The report's figures once the input ended and every epoch is committed.
void FinishReport(ReplayReport& report, const EpochDriver& driver, const job::Pipeline& pipeline,
                  std::chrono::steady_clock::time_point started) {
  report.epochs = driver.epochs_cut();
  report.accepted = driver.tally().accepted;
  report.rejected = driver.tally().rejected;
  report.rows = driver.tally().rows;
  report.watermark = engine::WatermarkText(pipeline.watermark());
  report.duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  report.peak_rss_bytes = base::PeakRssBytes();
}

}  // namespace

base::Result<ReplayReport> RunReplay(const ReplayConfig& config, const ReplayContext& context,
                                     model::SourceCatalog& catalog,
                                     engine::TransactionalSink<model::EpochRows>& sink) {
  const auto started = std::chrono::steady_clock::now();
  ReplayReport report;
  report.inputs = config.inputs;
  report.partitions = config.partitions;
  report.rules = job::RuleValues(context.job);

  FROTA_ASSIGN_OR_RETURN(auto partitions, ReplayPartitions(config));
  report.input_bytes = InputBytes(partitions);

  FROTA_ASSIGN_OR_RETURN(auto recovered, sink.Recover());
  job::Pipeline pipeline(context.job, job::Routing::kByKeyHash, config.partitions, &catalog,
                         config.threads);
  engine::EpochPolicy policy(config.epoch_records, config.epoch_interval,
                             config.clock != nullptr ? *config.clock : base::SystemClock::Get(),
                             config.epoch_records_per_state_unit);

  // `--retain-days` also applies to the bronze archives replayed (`archive:ROOT`), as far
  // as each commit covers them.
  BronzeRetention bronze(config.retention.raw_days ? ArchiveRoots(config.inputs)
                                                   : std::vector<std::filesystem::path>(),
                         /*downstreams=*/1);
  // Offsets after the last record offered, per partition (filled once the input is
  // open): an epoch may end mid-batch, and what it commits must be exactly what the
  // pipeline has seen.
  std::vector<engine::SourceProgress> offered;
  // What the pipeline emits goes to the sink as it comes (the epoch's transaction takes
  // it; an epoch is never held whole).
  TransactionalOutput output(
      sink, pipeline, [&offered] { return offered; }, AfterReplayCommit(config, bronze),
      &pipeline.row_buffers());
  EpochDriver driver(pipeline, RegularityJobs::ForContext(context), policy, output);
  FROTA_RETURN_IF_ERROR(driver.Restore(recovered));
  driver.SetRetention(config.retention, context.job.time_zone);
  FROTA_ASSIGN_OR_RETURN(
      auto replay,
      source::ReplaySource::Open(std::move(partitions), &catalog,
                                 ReplaySourceOptions(config, context), recovered.progress));
  // The decoding thread interns the records into the pipeline's dictionary (it is the
  // dictionary's writer until the input ends: the pipeline is only offered interned
  // records), so that only ids cross to this thread. It starts here, after the restore,
  // which interns the state's texts: the dictionary has one writer at a time.
  source::InterningPrefetchingSource source(std::move(replay), config.batch_records,
                                            pipeline.interner());
  offered = source.Progress();
  FROTA_ASSIGN_OR_RETURN(const auto progress_index, IndexByPartition(offered));

  report.resumed = recovered.last_epoch.value() > 0;
  report.first_epoch = recovered.last_epoch.value() + 1;
  if (report.resumed) {
    spdlog::info("resuming after epoch {} watermark={}", recovered.last_epoch.value(),
                 engine::WatermarkText(pipeline.watermark()));
  }
  std::unordered_set<model::StringDictionary::Id> route_ids;  // of accepted positions
  if (context.routes) {
    driver.OnReleased([&route_ids](const model::EpochRows& rows) {
      for (const auto& p : rows.positions) {
        route_ids.insert(p.route_id);
      }
    });
  }
  if (config.publish_alerts) {
    driver.OnRegularityRows([&config](const model::EpochRows& rows) {
      const auto& alerts = rows.of<model::AlertRow>();
      return alerts.empty() ? base::Status::Ok() : config.publish_alerts(alerts);
    });
  }
  // What the next checkpoint will snapshot: vehicles plus records held for the watermark.
  const auto state_units = [&pipeline] {
    return static_cast<std::int64_t>(pipeline.vehicle_count() + pipeline.pending_records());
  };
  policy.SetStateUnits(state_units());
  const auto cut = [&]() -> base::Status {
    FROTA_RETURN_IF_ERROR(driver.CutEpoch());
    policy.SetStateUnits(state_units());
    spdlog::debug("next epoch spans at least {} records (state: {} vehicles, {} records held)",
                  std::max(policy.max_records(), policy.min_records()), pipeline.vehicle_count(),
                  pipeline.pending_records());
    return base::Status::Ok();
  };

  ProgressLine progress(config.progress);
  std::vector<source::InternedRecord> batch;
  while (true) {
    FROTA_ASSIGN_OR_RETURN(const bool more, source.Next(batch));
    if (!more) {
      break;
    }
    for (auto& record : batch) {
      offered[progress_index[static_cast<std::size_t>(record.partition.value())]].next_offset =
          base::Offset(record.offset + 1);
      if (auto* position = std::get_if<model::PositionRecord>(&record.record)) {
        driver.Offer(record.partition, std::move(*position), record.key_hash);
      } else {
        driver.Offer(record.partition, std::move(std::get<model::RejectionRecord>(record.record)),
                     record.key_hash);
      }
      ++report.records;
      if (policy.RecordsDue()) {
        FROTA_RETURN_IF_ERROR(cut());
      }
    }
    FROTA_RETURN_IF_ERROR(driver.ReleaseIfDue(config.batch_records));
    if (policy.Due()) {
      FROTA_RETURN_IF_ERROR(cut());
    }
    progress.Update(report.records, pipeline.watermark(), driver.epochs_cut(), 0);
  }
  FROTA_RETURN_IF_ERROR(driver.Finish());
  FROTA_RETURN_IF_ERROR(output.Drain());
  progress.Finish();
  report.skipped_records = source.source().skipped_records();
  if (context.routes) {
    report.unknown_routes = UnknownRoutes(*context.routes, route_ids, *pipeline.strings());
  }
  FinishReport(report, driver, pipeline, started);
  return report;
}

nlohmann::ordered_json RulesJson(const std::vector<job::RuleValue>& rules) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [key, value] : rules) {
    j[key] = value;
  }
  return j;
}

std::string ReportJson(const ReplayReport& report) {
  nlohmann::ordered_json j;
  j["inputs"] = report.inputs;
  j["input_bytes"] = report.input_bytes;
  j["records"] = report.records;
  j["skipped_records"] = report.skipped_records;
  j["accepted"] = report.accepted;
  j["rejected"] = report.rejected;
  j["rows"] = report.rows;
  j["epochs"] = report.epochs;
  j["first_epoch"] = report.first_epoch;
  j["resumed"] = report.resumed;
  j["partitions"] = report.partitions;
  j["watermark"] = report.watermark;
  j["unknown_routes"] = report.unknown_routes;
  j["rules"] = RulesJson(report.rules);
  j["duration_s"] = report.duration_s;
  j["records_per_s"] =
      report.duration_s > 0 ? static_cast<double>(report.records) / report.duration_s : 0.0;
  j["peak_rss_bytes"] = report.peak_rss_bytes;
  return j.dump(2);
}

}  // namespace frota::runner
