// The contract between a follower job and the committed output of a partitioned stream.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "frota/base/status.h"
#include "frota/base/time.h"

namespace frota::engine {

/// What the processes of a partitioned stream (the members of a Kafka consumer group)
/// have committed, read by ONE follower: a job that needs every partition's records at
/// once (a line's headways need all its vehicles, which the partitions split), and runs
/// behind them.
///
/// The frontier is the smallest watermark any partition of the stream has committed
/// (kWatermarkMax once every partition committed its end-of-input marker). A record
/// with an event time at or below a partition's watermark is late there, so once the
/// frontier is F every record at or below F that will ever be committed already is:
/// Read(after, F) is final, and the follower's output up to F is a function of the
/// records alone, whoever committed them and however the partitions moved.
///
/// Lead(name) makes this process the one follower called `name` among all that ask (the
/// others get false and ask again later); leadership ends when the connection that holds
/// it does (a crash, Release()). It keeps a second follower from doing the work twice;
/// exactly-once does not rest on it: the follower commits through a PartitionedSink
/// whose fence refuses a commit made from a state that is no longer the committed one.
template <typename Record>
class FollowedStream {
 public:
  virtual ~FollowedStream() = default;
  /// true: this process is (still) the follower `name`.
  virtual base::Result<bool> Lead(std::string_view name) = 0;
  virtual void Release() = 0;
  /// The frontier of `stream` over its partitions 0 .. partitions - 1; kWatermarkMin while
  /// any of them has committed no watermark.
  virtual base::Result<base::Timestamp> Frontier(std::string_view stream,
                                                 std::int32_t partitions) = 0;
  /// The event time of the first committed record later than `after`, if any.
  virtual base::Result<std::optional<base::Timestamp>> NextEventTime(base::Timestamp after) = 0;
  /// Every committed record with an event time in (after, through], in event-time order
  /// (ties in a fixed order of the record's key). The records may be streamed as they
  /// arrive: after an error `each` may have seen some of them, so a caller drops what it
  /// built from this read (the follower restarts from its committed state).
  virtual base::Status Read(base::Timestamp after, base::Timestamp through,
                            const std::function<void(const Record&)>& each) = 0;
};

}  // namespace frota::engine
