// The epoch protocol every runner follows: records into the jobs, the watermark advanced,
// released rows handed over, each epoch ended with its checkpoint.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/strong_id.h"
#include "frota/base/time.h"
#include "frota/base/time_zone.h"
#include "frota/engine/epoch.h"
#include "frota/engine/transactional_sink.h"
#include "frota/job/pipeline.h"
#include "frota/model/rows.h"
#include "frota/runner/async_committer.h"
#include "frota/runner/regularity_jobs.h"
#include "frota/runner/retention.h"

namespace frota::runner {

/// What ends an epoch, for the output that commits it.
struct EpochEnd {
  base::EpochId epoch;
  base::Timestamp watermark;
  std::int64_t records = 0;  // records offered in the epoch
  /// The runner state: the pipeline's, with the regularity jobs' when they run.
  std::string runner_state;
  /// Old rows the epoch's commit removes (retention), when the cuts moved.
  engine::Retention retention;
};

/// Where a driver's epochs go. Write gets rows of the open epoch as the jobs release
/// them (several times an epoch); EndEpoch ends it: the output snapshots what its commit
/// holds (all state partitions, or those a member owns) and commits it with the rows. It
/// says whether the epoch was handed over (false: dropped, as a fenced Kafka member's is,
/// whose state is not the committed one; its rows are not counted).
class EpochOutput {
 public:
  virtual ~EpochOutput() = default;
  virtual base::Status Write(model::EpochRows rows) = 0;
  virtual base::Result<bool> EndEpoch(const EpochEnd& end) = 0;
};

/// The rows and refusals an epoch released, added up for a run's report (`accepted`,
/// `rejected` by reason, `rows` by table: runner/row_counts.h).
struct RowTally {
  std::int64_t accepted = 0;
  std::map<std::string, std::int64_t> rejected;
  std::map<std::string, std::int64_t> rows;
};

/// Runs the epoch protocol over a job pipeline, for every runner: replay, live and Kafka
/// members differ only in where records come from, how their offsets are named and how
/// state partitions come and go, which they keep; this is the rest.
///
/// Protocol: Restore() once from what the sink recovered; then Offer() records as they are
/// read; Release() (or ReleaseIfDue()) runs the jobs on what the watermark allows and
/// hands the rows to the output; CutEpoch() ends the epoch: what is released, then the
/// regularity jobs' rows of the epoch's watermark (when the context has a plan), then
/// EpochOutput::EndEpoch with the runner state; Finish() flushes the watermark at the
/// end of recorded input and cuts the last epoch. An epoch holds what was offered before
/// its cut and nothing after, so what it commits is what the pipeline has seen.
///
/// Not thread-safe: one thread drives. `pipeline`, `output` and the policy outlive it.
class EpochDriver {
 public:
  EpochDriver(job::Pipeline& pipeline, std::unique_ptr<RegularityJobs> regularity,
              engine::EpochPolicy& policy, EpochOutput& output);

  /// Restores the pipeline and the regularity jobs from the sink's last checkpoint.
  base::Status Restore(const engine::RecoveredCheckpoint& recovered);
  /// Kafka members: no runner-level state, partitions are restored as they are assigned.
  void StartAfter(base::EpochId epoch) { epoch_ = epoch.value(); }

  /// A record into the jobs (job::Pipeline::Offer), counted for the epoch policy.
  template <typename Record>
  void Offer(base::PartitionId partition, Record&& record) {
    pipeline_.Offer(partition, std::forward<Record>(record));
    policy_.Count(1);
    ++offered_;
  }
  template <typename Record>
  void Offer(base::PartitionId partition, Record&& record, std::uint64_t key_hash) {
    pipeline_.Offer(partition, std::forward<Record>(record), key_hash);
    policy_.Count(1);
    ++offered_;
  }

  /// Rows of the open epoch that come from outside the jobs (the collector's polls).
  base::Status Write(model::EpochRows rows) { return HandOver(std::move(rows)); }
  /// Runs the jobs up to the watermark and hands what they released to the output.
  base::Status Release();
  /// Release() when job::Pipeline::AdvanceDue(min_records) says it is worth it.
  base::Status ReleaseIfDue(std::size_t min_records);
  /// Ends the open epoch (see the class comment).
  base::Status CutEpoch();
  /// End of recorded input: the watermark flushed, everything emitted, the last epoch cut.
  /// A pipeline restored finished that was offered nothing since cuts nothing: a rerun
  /// of a finished replay commits nothing.
  base::Status Finish();
  /// Forgets the rows released since the last cut (a fenced Kafka member's: its state is
  /// not the committed one) and starts a new epoch count.
  void DiscardOpenEpoch();

  [[nodiscard]] job::Pipeline& pipeline() { return pipeline_; }
  [[nodiscard]] engine::EpochPolicy& policy() { return policy_; }
  /// The rows of the epochs handed over so far.
  [[nodiscard]] const RowTally& tally() const { return tally_; }
  [[nodiscard]] std::int64_t epochs_cut() const { return epochs_cut_; }
  [[nodiscard]] std::int64_t last_epoch() const { return epoch_; }
  [[nodiscard]] bool has_regularity() const { return regularity_ != nullptr; }
  /// Rows released since the last cut (what the open epoch holds so far).
  [[nodiscard]] std::int64_t open_epoch_rows() const { return open_epoch_rows_; }
  /// Called with the accepted positions of every release (the replay's unknown routes).
  void OnReleased(std::function<void(const model::EpochRows&)> observer) {
    on_released_ = std::move(observer);
  }
  /// Retention: each epoch whose newest data moves the cuts removes what they leave
  /// behind, in its commit (the first epoch of a run always states them).
  void SetRetention(RetentionPolicy policy, std::shared_ptr<const base::TimeZone> zone) {
    retention_ = policy;
    zone_ = std::move(zone);
  }
  /// Called with each epoch's regularity rows before they are handed over (the alerts
  /// topic); an error stops the epoch.
  void OnRegularityRows(std::function<base::Status(const model::EpochRows&)> observer) {
    on_regularity_rows_ = std::move(observer);
  }

 private:
  base::Status HandOver(model::EpochRows rows);

  job::Pipeline& pipeline_;
  std::unique_ptr<RegularityJobs> regularity_;
  engine::EpochPolicy& policy_;
  EpochOutput& output_;
  RowTally tally_;
  RowTally open_tally_;  // the open epoch's, added to tally_ when it is handed over
  std::int64_t epoch_ = 0;
  std::int64_t epochs_cut_ = 0;
  std::int64_t offered_ = 0;  // records offered since Restore
  std::int64_t open_epoch_rows_ = 0;
  RetentionPolicy retention_;
  std::shared_ptr<const base::TimeZone> zone_;
  std::optional<engine::Retention> last_cuts_;  // the cuts this run's commits stated last
  std::function<void(const model::EpochRows&)> on_released_;
  std::function<base::Status(const model::EpochRows&)> on_regularity_rows_;
};

/// The output of runners with one transactional sink (replay, the embedded live run):
/// rows streamed to the sink's open epoch through an AsyncCommitter, each epoch committed
/// with every state partition's snapshot and the source offsets `progress` gives.
class TransactionalOutput final : public EpochOutput {
 public:
  TransactionalOutput(engine::TransactionalSink<model::EpochRows>& sink,
                      const job::Pipeline& pipeline,
                      std::function<std::vector<engine::SourceProgress>()> progress,
                      AsyncCommitter::AfterCommit after_commit = {},
                      model::RowBuffers* written = nullptr);
  base::Status Write(model::EpochRows rows) override;
  base::Result<bool> EndEpoch(const EpochEnd& end) override;
  /// Waits until every epoch handed over is committed (the first error, if any).
  base::Status Drain() { return committer_.Drain(); }

 private:
  const job::Pipeline& pipeline_;
  std::function<std::vector<engine::SourceProgress>()> progress_;
  AsyncCommitter committer_;
};

}  // namespace frota::runner
