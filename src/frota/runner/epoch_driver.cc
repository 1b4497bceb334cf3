#include "frota/runner/epoch_driver.h"

#include <spdlog/spdlog.h>

#include "frota/engine/watermark.h"
#include "frota/runner/row_counts.h"

namespace frota::runner {

EpochDriver::EpochDriver(job::Pipeline& pipeline, std::unique_ptr<RegularityJobs> regularity,
                         engine::EpochPolicy& policy, EpochOutput& output)
    : pipeline_(pipeline), regularity_(std::move(regularity)), policy_(policy), output_(output) {}

base::Status EpochDriver::Restore(const engine::RecoveredCheckpoint& recovered) {
  const bool resumed = recovered.last_epoch.value() > 0;
  engine::RecoveredCheckpoint state = recovered;
  if (regularity_) {
    FROTA_ASSIGN_OR_RETURN(state.runner_state,
                           regularity_->Restore(recovered.runner_state, resumed));
  }
  FROTA_RETURN_IF_ERROR(pipeline_.Restore(state));
  epoch_ = recovered.last_epoch.value();
  return base::Status::Ok();
}

base::Status EpochDriver::HandOver(model::EpochRows rows) {
  CountEpochRows(rows, open_tally_);
  open_epoch_rows_ += static_cast<std::int64_t>(rows.RowCount());
  return output_.Write(std::move(rows));
}

base::Status EpochDriver::Release() {
  pipeline_.Advance();
  model::EpochRows rows = pipeline_.TakeRows();
  if (regularity_) {
    regularity_->AddPositions(rows);
  }
  if (on_released_) {
    on_released_(rows);
  }
  return HandOver(std::move(rows));
}

base::Status EpochDriver::ReleaseIfDue(std::size_t min_records) {
  return pipeline_.AdvanceDue(min_records) ? Release() : base::Status::Ok();
}

base::Status EpochDriver::CutEpoch() {
  FROTA_RETURN_IF_ERROR(Release());
  if (regularity_) {
    // What the watermark made final: once per epoch (the detector reruns a vehicle's
    // day; the rows are the same whenever it runs).
    model::EpochRows rows;
    regularity_->Advance(pipeline_.watermark(), rows);
    if (on_regularity_rows_) {
      FROTA_RETURN_IF_ERROR(on_regularity_rows_(rows));
    }
    FROTA_RETURN_IF_ERROR(HandOver(std::move(rows)));
  }
  EpochEnd end;
  end.epoch = base::EpochId(++epoch_);
  end.watermark = pipeline_.watermark();
  end.records = policy_.records();
  end.runner_state = pipeline_.SnapshotRunner();
  if (regularity_) {
    end.runner_state = regularity_->Wrap(end.runner_state);
  }
  if (retention_.enabled() && zone_ != nullptr &&
      pipeline_.LatestEventTime() != engine::kWatermarkMin) {
    auto cuts = retention_.CutsAt(pipeline_.LatestEventTime(), *zone_);
    if (cuts != last_cuts_) {
      end.retention = std::move(cuts);
    }
  }
  spdlog::debug("epoch submitted epoch={} records={} rows={} watermark={}", epoch_, end.records,
                open_epoch_rows_, engine::WatermarkText(end.watermark));
  FROTA_ASSIGN_OR_RETURN(const bool handed_over, output_.EndEpoch(end));
  if (handed_over && !end.retention.empty()) {
    last_cuts_ = end.retention;
  }
  if (handed_over) {
    tally_.accepted += open_tally_.accepted;
    for (const auto& [reason, n] : open_tally_.rejected) {
      tally_.rejected[reason] += n;
    }
    for (const auto& [table, n] : open_tally_.rows) {
      tally_.rows[table] += n;
    }
  }
  open_tally_ = RowTally();
  ++epochs_cut_;
  open_epoch_rows_ = 0;
  policy_.Reset();
  return base::Status::Ok();
}

base::Status EpochDriver::Finish() {
  const bool already_finished = pipeline_.finished();
  pipeline_.Finish();
  if (already_finished && offered_ == 0) {
    return base::Status::Ok();  // a rerun that found nothing new: nothing to commit
  }
  return CutEpoch();  // the final epoch: what the end of input released
}

void EpochDriver::DiscardOpenEpoch() {
  (void)pipeline_.TakeRows();
  open_tally_ = RowTally();
  open_epoch_rows_ = 0;
  policy_.Reset();
}

TransactionalOutput::TransactionalOutput(
    engine::TransactionalSink<model::EpochRows>& sink, const job::Pipeline& pipeline,
    std::function<std::vector<engine::SourceProgress>()> progress,
    AsyncCommitter::AfterCommit after_commit, model::RowBuffers* written)
    : pipeline_(pipeline),
      progress_(std::move(progress)),
      committer_(sink, std::move(after_commit), written) {}

base::Status TransactionalOutput::Write(model::EpochRows rows) {
  return committer_.Write(std::move(rows));
}

base::Result<bool> TransactionalOutput::EndEpoch(const EpochEnd& end) {
  engine::EpochCheckpoint checkpoint;
  checkpoint.epoch = end.epoch;
  checkpoint.watermark = end.watermark;
  checkpoint.records = end.records;
  checkpoint.progress = progress_();
  checkpoint.states = pipeline_.SnapshotPartitions();
  checkpoint.runner_state = end.runner_state;
  checkpoint.retention = end.retention;
  FROTA_RETURN_IF_ERROR(committer_.Submit(model::EpochRows(), std::move(checkpoint)));
  return true;
}

}  // namespace frota::runner
