// Bronze retention: the archive's hours before the raw cut go once downstream holds them.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "frota/base/time.h"
#include "frota/engine/transactional_sink.h"

namespace frota::runner {

/// Applies the raw retention cut (`--retain-days`) to bronze archives. Each downstream
/// (a database's epoch commits, a Kafka publisher's transactions) reports what it has
/// committed; an archive loses the whole hours before the cut whose every record each
/// downstream has committed (source::RemoveArchivedBefore), so `frota run` that also
/// publishes keeps what Kafka has not got even when the database has it. What stays is
/// tried again at later commits (a new cut at once, else once a retry interval) until it
/// goes. Never fails the run: a removal that fails is logged and tried again.
/// Thread-safe (a commit thread and a publisher thread may report).
class BronzeRetention {
 public:
  BronzeRetention(std::vector<std::filesystem::path> archives, int downstreams,
                  std::chrono::seconds retry_interval = std::chrono::seconds(60));

  /// Downstream `downstream` (0 .. downstreams-1) has committed `committed` (every source
  /// it has read); the raw cut is now `cut` (none: not known yet).
  void AfterCommit(int downstream, const std::optional<engine::RetentionCut>& cut,
                   const std::vector<engine::SourceProgress>& committed);
  /// After a database's epoch commit: its raw cut when it states one (an epoch states the
  /// cuts only when they move), else the last one known, and its progress.
  void AfterCommit(int downstream, const engine::EpochCheckpoint& committed);

  [[nodiscard]] bool enabled() const { return !archives_.empty(); }

 private:
  // Each source's offset every downstream has committed (absent where one has none).
  [[nodiscard]] std::vector<engine::SourceProgress> CommittedByAll() const;
  void Remove(base::Timestamp before);

  const std::vector<std::filesystem::path> archives_;
  const std::chrono::seconds retry_interval_;
  std::mutex mutex_;
  std::vector<std::optional<std::vector<engine::SourceProgress>>> committed_;
  std::optional<engine::RetentionCut> cut_;     // the latest cut any report gave
  std::optional<base::Timestamp> done_before_;  // every archive is cut to here
  std::optional<base::Timestamp> tried_before_;
  std::chrono::steady_clock::time_point last_try_{};
};

}  // namespace frota::runner
