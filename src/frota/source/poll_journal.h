// The poll journal (docs/bronze-archive.md): every request of a collector, appended durably.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/engine/transactional_sink.h"
#include "frota/model/tables.h"

namespace frota::source {

/// Folder of the poll journals inside an archive: ROOT/_polls/FEED/date=YYYY-MM-DD.jsonl.
/// It has no feed.json, so archive readers never take it for a feed.
inline constexpr std::string_view kPollJournalFolder = "_polls";

/// One JSON line of a journal back into a poll; errors say what is wrong.
base::Result<model::PollRow> ParsePollLine(std::string_view line);
/// The JSON line of a poll, without the newline.
std::string PollLine(const model::PollRow& poll);

/// Appends one feed's polls to ROOT/_polls/FEED/date=D.jsonl (D: the UTC date of
/// polled_at, or the newest file's date if later: a line never goes to an older file),
/// one JSON line each, written and fdatasync'ed before Append returns: a poll is in the
/// journal once Append succeeded. A failed write is cut back, and Open() cuts a torn last
/// line that a crash left, so later lines never follow a partial one. Not thread-safe:
/// one writer per feed.
class PollJournalWriter {
 public:
  static base::Result<std::unique_ptr<PollJournalWriter>> Open(const std::filesystem::path& root,
                                                               const std::string& feed_dir);
  ~PollJournalWriter();
  PollJournalWriter(const PollJournalWriter&) = delete;
  PollJournalWriter& operator=(const PollJournalWriter&) = delete;
  base::Status Append(const model::PollRow& poll);

 private:
  PollJournalWriter() = default;
  std::filesystem::path dir_;
  std::string date_;    // of the open file
  std::string newest_;  // date of the newest file (lines never go to an older one)
  int fd_ = -1;
};

/// A poll read from a journal, with its place: the journal's source name (its folder,
/// ROOT/_polls/FEED, lexically normal) and its line number over the feed's files in name
/// order, 0, 1, 2, ...
struct JournalPoll {
  model::PollRow poll;
  std::string source;
  std::int64_t offset = 0;
};

/// Reads every feed's journal as it grows. Complete lines only (a line is complete once
/// its newline is written); a line that does not parse is logged, counted and skipped,
/// keeping its offset. Resuming skips each journal's lines before its committed offset.
/// Progress entries use partition ids from kPollPartitionBase on, apart from an
/// archive's feeds. Not thread-safe.
class PollJournalReader {
 public:
  static constexpr std::int32_t kPollPartitionBase = 1'000'000;

  /// `resume` may hold other sources' progress too: only journals' entries are used.
  PollJournalReader(std::filesystem::path root, const std::vector<engine::SourceProgress>& resume);
  ~PollJournalReader();

  /// Finds new journals and new complete lines; moves every new poll into `out` (appended).
  base::Status Read(std::vector<JournalPoll>& out);
  /// The next offset of every journal found (or resumed from).
  [[nodiscard]] std::vector<engine::SourceProgress> Progress() const;
  /// Whether a progress entry belongs to a poll journal of this reader's archive.
  [[nodiscard]] bool Owns(const engine::SourceProgress& progress) const;
  [[nodiscard]] std::int64_t bad_lines() const { return bad_lines_; }

 private:
  struct Journal;
  std::filesystem::path root_;
  std::string prefix_;  // (root/_polls).lexically_normal() + "/"
  std::vector<engine::SourceProgress> resume_;
  std::map<std::string, std::unique_ptr<Journal>> journals_;  // by source name
  std::int64_t bad_lines_ = 0;
};

}  // namespace frota::source
