// The regularity jobs of a runner given a GTFS plan, and their part of the runner state.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/model/rows.h"
#include "frota/regularity/stream.h"

namespace frota::runner {

struct ReplayContext;

/// The regularity stream of a context with a GTFS plan (feed, routes, zone, holidays).
std::unique_ptr<regularity::Stream> NewRegularityStream(const ReplayContext& context);

/// The departures, headways and alerts (regularity::Stream) a runner computes beside its
/// pipeline when the context has a GTFS plan. Their state travels in the epoch's runner
/// state: the pipeline's bytes and the stream's, one after the other, behind a marker a
/// pipeline's state never starts with, so a database written without the jobs is told
/// apart (and refused on resume: the stream would miss its past).
///
/// Lifecycle: ForContext(), Restore() the recovered state once, then per epoch
/// AddPositions() for every batch of rows the pipeline releases and Advance() once; Wrap()
/// the pipeline's state into the checkpoint. Not thread-safe. `context` must outlive it.
class RegularityJobs {
 public:
  /// nullptr when the context has no GTFS plan.
  static std::unique_ptr<RegularityJobs> ForContext(const ReplayContext& context);

  /// Restores the stream's part of a recovered runner state and returns the pipeline's.
  /// `resumed`: the sink had committed epochs; a state without the jobs is then refused.
  base::Result<std::string> Restore(std::string_view runner_state, bool resumed);
  void AddPositions(const model::EpochRows& rows) { stream_->AddPositions(rows); }
  /// What the watermark made final, once per epoch, appended to `out`.
  void Advance(base::Timestamp watermark, model::EpochRows& out) {
    stream_->Advance(watermark, out);
  }
  /// The runner state of an epoch: the pipeline's and the stream's.
  [[nodiscard]] std::string Wrap(const std::string& pipeline_state) const;
  /// The same of two given states: the marker "frota-regularity-1", then each state's bytes
  /// behind its length (base::ByteWriter::String).
  static std::string WrapStates(std::string_view pipeline_state, std::string_view stream_state);

  /// Splits a runner state that may hold the jobs' part (none: `stream` empty).
  struct States {
    std::string pipeline;
    std::string stream;
    bool wrapped = false;
  };
  static base::Result<States> Unwrap(std::string_view runner_state);

  explicit RegularityJobs(const ReplayContext& context);

 private:
  std::unique_ptr<regularity::Stream> stream_;
};

}  // namespace frota::runner
