// Emptied silver row vectors kept for reuse between the thread that writes rows and the
// one that fills them.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "frota/model/position_record.h"
#include "frota/model/rejection_record.h"
#include "frota/model/rows.h"

namespace frota::model {

/// The `positions` and `rejected` vectors of rows already written, emptied, with their
/// capacity: a runner's commit thread gives them back after the sink has written them
/// (Give), and the jobs take them for the next rows they emit (TakePositions,
/// TakeRejected). A replay thus fills memory it already holds instead of a new vector per
/// batch, grown by reallocation and faulted in page by page, and freed on another thread.
///
/// Bounded: at most kMaxKept vectors of each kind, none holding more than
/// kMaxCapacity rows (the burst of an end of input is not kept). Thread-safe.
class RowBuffers {
 public:
  static constexpr std::size_t kMaxKept = 4;
  static constexpr std::size_t kMaxCapacity = std::size_t{1} << 16;

  /// Takes `rows.positions` and `rows.rejected` (cleared) if they are worth keeping;
  /// leaves them empty either way.
  void Give(EpochRows& rows);
  /// An empty vector, with the capacity of one given back if there is one.
  std::vector<PositionRecord> TakePositions();
  std::vector<RejectionRecord> TakeRejected();

 private:
  std::mutex mutex_;
  std::vector<std::vector<PositionRecord>> positions_;
  std::vector<std::vector<RejectionRecord>> rejected_;
};

}  // namespace frota::model
