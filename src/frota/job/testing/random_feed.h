// Random but realistic position streams for differential tests: driving, stopping,
// trips, and every fault the rules handle, delivered in a shuffled arrival order.
#pragma once

#include <cstdint>
#include <vector>

#include "frota/job/testing/reference_jobs.h"
#include "frota/model/source.h"

namespace frota::job::testing {

struct RandomFeedOptions {
  std::uint64_t seed = 1;
  int vehicles = 12;
  int source_partitions = 3;
  int minutes = 240;
  /// Arrival disorder: how far (in records) a record may move from ingest order.
  int shuffle_window = 8;
};

/// Generates records with exact-300 s and exact-900 s gaps, jitter around the 50 m stop
/// radius, duplicates (same event time, sometimes from another source), jumps, trip
/// reassignments while parked, future and stale clocks, and positions outside a
/// 0.2-degree box around the centre. Source names are registered in `catalog`.
std::vector<OfferedRecord> GenerateRandomFeed(const RandomFeedOptions& options,
                                              model::SourceCatalog& catalog);

/// The area the generator's out-of-area positions fall outside of.
std::string RandomFeedAreaGeoJson();

}  // namespace frota::job::testing
