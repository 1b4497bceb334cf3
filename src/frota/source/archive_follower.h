// A bronze archive read while it grows: the embedded log that a live `frota run` follows.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/engine/transactional_sink.h"
#include "frota/model/source.h"
#include "frota/source/bronze_archive.h"
#include "frota/source/replay_source.h"

namespace frota::source {

/// Reads the responses of every feed of an archive as they appear, with the partitions,
/// offsets and order of `frota replay archive:ROOT` (docs/bronze-archive.md "Replay"):
/// each feed is one partition named by its folder, records numbered 0, 1, 2, ... over its
/// responses in name order, ingest times from the envelopes; across feeds, records come
/// in ingest-time order among what is visible.
///
/// Scan() looks only at the newest date and hour folders of each feed, so following a
/// long archive costs what is new, not what is old. A response is taken once its body
/// is visible (the envelope is renamed first); temporary files are ignored. Resuming
/// skips the records before each partition's committed offset; the responses before it
/// are decoded again to count them (offsets are record numbers, not file numbers).
/// Not thread-safe: one thread scans and reads.
class ArchiveFollower {
 public:
  static base::Result<std::unique_ptr<ArchiveFollower>> Open(
      std::filesystem::path root, model::SourceCatalog* catalog, ReplayOptions options,
      const std::vector<engine::SourceProgress>& resume);
  ~ArchiveFollower();

  /// Finds feeds and complete responses that appeared since the last scan.
  base::Status Scan();
  /// Moves up to about `max_records` records into `out` (cleared first); false when
  /// nothing found so far is left to read.
  base::Result<bool> Next(std::vector<SourceRecord>& out, std::size_t max_records);
  /// For each partition, the offset after the last record handed out by Next().
  [[nodiscard]] std::vector<engine::SourceProgress> Progress() const;
  [[nodiscard]] std::int64_t skipped_records() const;
  [[nodiscard]] std::int64_t responses_read() const;
  /// Responses found by scans but not read yet.
  [[nodiscard]] std::size_t pending_responses() const;

  class Feed;

 private:
  ArchiveFollower() = default;
  std::filesystem::path root_;
  model::SourceCatalog* catalog_ = nullptr;
  ReplayOptions options_;
  std::vector<engine::SourceProgress> resume_;
  std::int32_t next_id_ = 0;
  std::vector<std::unique_ptr<Feed>> feeds_;
};

/// Wakes a follower's reader when a response was archived, instead of waiting for its
/// next scan. Thread-safe.
class ArchiveWaker {
 public:
  void Notify();
  /// Waits until Notify() or `timeout`; true when notified.
  bool Wait(std::chrono::milliseconds timeout);

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool notified_ = false;
};

}  // namespace frota::source
