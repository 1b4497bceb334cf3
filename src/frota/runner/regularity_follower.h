// The regularity jobs of a Kafka consumer group: one follower over every member's output.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/clock.h"
#include "frota/base/status.h"
#include "frota/engine/followed_stream.h"
#include "frota/engine/partitioned_sink.h"
#include "frota/model/position.h"
#include "frota/model/rows.h"

namespace frota::runner {

struct ReplayContext;

struct RegularityFollowerConfig {
  std::string topic;            // the group's topic
  std::int32_t partitions = 0;  // its partition count
  /// How often the frontier is read when the follower has caught up (each epoch writes the
  /// stream's whole state: about 30 minutes of every vehicle's positions), and how often a
  /// member that does not lead asks for the lead.
  std::chrono::milliseconds interval{5000};
  /// With `until_end`, how often such a wait asks whether it can end early: a leader that
  /// has caught up runs its last epoch once every partition has committed its end of
  /// input, and a member that does not lead leaves once the follower's end is committed.
  /// So a member run to the end leaves within about this much of it, not `interval`.
  std::chrono::milliseconds end_check{1000};
  /// How much is read and committed in one epoch when the follower is behind (it started
  /// after the members, or they ran ahead): a stretch of event time that starts at
  /// `slice` and adapts, within [1 minute, 7 days], so that an epoch reads about
  /// `epoch_positions` positions (a dense feed: less than 15 minutes; a sparse one: more).
  /// Fewer, larger epochs cost less: each writes the stream's whole state (megabytes on a
  /// city's day), and the members' commits interleave event times, so the BRIN range
  /// read of a short stretch also scans many rows of its neighbours (docs/performance.md,
  /// "The regularity follower").
  std::chrono::microseconds slice{std::chrono::minutes(15)};
  std::int64_t epoch_positions = 300'000;
  /// Return once the follower's end of input is committed (by this process or another):
  /// `frota run --kafka --until-end`.
  bool until_end = false;
  /// Each epoch's alert rows, before the epoch is committed (`--alerts-topic`); may be
  /// empty. An epoch redone after a crash hands them over again.
  std::function<base::Status(const std::vector<model::AlertRow>&)> publish_alerts;
  /// Waits between rounds; null: base::SystemClock::Get().
  base::Clock* clock = nullptr;
};

struct RegularityFollowerReport {
  bool led = false;       // this process was the follower at some point
  bool finished = false;  // the follower's end of input is committed
  std::int64_t epochs = 0;
  std::int64_t positions = 0;
  std::int64_t departures = 0;
  std::int64_t headways = 0;
  std::int64_t alerts = 0;
  std::int64_t fenced = 0;
};

/// The follower's stream in the sink: "TOPIC#regularity" ('#' is not a topic name's).
std::string RegularityFollowerStream(std::string_view topic);

/// The follower's state, stored as partition 0's of its stream: checkpoint kind
/// `regularity-follower`, version 1 (engine/checkpoint.h) around the event time read
/// through, the positions read, whether it finished, and regularity::Stream's snapshot.
struct RegularityFollowerState {
  base::Timestamp through = base::Timestamp::min();  // every position up to here was added
  std::int64_t positions = 0;                        // positions read so far (the "offset")
  bool finished = false;
  std::string stream;  // regularity::Stream::Snapshot
};
std::string SealRegularityFollowerState(const RegularityFollowerState& state);
/// Errors say what is wrong: not such a checkpoint, another version, corrupt or short.
base::Result<RegularityFollowerState> OpenRegularityFollowerState(std::string_view sealed);

/// Departures, headways and alerts for the members of a consumer group. Each member owns
/// some vehicles' partitions, and a line's headways need all its vehicles, so the jobs run
/// once, behind the members, over what they committed: every member runs this loop and
/// one at a time leads (`input.Lead`; another takes over when the leader dies).
///
/// The leader restores its state from the sink (stream RegularityFollowerStream(topic),
/// partition 0: the regularity stream's state and the event time it has read through),
/// then, whenever the group's frontier (engine::FollowedStream) has moved past that
/// time, reads the committed positions up to it (at most `slice` at a time), advances
/// regularity::Stream to it and commits the rows that became final with its new state in
/// ONE sink transaction, fenced like a partition: a leader that lost the lead without
/// noticing cannot commit over its successor. When every partition has ended, the stream
/// finishes and its last epoch marks the follower's partition finished. The rows are
/// those of `frota headways` over the final positions, and of an embedded
/// `frota replay --gtfs` of the same input.
///
/// Returns when `stop` is raised, or (until_end) once the follower has finished; errors
/// other than an unreachable database end it.
base::Result<RegularityFollowerReport> RunRegularityFollower(
    const RegularityFollowerConfig& config, const ReplayContext& context,
    engine::FollowedStream<model::Position>& input, engine::PartitionedSink<model::EpochRows>& sink,
    const std::atomic<bool>& stop);

}  // namespace frota::runner
