#include "frota/source/bronze_retention.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "frota/base/file.h"
#include "frota/codec/decode.h"
#include "frota/source/bronze_archive.h"
#include "frota/source/bronze_compact.h"
#include "frota/source/poll_journal.h"

namespace frota::source {

namespace fs = std::filesystem;

namespace {

fs::path Canonical(const fs::path& path) {
  std::error_code ec;
  auto out = fs::weakly_canonical(path, ec);
  if (ec) {
    out = path.lexically_normal();
  }
  return out.has_filename() ? out : out.parent_path();  // "a/x/.." is "a/"
}

std::int64_t FileBytes(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : static_cast<std::int64_t>(size);
}

base::Status WriteLedger(const fs::path& dir, const RemovedPrefix& removed, base::Timestamp now) {
  nlohmann::ordered_json j;
  j["removed_through"] = removed.through;
  j["records"] = removed.records;
  j["responses"] = removed.responses;
  j["bytes"] = removed.bytes;
  j["updated_at"] = base::FormatIso8601(now);
  return base::WriteFileAtomic(dir / kRetentionLedger, j.dump(2) + "\n");
}

// Records the removal in the folder's ledger, then removes: from the ledger's rename on,
// readers number after it and skip what it names, so a crash between the two loses no
// offset, and the next call removes what is left.
base::Status Remove(const fs::path& dir, RemovedPrefix ledger, RemovedRange& range,
                    const std::vector<std::string>& doomed, std::int64_t offset,
                    std::int64_t responses,
                    const std::function<base::Status(const std::string&)>& remove) {
  range.first = doomed.front();
  range.last = doomed.back();
  ledger.through = range.last;
  ledger.records = offset;
  ledger.responses += responses;
  ledger.bytes += range.bytes;
  FROTA_RETURN_IF_ERROR(WriteLedger(
      dir, ledger, std::chrono::time_point_cast<base::Micros>(std::chrono::system_clock::now())));
  for (const auto& name : doomed) {
    FROTA_RETURN_IF_ERROR(remove(name));
  }
  return base::Status::Ok();
}

// Files and bytes of an hour: its pack and its loose folder.
std::pair<std::int64_t, std::int64_t> HourFiles(const fs::path& feed_dir, const std::string& hour) {
  std::int64_t files = 0;
  std::int64_t bytes = 0;
  std::error_code ec;
  const fs::path pack = (feed_dir / hour).string() + std::string(kPackSuffix);
  if (fs::exists(pack, ec)) {
    ++files;
    bytes += FileBytes(pack);
  }
  for (fs::recursive_directory_iterator it(feed_dir / hour, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_regular_file(ec)) {
      ++files;
      bytes += FileBytes(it->path());
    }
  }
  return {files, bytes};
}

base::Status RemoveHour(const fs::path& feed_dir, const std::string& hour) {
  std::error_code ec;
  fs::remove_all(feed_dir / hour, ec);
  if (ec) {
    return base::IoError("{}: cannot remove: {}", (feed_dir / hour).string(), ec.message());
  }
  const fs::path pack = (feed_dir / hour).string() + std::string(kPackSuffix);
  fs::remove(pack, ec);
  if (ec) {
    return base::IoError("{}: cannot remove: {}", pack.string(), ec.message());
  }
  const fs::path date_dir = (feed_dir / hour).parent_path();
  if (fs::is_empty(date_dir, ec) && !ec) {
    fs::remove(date_dir, ec);
    base::SyncFolder(feed_dir);
  } else {
    base::SyncFolder(date_dir);
  }
  return base::Status::Ok();
}

// The records of an hour: as its pack counted them, else by decoding its bodies.
base::Result<std::pair<std::int64_t, std::int64_t>> HourRecords(const fs::path& feed_dir,
                                                                const FeedInfo& info,
                                                                const std::string& hour) {
  FROTA_ASSIGN_OR_RETURN(const auto files, ListHour(feed_dir, hour));
  std::int64_t records = 0;
  ResponseBodies bodies;
  codec::DecodedBatch batch;
  for (const auto& file : files) {
    if (file.records >= 0) {
      records += file.records;
      continue;
    }
    FROTA_ASSIGN_OR_RETURN(const auto body, bodies.Body(file.body, file.packed));
    codec::DecodeOptions options;
    options.feed_id = info.feed_id;
    options.mode = info.mode;
    options.ingest_time = file.ingest_time;
    if (!info.time_zone.empty()) {
      options.time_zone = info.time_zone;
    }
    batch.clear();
    (void)DecodeArchivedResponse(info.format, body, options, batch);
    records += static_cast<std::int64_t>(batch.size());
  }
  return std::pair<std::int64_t, std::int64_t>{records, static_cast<std::int64_t>(files.size())};
}

std::optional<std::int64_t> Committed(const std::map<std::string, std::int64_t>& offsets,
                                      const std::string& name) {
  const auto it = offsets.find(name);
  return it == offsets.end() ? std::nullopt : std::optional<std::int64_t>(it->second);
}

void LogRemoved(const RemovedRange& r, base::Timestamp before, std::int64_t committed) {
  spdlog::info(
      "bronze retention removed {}={} {}={} from={} through={} records={} files={} bytes={} "
      "reason=ended_by={} and committed downstream up to offset {}",
      r.journal ? "journal" : "feed", r.feed, r.journal ? "day_files" : "hours", r.hours, r.first,
      r.last, r.records, r.files, r.bytes, base::FormatIso8601(before), committed);
}

base::Result<std::optional<RemovedRange>> RetainFeed(const fs::path& dir, base::Timestamp before,
                                                     std::optional<std::int64_t> committed,
                                                     std::vector<std::string>& kept) {
  const std::string name = dir.filename().string();
  FROTA_ASSIGN_OR_RETURN(const auto info, ReadFeedInfo(dir));
  FROTA_ASSIGN_OR_RETURN(const auto ledger, ReadRemovedPrefix(dir));
  FROTA_ASSIGN_OR_RETURN(const auto hours, ListHours(dir));
  std::vector<std::string> live;
  for (const auto& hour : hours) {
    if (!ledger.through.empty() && hour <= ledger.through) {
      // Removed by a call that a crash interrupted after its ledger was written.
      spdlog::info("bronze retention finishing an interrupted removal feed={} hour={}", name, hour);
      FROTA_RETURN_IF_ERROR(RemoveHour(dir, hour));
    } else {
      live.push_back(hour);
    }
  }
  RemovedRange range;
  range.feed = name;
  std::vector<std::string> doomed;
  std::int64_t offset = ledger.records;
  for (std::size_t i = 0; i + 1 < live.size(); ++i) {  // never the newest hour
    const auto end = HourEnd(live[i]);
    if (!end || *end > before) {
      break;
    }
    FROTA_ASSIGN_OR_RETURN(const auto counted, HourRecords(dir, info, live[i]));
    if (!committed || offset + counted.first > *committed) {
      kept.push_back(fmt::format("feed {}: hours from {} kept: ended by {} but {} (offsets {}..{})",
                                 name, live[i], base::FormatIso8601(before),
                                 committed
                                     ? fmt::format("committed only up to offset {}", *committed)
                                     : std::string("nothing of it is committed downstream"),
                                 offset, offset + counted.first));
      spdlog::info("bronze retention kept {}", kept.back());
      break;
    }
    const auto [files, bytes] = HourFiles(dir, live[i]);
    offset += counted.first;
    range.records += counted.first;
    range.responses += counted.second;
    range.files += files;
    range.bytes += bytes;
    ++range.hours;
    doomed.push_back(live[i]);
  }
  if (doomed.empty()) {
    return std::optional<RemovedRange>();
  }
  FROTA_RETURN_IF_ERROR(Remove(dir, ledger, range, doomed, offset, range.responses,
                               [&](const std::string& hour) { return RemoveHour(dir, hour); }));
  LogRemoved(range, before, *committed);
  return std::optional<RemovedRange>(range);
}

std::vector<std::string> JournalFileNames(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (it->is_regular_file(ec) && name.starts_with("date=") && name.ends_with(".jsonl")) {
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

base::Result<std::int64_t> CountLines(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return base::IoError("{}: cannot open", path.string());
  }
  std::int64_t lines = 0;
  std::string chunk(1 << 16, '\0');
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    lines += std::count(chunk.data(), chunk.data() + in.gcount(), '\n');
  }
  return lines;
}

base::Result<std::optional<RemovedRange>> RetainJournal(const fs::path& dir, base::Timestamp before,
                                                        std::optional<std::int64_t> committed,
                                                        std::vector<std::string>& kept) {
  const std::string name = dir.filename().string();
  FROTA_ASSIGN_OR_RETURN(const auto ledger, ReadRemovedPrefix(dir));
  std::vector<std::string> live;
  for (const auto& file : JournalFileNames(dir)) {
    if (!ledger.through.empty() && file <= ledger.through) {
      spdlog::info("bronze retention finishing an interrupted removal journal={} file={}", name,
                   file);
      std::error_code ec;
      fs::remove(dir / file, ec);
    } else {
      live.push_back(file);
    }
  }
  RemovedRange range;
  range.feed = name;
  range.journal = true;
  std::vector<std::string> doomed;
  std::int64_t offset = ledger.records;
  for (std::size_t i = 0; i + 1 < live.size(); ++i) {  // never the newest file
    const auto day = base::ParseIso8601(live[i].substr(5, 10) + "T00:00:00Z");
    if (!day || *day + std::chrono::hours(24) > before) {
      break;
    }
    FROTA_ASSIGN_OR_RETURN(const auto lines, CountLines(dir / live[i]));
    if (!committed || offset + lines > *committed) {
      kept.push_back(
          fmt::format("journal {}: files from {} kept: ended by {} but {} (lines {}..{})", name,
                      live[i], base::FormatIso8601(before),
                      committed ? fmt::format("committed only up to line {}", *committed)
                                : std::string("nothing of it is committed downstream"),
                      offset, offset + lines));
      spdlog::info("bronze retention kept {}", kept.back());
      break;
    }
    offset += lines;
    range.records += lines;
    range.bytes += FileBytes(dir / live[i]);
    ++range.files;
    ++range.hours;
    doomed.push_back(live[i]);
  }
  if (doomed.empty()) {
    return std::optional<RemovedRange>();
  }
  FROTA_RETURN_IF_ERROR(Remove(dir, ledger, range, doomed, offset, range.files,
                               [&](const std::string& file) -> base::Status {
                                 std::error_code ec;
                                 fs::remove(dir / file, ec);
                                 if (ec) {
                                   return base::IoError("{}: cannot remove: {}",
                                                        (dir / file).string(), ec.message());
                                 }
                                 return base::Status::Ok();
                               }));
  base::SyncFolder(dir);
  LogRemoved(range, before, *committed);
  return std::optional<RemovedRange>(range);
}

}  // namespace

CommittedOffsets CommittedOf(const fs::path& root,
                             const std::vector<engine::SourceProgress>& progress) {
  CommittedOffsets out;
  const fs::path archive = Canonical(root);
  const fs::path polls = archive / kPollJournalFolder;
  for (const auto& p : progress) {
    const fs::path source = Canonical(fs::path(p.source));
    const fs::path parent = source.parent_path();
    if (parent == archive && source.filename() != kPollJournalFolder) {
      out.feeds[source.filename().string()] = p.next_offset.value();
    } else if (parent == polls) {
      out.journals[source.filename().string()] = p.next_offset.value();
    }
  }
  return out;
}

base::Result<RetentionReport> RemoveArchivedBefore(const fs::path& root, base::Timestamp before,
                                                   const CommittedOffsets& committed) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return base::NotFound("{}: not an archive folder", root.string());
  }
  FROTA_ASSIGN_OR_RETURN(const auto lock, MaintenanceLock::Acquire(root, /*wait=*/true));
  RetentionReport report;
  for (const auto& dir : FeedFolders(root)) {
    FROTA_ASSIGN_OR_RETURN(
        const auto removed,
        RetainFeed(dir, before, Committed(committed.feeds, dir.filename().string()), report.kept));
    if (removed) {
      report.removed.push_back(*removed);
    }
  }
  const fs::path polls = root / kPollJournalFolder;
  std::vector<fs::path> journal_dirs;
  for (fs::directory_iterator it(polls, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) {
      journal_dirs.push_back(it->path());
    }
  }
  std::sort(journal_dirs.begin(), journal_dirs.end());
  for (const auto& dir : journal_dirs) {
    FROTA_ASSIGN_OR_RETURN(
        const auto removed,
        RetainJournal(dir, before, Committed(committed.journals, dir.filename().string()),
                      report.kept));
    if (removed) {
      report.removed.push_back(*removed);
    }
  }
  return report;
}

base::Result<ArchiveUsage> MeasureArchive(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return base::NotFound("{}: not an archive folder", root.string());
  }
  ArchiveUsage usage;
  const fs::path base = root.lexically_normal();
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      continue;
    }
    const auto disk = static_cast<std::int64_t>(st.st_blocks) * 512;
    usage.bytes += static_cast<std::int64_t>(st.st_size);
    usage.disk_bytes += disk;
    ++usage.files;
    const auto relative = it->path().lexically_normal().lexically_relative(base);
    if (std::distance(relative.begin(), relative.end()) > 1) {
      usage.disk_bytes_by_folder[relative.begin()->string()] += disk;
    }
  }
  return usage;
}

}  // namespace frota::source
