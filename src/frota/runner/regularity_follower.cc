#include "frota/runner/regularity_follower.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "frota/base/bytes.h"
#include "frota/engine/checkpoint.h"
#include "frota/regularity/stream.h"
#include "frota/runner/regularity_jobs.h"
#include "frota/runner/replay_runner.h"

namespace frota::runner {

namespace {

constexpr std::string_view kStateKind = "regularity-follower";
constexpr std::uint32_t kStateVersion = 1;
const base::PartitionId kPartition(0);

std::string TimeText(base::Timestamp t) {
  if (t == base::Timestamp::min()) {
    return "none";
  }
  return t == base::Timestamp::max() ? "end" : base::FormatIso8601(t);
}

// The leader's working state: the stream and how far it has read.
struct Leader {
  std::unique_ptr<regularity::Stream> stream;
  base::Timestamp through = base::Timestamp::min();  // every position up to here was added
  std::int64_t positions = 0;                        // positions read so far (the "offset")
  bool finished = false;

  [[nodiscard]] std::string Seal() const {
    return SealRegularityFollowerState({through, positions, finished, stream->Snapshot()});
  }

  base::Status Open(std::string_view sealed) {
    FROTA_ASSIGN_OR_RETURN(auto state, OpenRegularityFollowerState(sealed));
    through = state.through;
    positions = state.positions;
    finished = state.finished;
    return stream->Restore(state.stream);
  }
};

class Follower {
 public:
  Follower(const RegularityFollowerConfig& config, const ReplayContext& context,
           engine::FollowedStream<model::Position>& input,
           engine::PartitionedSink<model::EpochRows>& sink)
      : config_(config),
        context_(context),
        input_(input),
        sink_(sink),
        clock_(config.clock != nullptr ? *config.clock : base::SystemClock::Get()),
        name_(RegularityFollowerStream(config.topic)),
        slice_(config.slice) {}

  base::Result<RegularityFollowerReport> Run(const std::atomic<bool>& stop) {
    while (!stop.load()) {
      auto step = Step();
      if (!step.ok()) {
        if (step.error().kind() != base::Error::Kind::kUnavailable) {
          return step.error().WithContext("regularity follower");
        }
        if (step.error().message() != last_wait_) {
          last_wait_ = step.error().message();
          spdlog::warn("regularity follower waiting: {}", last_wait_);
        }
        Drop();
        Pause(stop, /*ask_for_end=*/false);
        continue;
      }
      last_wait_.clear();
      if (*step == Next::kDone) {
        break;
      }
      if (*step == Next::kWait) {
        Pause(stop, /*ask_for_end=*/true);
      }
    }
    return report_;
  }

 private:
  enum class Next { kMore, kWait, kDone };

  // Waits `interval` in small steps, so a stop is seen quickly; run to the end, asks every
  // `end_check` whether the end has come (EndReached) and returns once it has.
  void Pause(const std::atomic<bool>& stop, bool ask_for_end) {
    const auto step = std::chrono::milliseconds(100);
    const bool asks = ask_for_end && config_.until_end && config_.end_check < config_.interval;
    auto since_asked = std::chrono::milliseconds(0);
    for (auto waited = std::chrono::milliseconds(0); waited < config_.interval && !stop.load();
         waited += step) {
      const auto sleep = std::min(step, config_.interval - waited);
      clock_.SleepFor(sleep);
      since_asked += sleep;
      if (asks && since_asked >= config_.end_check) {
        since_asked = std::chrono::milliseconds(0);
        if (EndReached()) {
          return;
        }
      }
    }
  }

  // Whether a wait for more input can stop: for the leader, every partition has committed
  // its end of input past what it read (its last epoch can run); for a member that does
  // not lead, the follower's end is committed. An error is a no: the next round meets it.
  bool EndReached() {
    if (leader_) {
      const auto frontier = input_.Frontier(config_.topic, config_.partitions);
      return frontier.ok() && *frontier == base::Timestamp::max() && leader_->through < *frontier;
    }
    const auto finished = sink_.FinishedPartitions(name_);
    return finished.ok() && *finished >= 1;
  }

  // Forgets the lead (its state is the sink's again).
  void Drop() {
    if (leader_) {
      sink_.Release({kPartition});
      leader_.reset();
    }
    input_.Release();
  }

  base::Result<Next> Step() {
    FROTA_ASSIGN_OR_RETURN(const bool lead, input_.Lead(name_));
    if (!lead) {
      if (leader_) {
        spdlog::warn("regularity follower: lost the lead of {}", name_);
        Drop();
      }
      if (config_.until_end) {
        FROTA_ASSIGN_OR_RETURN(const auto finished, sink_.FinishedPartitions(name_));
        if (finished >= 1) {
          report_.finished = true;
          return Next::kDone;
        }
      }
      return Next::kWait;
    }
    if (!leader_) {
      FROTA_RETURN_IF_ERROR(Acquire());
    }
    if (leader_->finished) {
      report_.finished = true;
      return config_.until_end ? Next::kDone : Next::kWait;
    }
    FROTA_ASSIGN_OR_RETURN(const auto frontier, input_.Frontier(config_.topic, config_.partitions));
    if (frontier <= leader_->through) {
      return Next::kWait;
    }
    FROTA_ASSIGN_OR_RETURN(const auto end, SliceEnd(frontier));
    return Epoch(end, frontier);
  }

  base::Status Acquire() {
    FROTA_ASSIGN_OR_RETURN(const auto checkpoints, sink_.Acquire(name_, {kPartition}));
    auto leader = std::make_unique<Leader>();
    leader->stream = NewRegularityStream(context_);
    if (!checkpoints.empty() && !checkpoints.front().state.empty()) {
      FROTA_RETURN_IF_ERROR(leader->Open(checkpoints.front().state));
    }
    leader_ = std::move(leader);
    report_.led = true;
    spdlog::info("regularity follower: leading {} through={} positions={}", name_,
                 TimeText(leader_->through), leader_->positions);
    return base::Status::Ok();
  }

  // Where this epoch's read ends: at most `slice` past what was read, past a stretch
  // without positions at once, never past the frontier.
  base::Result<base::Timestamp> SliceEnd(base::Timestamp frontier) {
    base::Timestamp start = leader_->through;
    if (start == base::Timestamp::min() || !read_last_) {
      // After a stretch without positions (or at the start), find the next one.
      FROTA_ASSIGN_OR_RETURN(const auto next, input_.NextEventTime(start));
      if (!next || *next > frontier) {
        return frontier;  // nothing to read up to the frontier
      }
      start = *next - base::Micros(1);  // (through, start] holds nothing
    }
    return frontier - start > slice_ ? start + slice_ : frontier;
  }

  // The next slice, from what the last one read.
  void Adapt(std::int64_t read) {
    const std::int64_t target = std::max<std::int64_t>(config_.epoch_positions, 1);
    if (read < target / 4) {
      slice_ = std::min<base::Micros>(slice_ * 2, std::chrono::days(7));
    } else if (read > target) {
      slice_ = std::max<base::Micros>(slice_ / 2, std::chrono::minutes(1));
    }
  }

  base::Result<Next> Epoch(base::Timestamp end, base::Timestamp frontier) {
    Leader& l = *leader_;
    std::int64_t read = 0;
    regularity::Stream& stream = *l.stream;
    // Where an epoch's time goes, for the debug line only: steady_clock, as base/clock.h
    // allows.
    const auto started = std::chrono::steady_clock::now();
    FROTA_RETURN_IF_ERROR(input_.Read(l.through, end, [&](const model::Position& p) {
      stream.Add(p.feed_id, p.vehicle_id, p.event_time, p.lat, p.lon, p.route_id, p.trip_id,
                 p.trip_start_date);
      ++read;
    }));
    const auto was_read = std::chrono::steady_clock::now();
    model::EpochRows out;
    const bool finishing = end == base::Timestamp::max();
    if (finishing) {
      stream.Finish(out);
    } else {
      stream.Advance(end, out);
    }
    const base::Timestamp previous = l.through;
    l.through = end;
    l.positions += read;
    l.finished = finishing;
    const auto advanced = std::chrono::steady_clock::now();
    engine::PartitionedEpoch epoch;
    epoch.epoch = base::EpochId(++epoch_);  // per process run, across leads
    epoch.watermark = end;
    epoch.records = read;
    epoch.progress.push_back(
        {fmt::format("{}/{}", name_, kPartition.value()), kPartition, base::Offset(l.positions)});
    epoch.states.push_back({kPartition, l.Seal(), end});
    if (finishing) {
      epoch.finished.push_back(kPartition);
    }
    const auto sealed = std::chrono::steady_clock::now();
    const std::size_t state_bytes = epoch.states.back().bytes.size();
    if (config_.publish_alerts && !out.of<model::AlertRow>().empty()) {
      FROTA_RETURN_IF_ERROR(config_.publish_alerts(out.of<model::AlertRow>()));
    }
    FROTA_ASSIGN_OR_RETURN(const auto outcome, sink_.CommitPartitions(out, epoch));
    const auto committed = std::chrono::steady_clock::now();
    if (outcome == engine::CommitOutcome::kFenced) {
      spdlog::warn("regularity follower: fenced at through={}; another process leads {}",
                   TimeText(previous), name_);
      ++report_.fenced;
      Drop();
      return Next::kWait;
    }
    ++report_.epochs;
    Adapt(read);
    read_last_ = read > 0;
    report_.positions += read;
    report_.departures += static_cast<std::int64_t>(out.of<model::DepartureRow>().size());
    report_.headways += static_cast<std::int64_t>(out.of<model::HeadwayRow>().size());
    report_.alerts += static_cast<std::int64_t>(out.of<model::AlertRow>().size());
    const auto ms = [](auto from, auto to) {
      return std::chrono::duration<double, std::milli>(to - from).count();
    };
    spdlog::debug(
        "regularity follower epoch={} through={} positions={} rows={} state_bytes={} "
        "read_ms={:.0f} advance_ms={:.0f} seal_ms={:.0f} commit_ms={:.0f}",
        epoch_, TimeText(end), read, out.RowCount(), state_bytes, ms(started, was_read),
        ms(was_read, advanced), ms(advanced, sealed), ms(sealed, committed));
    if (finishing) {
      report_.finished = true;
      spdlog::info("regularity follower: finished {} positions={}", name_, l.positions);
      return config_.until_end ? Next::kDone : Next::kWait;
    }
    return end < frontier ? Next::kMore : Next::kWait;
  }

  const RegularityFollowerConfig& config_;
  const ReplayContext& context_;
  engine::FollowedStream<model::Position>& input_;
  engine::PartitionedSink<model::EpochRows>& sink_;
  base::Clock& clock_;
  const std::string name_;
  std::unique_ptr<Leader> leader_;
  std::int64_t epoch_ = 0;
  base::Micros slice_;
  bool read_last_ = false;  // the last epoch read positions
  RegularityFollowerReport report_;
  std::string last_wait_;
};

}  // namespace

std::string RegularityFollowerStream(std::string_view topic) {
  return fmt::format("{}#regularity", topic);
}

std::string SealRegularityFollowerState(const RegularityFollowerState& state) {
  base::ByteWriter w;
  w.I64(state.through.time_since_epoch().count());
  w.I64(state.positions);
  w.Bool(state.finished);
  w.String(state.stream);
  return engine::SealCheckpoint(kStateKind, kStateVersion, w.Take());
}

base::Result<RegularityFollowerState> OpenRegularityFollowerState(std::string_view sealed) {
  FROTA_ASSIGN_OR_RETURN(const auto payload,
                         engine::OpenCheckpoint(sealed, kStateKind, kStateVersion));
  base::ByteReader r(payload);
  RegularityFollowerState state;
  FROTA_ASSIGN_OR_RETURN(const auto micros, r.I64());
  state.through = base::Timestamp(base::Micros(micros));
  FROTA_ASSIGN_OR_RETURN(state.positions, r.I64());
  FROTA_ASSIGN_OR_RETURN(state.finished, r.Bool());
  FROTA_ASSIGN_OR_RETURN(const auto stream, r.String());
  state.stream = std::string(stream);
  if (!r.AtEnd()) {
    return base::InvalidInput("regularity follower state: {} bytes after its end", r.remaining());
  }
  return state;
}

base::Result<RegularityFollowerReport> RunRegularityFollower(
    const RegularityFollowerConfig& config, const ReplayContext& context,
    engine::FollowedStream<model::Position>& input, engine::PartitionedSink<model::EpochRows>& sink,
    const std::atomic<bool>& stop) {
  if (config.partitions <= 0) {
    return base::InvalidInput("regularity follower: the topic {} has no partitions", config.topic);
  }
  if (!context.feed || !context.routes) {
    return base::InvalidInput("regularity follower: needs a GTFS plan (--gtfs)");
  }
  Follower follower(config, context, input, sink);
  return follower.Run(stop);
}

}  // namespace frota::runner
