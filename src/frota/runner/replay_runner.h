// Drives recorded inputs through the job pipeline into a transactional sink, epoch by epoch.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "frota/base/clock.h"
#include "frota/base/status.h"
#include "frota/engine/transactional_sink.h"
#include "frota/geo/area.h"
#include "frota/gtfs/route_resolver.h"
#include "frota/gtfs/static_feed.h"
#include "frota/gtfs/terminals.h"
#include "frota/job/config.h"
#include "frota/job/rules.h"
#include "frota/model/rows.h"
#include "frota/model/source.h"
#include "frota/runner/retention.h"
#include "frota/source/input.h"
#include "frota/source/replay_source.h"

namespace frota::runner {

/// What `frota replay` was asked to do.
struct ReplayConfig {
  std::vector<std::string> inputs;  // FORMAT:PATH or PATH
  std::string feed_id;              // empty: each format's name
  std::optional<model::Mode> mode;
  std::string time_zone;  // empty: the GTFS agency's zone, else America/Sao_Paulo
  std::string gtfs;       // empty: none
  std::string area;       // GeoJSON path, optionally #PROPERTY=VALUE; empty: rule 4 off
  /// GeoJSON of the garages, as `area`; a stop inside one is at a depot (the sinks record
  /// them, stop_rows reads them). Empty: depots are found in the data.
  std::string garages;
  std::vector<std::string> rules;  // `--rule KEY=VALUE` (job/rules.h), applied in order
  std::int32_t partitions = 1;
  std::size_t threads = 1;
  std::int64_t epoch_records = 1'000'000;
  std::chrono::milliseconds epoch_interval{2000};
  /// An epoch also spans at least this many records per unit of state its checkpoint
  /// holds (engine::EpochPolicy; 0: exactly epoch_records / epoch_interval, as an
  /// explicit --epoch-records asks). An epoch's fixed cost (snapshot, commit, DuckDB's
  /// cache brought down) was about 55 ms plus 1.8 us per unit, against 0.9 us of work per
  /// record: 64 keeps it to a few percent. On the Rio day (about 30 k units: 3,600
  /// vehicles, 25 k records held) epochs span about 2 M records; on a day 8 times larger,
  /// 12-16 M (92 epochs of 1 M took 105 s there; 10 epochs, 66 s).
  std::int64_t epoch_records_per_state_unit = 64;
  /// Records the decoding thread hands over at a time; the pipeline advances after a
  /// batch once at least this many and job::Pipeline::AdvanceDue's share per vehicle
  /// wait (Rio's 3,600 vehicles: after every batch).
  std::size_t batch_records = 16384;
  bool progress = false;  // a progress line on stderr
  /// Processing time for epoch_interval; null: base::SystemClock::Get().
  base::Clock* clock = nullptr;
  /// Test hook: called after each committed epoch with its number.
  std::function<void(std::int64_t)> after_commit;
  /// With a GTFS: called with each epoch's alert rows (raised or closed; a closing row
  /// repeats its alert whole) before the epoch is submitted to the sink (`--alerts-topic`).
  /// An epoch redone after a crash calls it again with the same rows.
  std::function<base::Status(const std::vector<model::AlertRow>&)> publish_alerts;
  /// Retention (`--retain-days`, `--retain-results-days`): none by default.
  RetentionPolicy retention;
};

/// Static context loaded once: GTFS, route resolution, terminals, area, garages, zone.
struct ReplayContext {
  std::optional<gtfs::StaticFeed> feed;
  std::optional<gtfs::RouteResolver> routes;
  std::optional<gtfs::TerminalIndex> terminals;
  std::optional<geo::Area> area;
  std::optional<geo::Area> garages;
  job::JobConfig job;
};

/// Loads the GTFS, area, garages and zone a replay (or a reconcile) needs, and applies
/// `config.rules` to the defaults; errors name the file or the rule.
base::Result<std::unique_ptr<ReplayContext>> LoadReplayContext(const ReplayConfig& config);

/// The source partitions of `config.inputs`: each input parsed ("FORMAT:PATH", "archive:ROOT"
/// or PATH) and expanded as source::ExpandInputs does. Every command that replays recorded
/// input (replay, publish, reconcile, bench/engine_ceiling) reads it through this and
/// ReplaySourceOptions, so they all see the same records.
base::Result<std::vector<source::PartitionInput>> ReplayPartitions(const ReplayConfig& config);

/// The trips job's plan_slot rule for `feed` (semantics §4 quality): a trip of the plan
/// without frequencies is a slot; a frequency trip only when the feed gave its start
/// time; a trip the plan does not have, none. `feed` must outlive the rule.
std::function<bool(std::string_view trip_id, bool start_time_given)> PlanSlotRule(
    const gtfs::StaticFeed& feed);
/// How every partition of a replay is read: the mode asked for, the context's zone.
source::ReplayOptions ReplaySourceOptions(const ReplayConfig& config, const ReplayContext& context);
/// The size of the partitions' files in bytes (a file that cannot be read counts 0).
std::int64_t InputBytes(const std::vector<source::PartitionInput>& partitions);

/// The run report (`--report`): what went in, what came out, how long it took.
struct ReplayReport {
  std::vector<std::string> inputs;
  std::int64_t records = 0;  // records offered this run (after skipping committed ones)
  std::int64_t skipped_records = 0;
  std::int64_t accepted = 0;
  std::map<std::string, std::int64_t> rejected;  // by reason
  std::map<std::string, std::int64_t> rows;      // by output table
  std::int64_t epochs = 0;
  std::int64_t first_epoch = 0;
  double duration_s = 0;
  std::int64_t peak_rss_bytes = 0;
  std::int64_t input_bytes = 0;
  std::int32_t partitions = 0;
  std::string watermark;                    // after the run
  std::vector<std::string> unknown_routes;  // seen in the feed, not in the GTFS
  bool resumed = false;
  std::vector<job::RuleValue> rules;  // the rules the run applied (job::RuleValues)
};

/// Replays `config.inputs` to the end into `sink`, resuming from what the sink has
/// committed. Each epoch commits rows, offsets and state together.
base::Result<ReplayReport> RunReplay(const ReplayConfig& config, const ReplayContext& context,
                                     model::SourceCatalog& catalog,
                                     engine::TransactionalSink<model::EpochRows>& sink);

/// The report as JSON text.
std::string ReportJson(const ReplayReport& report);

/// The rules as a report's `rules` object: {"future_tolerance_s": 30, ...}, in
/// job::RuleKeys' order.
nlohmann::ordered_json RulesJson(const std::vector<job::RuleValue>& rules);

}  // namespace frota::runner
