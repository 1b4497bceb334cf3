// The rows of the regularity tables `departures`, `headways` and `alerts`
// (sql/schema_v7.sql) as a DuckDB appender takes them: the one place that spells their
// columns for both the sink (the streaming jobs) and `frota headways` (which recomputes
// them; batch/sql/headways.sql creates the first two alike).
#pragma once

#include <vector>

#include "frota/base/status.h"
#include "frota/model/rows.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::sink {

const std::vector<ColumnType>& DepartureColumns();
const std::vector<ColumnType>& HeadwayColumns();
const std::vector<ColumnType>& AlertColumns();

/// One row each; the appender must have the columns above.
base::Status AppendDeparture(ChunkAppender& a, const model::DepartureRow& row);
base::Status AppendHeadway(ChunkAppender& a, const model::HeadwayRow& row);
base::Status AppendAlert(ChunkAppender& a, const model::AlertRow& row);

}  // namespace frota::sink
