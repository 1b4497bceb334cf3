// Retention of the bronze archive and its poll journals (docs/bronze-archive.md
// "Retention"), and its size on disk.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/engine/transactional_sink.h"

namespace frota::source {

/// What downstream committed of one archive, by folder name: for each feed (ROOT/NAME)
/// the next record offset, for each poll journal (ROOT/_polls/NAME) the next line.
struct CommittedOffsets {
  std::map<std::string, std::int64_t> feeds;
  std::map<std::string, std::int64_t> journals;
};

/// The entries of `progress` (a sink's or a Kafka publisher's committed progress) that
/// are the archive at `root`'s feeds and journals: source names as an ArchiveFollower,
/// `replay archive:ROOT` or a PollJournalReader give them (ROOT/FEED, ROOT/_polls/FEED),
/// however `root` is spelled (relative, absolute, through links). Other entries are
/// left out.
CommittedOffsets CommittedOf(const std::filesystem::path& root,
                             const std::vector<engine::SourceProgress>& progress);

/// What retention removed from one feed or one journal in one call.
struct RemovedRange {
  std::string feed;  // folder name
  bool journal = false;
  std::string first;           // the first hour ("date=D/hour=HH") or journal file removed
  std::string last;            // the last one: the ledger's removed_through
  std::int64_t hours = 0;      // a journal: its day files
  std::int64_t responses = 0;  // a journal: 0
  std::int64_t records = 0;    // a journal: its lines
  std::int64_t files = 0;
  std::int64_t bytes = 0;
};

/// What RemoveArchivedBefore did, and what it kept that was old enough to go.
struct RetentionReport {
  std::vector<RemovedRange> removed;
  /// One line per feed or journal whose old hours stay because downstream has not
  /// committed all their records (or nothing of it is committed at all).
  std::vector<std::string> kept;
};

/// Removes from the archive at `root`, feed by feed, the oldest whole hours (packed or
/// loose) that end at or before `before` and whose every record is committed downstream
/// (`committed`; a feed without an entry loses nothing), and likewise the poll journals'
/// day files (_polls/FEED/date=D.jsonl) that end by `before` with every line committed.
/// A feed's newest hour and a journal's newest file always stay (a writer may be in
/// them).
///
/// Offsets stay stable: before removing anything, the feed's (journal's) ledger
/// retention.json is rewritten atomically with the last hour (file) removed and the
/// records (lines) before the first one kept; readers number from there and skip what a
/// crash left of the removed hours. So a SIGKILL at any moment leaves nothing that should
/// stay deleted and nothing that should go kept for good: the next call removes what the
/// ledger says is gone. Holds the archive's MaintenanceLock (waiting for it). Logs each
/// removal: what, how much, why.
base::Result<RetentionReport> RemoveArchivedBefore(const std::filesystem::path& root,
                                                   base::Timestamp before,
                                                   const CommittedOffsets& committed);

/// An archive's size: every file under its root (feeds, packs, journals, ledgers).
struct ArchiveUsage {
  std::int64_t bytes = 0;       // the files' sizes
  std::int64_t disk_bytes = 0;  // blocks allocated to them (what `du` counts)
  std::int64_t files = 0;
  /// disk_bytes by top-level folder: each feed, and "_polls".
  std::map<std::string, std::int64_t> disk_bytes_by_folder;
};

/// Measures the archive at `root`: one lstat per file, so its cost grows with the number
/// of files (an hour of packed responses is one file). A file removed while it walks is
/// left out. Errors: `root` is not a folder.
base::Result<ArchiveUsage> MeasureArchive(const std::filesystem::path& root);

}  // namespace frota::source
