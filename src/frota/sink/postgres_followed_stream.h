// The committed positions of a Kafka consumer group in PostgreSQL, read by one follower.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>

#include "frota/engine/followed_stream.h"
#include "frota/model/position.h"
#include "frota/sink/pg_connection.h"

namespace frota::sink {

/// engine::FollowedStream over the tables the PostgreSQL sink writes: the frontier from
/// each partition's committed watermark (`engine_state.watermark`, schema version 7) and
/// end-of-input marker (`source_progress.finished`), the records from `positions` (the
/// fields a follower reads: feed, vehicle, route, trip, trip start date, event time,
/// latitude and longitude); each read first summarizes the pages of `positions` that its
/// BRIN index on event time has not summarized yet, so that it reads only the stretch it
/// asks for, not the whole table. Leadership is a session-level advisory lock on this object's
/// connection: it ends with the connection (a crash, a network failure), and a broken
/// connection is reopened by the next Lead(), which then asks for the lock again.
/// Release() ends the session, and so every lead this object holds.
///
/// Errors: an unreachable server is kUnavailable (the caller waits and asks again). Not
/// thread-safe.
class PostgresFollowedStream : public engine::FollowedStream<model::Position> {
 public:
  explicit PostgresFollowedStream(std::string dsn);
  ~PostgresFollowedStream() override;
  PostgresFollowedStream(const PostgresFollowedStream&) = delete;
  PostgresFollowedStream& operator=(const PostgresFollowedStream&) = delete;

  base::Result<bool> Lead(std::string_view name) override;
  void Release() override;
  base::Result<base::Timestamp> Frontier(std::string_view stream, std::int32_t partitions) override;
  base::Result<std::optional<base::Timestamp>> NextEventTime(base::Timestamp after) override;
  base::Status Read(base::Timestamp after, base::Timestamp through,
                    const std::function<void(const model::Position&)>& each) override;

 private:
  base::Status Connect();
  // brin_summarize_new_values on the positions' event-time index; a lock it cannot take
  // at once (VACUUM's) or a refusal is not an error, a lost connection is.
  base::Status SummarizeNew();

  std::string dsn_;
  std::unique_ptr<PgConnection> db_;
  std::set<std::string, std::less<>> held_;  // names this session leads
};

}  // namespace frota::sink
