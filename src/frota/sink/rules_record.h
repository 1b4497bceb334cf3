// The rules a database's results were made with (table `rules`, schema version 6 in
// DuckDB, 4 in PostgreSQL): job/rules.h's keys and values, which the sinks only store.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frota/base/status.h"

namespace frota::sink {

/// (key, value) in the key's unit, as job::RuleValues lists them.
using RuleRecord = std::vector<std::pair<std::string, double>>;

/// Ok when `stored` (the database's rules; empty: none recorded yet) holds every key of
/// `wanted` with the same value. Otherwise an error naming `where`, the first key that
/// differs and both values: a database holds the results of one set of rules.
base::Status CheckRecordedRules(const RuleRecord& stored, const RuleRecord& wanted,
                                std::string_view where);

}  // namespace frota::sink
