#include "frota/model/row_buffers.h"

#include <utility>

namespace frota::model {

namespace {

template <typename T>
void Keep(std::vector<std::vector<T>>& kept, std::vector<T>& rows) {
  if (rows.capacity() == 0 || rows.capacity() > RowBuffers::kMaxCapacity ||
      kept.size() >= RowBuffers::kMaxKept) {
    std::vector<T>().swap(rows);  // freed here, by the thread that gives them back
    return;
  }
  rows.clear();
  kept.push_back(std::move(rows));
  rows = std::vector<T>();
}

template <typename T>
std::vector<T> Reuse(std::vector<std::vector<T>>& kept) {
  if (kept.empty()) {
    return {};
  }
  std::vector<T> rows = std::move(kept.back());
  kept.pop_back();
  return rows;
}

}  // namespace

void RowBuffers::Give(EpochRows& rows) {
  const std::lock_guard lock(mutex_);
  Keep(positions_, rows.positions);
  Keep(rejected_, rows.rejected);
}

std::vector<PositionRecord> RowBuffers::TakePositions() {
  const std::lock_guard lock(mutex_);
  return Reuse(positions_);
}

std::vector<RejectionRecord> RowBuffers::TakeRejected() {
  const std::lock_guard lock(mutex_);
  return Reuse(rejected_);
}

}  // namespace frota::model
