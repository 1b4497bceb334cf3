// One request a collector made to a feed: the collector_polls table (docs/tables.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "frota/base/time.h"

namespace frota::model {

/// A poll: one HTTP request of a feed's poller (a scheduled poll or one of its retries),
/// whatever came of it. Failed requests never reach bronze; their poll rows are the only
/// trace they leave. (feed_id, polled_at) is unique: a feed's requests are sequential.
struct PollRow {
  std::string feed_id;
  base::Timestamp polled_at;     // when the request started (collector clock, UTC)
  std::int32_t attempt = 1;      // 1: the scheduled poll; 2, 3, ...: its retries
  std::int32_t http_status = 0;  // 0: no status line arrived (timeout, connection error)
  std::string failure;           // empty when the response was usable (200, 304)
  std::int64_t bytes = 0;        // body bytes received (archived bodies: their size)
  double duration_ms = 0;
  bool repeat = false;                  // an archived 200 that repeats the previous response
  std::optional<std::int64_t> records;  // decoded records of an archived 200
  std::string body;                     // the archived body's path (200 only), else empty
  std::string run_id;                   // the collector run that made the request
  bool operator==(const PollRow&) const = default;
};

}  // namespace frota::model
