// The id of one run of a frota command, as the ledgers and reports record it.
#pragma once

#include <string>

#include "frota/base/time.h"

namespace frota::base {

/// A new run id: the UTC second the run started and 32 random bits,
/// "20240605T061500Z-1a2b3c4d". Sorts by start time; two runs of one second differ.
std::string NewRunId(Timestamp now);

}  // namespace frota::base
