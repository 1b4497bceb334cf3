// A test harness for operators: feed records and watermarks, snapshot, restore, read output.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"

namespace frota::engine::testing {

/// Drives one operator the way the runner does, without sources, sinks or threads.
///
/// `Operator` supplies: Add(Record&&), Advance(Timestamp watermark), TakeRows() -> Output,
/// Snapshot() -> std::string, Restore(std::string_view) -> base::Status.
/// `Output` supplies Append(Output&&) to accumulate.
///
/// A factory makes fresh operators, so a test can snapshot, throw the operator away
/// (as a crash would) and continue on a restored one, then compare the output with an
/// uninterrupted run.
template <typename Operator, typename RecordType, typename Output>
class OperatorHarness {
 public:
  using Factory = std::function<std::unique_ptr<Operator>()>;

  explicit OperatorHarness(Factory factory) : factory_(std::move(factory)), op_(factory_()) {}

  /// Offers a record (the caller decided it is not late).
  void Record(RecordType record) { op_->Add(std::move(record)); }

  /// Advances the watermark and collects what the operator emitted.
  void Watermark(base::Timestamp watermark) {
    op_->Advance(watermark);
    output_.Append(op_->TakeRows());
  }

  /// Snapshots the operator, replaces it with a fresh one restored from the snapshot,
  /// and returns the snapshot bytes. Rows emitted so far stay in output().
  base::Result<std::string> SnapshotAndRestore() {
    output_.Append(op_->TakeRows());
    std::string bytes = op_->Snapshot();
    auto restored = factory_();
    FROTA_RETURN_IF_ERROR(restored->Restore(bytes));
    op_ = std::move(restored);
    return bytes;
  }

  Operator& op() { return *op_; }
  Output& output() { return output_; }

 private:
  Factory factory_;
  std::unique_ptr<Operator> op_;
  Output output_;
};

}  // namespace frota::engine::testing
