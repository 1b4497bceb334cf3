// Polling the simulated server through the day: which buses each response lists, the
// fix each shows (with the feed's data faults), late copies of old responses; every
// response goes to the archive's writers and its records' facts to ExpectedOutcomes.
// Internal to sim: Simulate's middle phase.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "frota/base/status.h"
#include "frota/geo/area.h"
#include "frota/sim/expected_outcomes.h"
#include "frota/sim/faults.h"
#include "frota/sim/fleet.h"
#include "frota/sim/schedule.h"
#include "frota/sim/simulator.h"
#include "frota/sim/writer_pool.h"

namespace frota::sim {

inline constexpr double kPollS = 15;
inline constexpr double kReportAfterOffS = 600;  // polls go on this long after the last pull-in

// line_silent: a route and a window of the day in which the server leaves its buses out.
struct LineSilence {
  std::int32_t route = 0;
  double start = 0;
  double end = 0;
};

// A record a fault touched: its offset in the archive, the fault, the bus.
struct FaultRow {
  std::int64_t offset;
  Fault fault;
  std::int32_t vehicle;
};

// What the day's polls are given: all of it outlives PollDay.
struct PollPlan {
  const SimulateOptions* options;
  const DayPlan* plan;
  const Fleet* fleet;
  const geo::Area* area;
  std::int64_t day_start_us = 0;
  std::int64_t first_poll = 0;  // poll k is at k * kPollS seconds of the service day
  std::int64_t last_poll = 0;
  std::vector<std::pair<double, double>> outages;  // no poll answered, seconds of the day
  std::vector<LineSilence> silences;
};

// What the polls produced besides the archive: the faults injected and their chances.
struct PollCounts {
  std::vector<FaultRow> fault_rows;
  std::array<std::int64_t, kFaultCount> injected{};
  std::int64_t fresh_records = 0;
  std::int64_t records_over_300 = 0;
  std::int64_t headerless_fresh = 0;
  std::int64_t line_polls = 0;
  std::int64_t repeated_line_polls = 0;
  std::vector<std::int64_t> latency_histogram;  // fresh records per whole second of age
};

// Every poll from first_poll to last_poll, in order: records and responses counted into
// `summary`, facts offered to `expected` (finished here), responses submitted to
// `writers` (finished here too, so the archive is complete on return).
base::Result<PollCounts> PollDay(const PollPlan& day, WriterPool& writers,
                                 ExpectedOutcomes& expected, SimulateSummary& summary);

}  // namespace frota::sim
