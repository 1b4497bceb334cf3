#include "frota/runner/bronze_retention.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "frota/source/bronze_retention.h"

namespace frota::runner {

BronzeRetention::BronzeRetention(std::vector<std::filesystem::path> archives, int downstreams,
                                 std::chrono::seconds retry_interval)
    : archives_(std::move(archives)),
      retry_interval_(retry_interval),
      committed_(static_cast<std::size_t>(std::max(downstreams, 1))) {}

void BronzeRetention::AfterCommit(int downstream, const engine::EpochCheckpoint& committed) {
  AfterCommit(downstream, committed.retention.raw, committed.progress);
}

void BronzeRetention::AfterCommit(int downstream, const std::optional<engine::RetentionCut>& cut,
                                  const std::vector<engine::SourceProgress>& committed) {
  if (archives_.empty()) {
    return;
  }
  const std::lock_guard lock(mutex_);
  committed_.at(static_cast<std::size_t>(downstream)) = committed;
  if (cut && (!cut_ || cut->before_instant > cut_->before_instant)) {
    cut_ = cut;
  }
  if (!cut_ || (done_before_ && *done_before_ >= cut_->before_instant)) {
    return;
  }
  // A new cut is applied at once; one that left records behind (not yet committed
  // everywhere) at most once a retry interval, as each attempt lists every feed's hours.
  const auto now = std::chrono::steady_clock::now();
  if (tried_before_ == cut_->before_instant && now - last_try_ < retry_interval_) {
    return;
  }
  tried_before_ = cut_->before_instant;
  last_try_ = now;
  Remove(cut_->before_instant);
}

std::vector<engine::SourceProgress> BronzeRetention::CommittedByAll() const {
  std::map<std::string, engine::SourceProgress> least;
  std::map<std::string, std::size_t> reported_by;
  for (const auto& downstream : committed_) {
    if (!downstream) {
      return {};  // a downstream that has committed nothing yet holds everything back
    }
    for (const auto& p : *downstream) {
      auto [it, inserted] = least.try_emplace(p.source, p);
      if (!inserted && p.next_offset.value() < it->second.next_offset.value()) {
        it->second = p;
      }
      ++reported_by[p.source];
    }
  }
  std::vector<engine::SourceProgress> out;
  for (auto& [source, p] : least) {
    if (reported_by[source] == committed_.size()) {
      out.push_back(std::move(p));
    }
  }
  return out;
}

void BronzeRetention::Remove(base::Timestamp before) {
  const auto committed = CommittedByAll();
  bool all_done = true;
  for (const auto& archive : archives_) {
    const auto report =
        source::RemoveArchivedBefore(archive, before, source::CommittedOf(archive, committed));
    if (!report.ok()) {
      spdlog::warn("bronze retention failed archive={} before={} error={} (tried again later)",
                   archive.string(), base::FormatIso8601(before), report.error().message());
    }
    all_done = all_done && report.ok() && report->kept.empty();
  }
  if (all_done) {
    done_before_ = before;
  }
}

}  // namespace frota::runner
