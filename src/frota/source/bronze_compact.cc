#include "frota/source/bronze_compact.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "frota/base/file.h"
#include "frota/codec/decode.h"

namespace frota::source {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMetaSuffix = ".meta.json";
// A temporary file of a loose write older than this in a sealed hour is what a crash
// left; a younger one may still be a writer's (a clock stepped back), so it stays.
constexpr auto kStaleTemporary = std::chrono::hours(1);

std::int64_t SizeOf(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : static_cast<std::int64_t>(size);
}

// The records a body decodes to: the offsets it takes in a replay.
std::int64_t CountRecords(const FeedInfo& info, std::string_view body, base::Timestamp ingest,
                          codec::DecodedBatch& batch) {
  codec::DecodeOptions options;
  options.feed_id = info.feed_id;
  options.mode = info.mode;
  options.ingest_time = ingest;
  if (!info.time_zone.empty()) {
    options.time_zone = info.time_zone;
  }
  batch.clear();
  (void)DecodeArchivedResponse(info.format, body, options, batch);
  return static_cast<std::int64_t>(batch.size());
}

// Writes the pack of `files` (the hour's responses, loose and packed, in name order).
base::Status WritePack(const FeedInfo& info, const std::vector<ArchivedFile>& files,
                       const fs::path& pack_path, PackedHour& done) {
  std::unique_ptr<PackReader> old;
  std::error_code ec;
  if (fs::exists(pack_path, ec)) {
    FROTA_ASSIGN_OR_RETURN(old, PackReader::Open(pack_path));
    done.bytes_before += SizeOf(pack_path);
  }
  PackWriter writer;
  codec::DecodedBatch batch;
  for (const auto& file : files) {
    PackMember member;
    member.name = file.body.filename().string();
    member.ingest_time = file.ingest_time;
    member.repeat = file.repeat;
    member.records = file.records;
    if (file.packed) {
      const auto entry = old ? old->Find(member.name) : std::nullopt;
      if (!entry) {
        return base::Internal("{}: {} listed as packed but not in it", pack_path.string(),
                              member.name);
      }
      FROTA_ASSIGN_OR_RETURN(const auto bytes, old->Read(*entry));
      if (old->entries()[*entry].has_envelope) {
        member.envelope = std::string(bytes.envelope);
      }
      member.body = std::string(bytes.body);
    } else {
      const fs::path envelope = file.body.string() + std::string(kMetaSuffix);
      if (fs::exists(envelope, ec)) {
        FROTA_ASSIGN_OR_RETURN(member.envelope, base::ReadFile(envelope));
        done.bytes_before += static_cast<std::int64_t>(member.envelope->size());
      }
      FROTA_ASSIGN_OR_RETURN(member.body, base::ReadFile(file.body));
      done.bytes_before += static_cast<std::int64_t>(member.body.size());
    }
    if (member.records < 0) {
      member.records = CountRecords(info, member.body, member.ingest_time, batch);
    }
    FROTA_RETURN_IF_ERROR(writer.Add(member));
    ++done.responses;
  }
  FROTA_ASSIGN_OR_RETURN(const auto bytes, writer.Finish());
  FROTA_RETURN_IF_ERROR(base::WriteFileAtomic(pack_path, bytes));
  done.bytes_after = static_cast<std::int64_t>(bytes.size());
  return base::Status::Ok();
}

// Removes the loose copies of the pack's responses (bodies first, so a reader never
// takes an envelope for a response), a crash's old temporary files, and the folder
// once empty.
base::Result<std::int64_t> RemoveLooseCopies(const fs::path& dir, const fs::path& pack_path) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return 0;
  }
  FROTA_ASSIGN_OR_RETURN(const auto pack, PackReader::Open(pack_path));
  std::vector<fs::path> bodies;
  std::vector<fs::path> others;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.find(".tmp-") != std::string::npos) {
      const auto modified = fs::last_write_time(it->path(), ec);
      if (!ec && now - modified > kStaleTemporary) {
        others.push_back(it->path());
      }
    } else if (name.ends_with(kMetaSuffix)) {
      if (pack->Find(std::string_view(name).substr(0, name.size() - kMetaSuffix.size()))) {
        others.push_back(it->path());
      }
    } else if (pack->Find(name)) {
      bodies.push_back(it->path());
    }
  }
  std::int64_t removed = 0;
  for (const auto* list : {&bodies, &others}) {
    for (const auto& path : *list) {
      if (::unlink(path.c_str()) == 0) {
        ++removed;
      } else if (errno != ENOENT) {
        return base::IoError("{}: cannot remove: {}", path.string(), std::strerror(errno));
      }
    }
  }
  if (fs::is_empty(dir, ec) && !ec) {
    fs::remove(dir, ec);
  }
  base::SyncFolder(dir.parent_path());
  return removed;
}

// Temporary packs of a compaction that crashed (only compactions write them, and this
// one holds the archive's lock).
void RemoveTemporaryPacks(const fs::path& date_dir) {
  std::error_code ec;
  for (fs::directory_iterator it(date_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.find(std::string(kPackSuffix) + ".tmp-") != std::string::npos) {
      spdlog::info("bronze temporary pack removed file={}", it->path().string());
      fs::remove(it->path(), ec);
    }
  }
}

}  // namespace

base::Result<std::unique_ptr<MaintenanceLock>> MaintenanceLock::Acquire(const fs::path& root,
                                                                        bool wait) {
  const fs::path path = root / ".maintenance.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return base::IoError("{}: cannot open: {}", path.string(), std::strerror(errno));
  }
  while (::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
    if (errno == EINTR) {
      continue;
    }
    const int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK) {
      return std::unique_ptr<MaintenanceLock>();
    }
    return base::IoError("{}: cannot lock: {}", path.string(), std::strerror(error));
  }
  return std::unique_ptr<MaintenanceLock>(new MaintenanceLock(fd));
}

MaintenanceLock::~MaintenanceLock() { ::close(fd_); }

std::optional<base::Timestamp> HourEnd(std::string_view hour) {
  // date=YYYY-MM-DD/hour=HH
  if (hour.size() != 23 || !hour.starts_with("date=") || hour.substr(15, 6) != "/hour=") {
    return std::nullopt;
  }
  const auto start =
      base::ParseIso8601(fmt::format("{}T{}:00:00Z", hour.substr(5, 10), hour.substr(21, 2)));
  if (!start) {
    return std::nullopt;
  }
  return *start + std::chrono::hours(1);
}

base::Result<CompactionReport> CompactArchive(const fs::path& root, base::Timestamp sealed_before,
                                              bool wait) {
  CompactionReport report;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return base::NotFound("{}: not an archive folder", root.string());
  }
  FROTA_ASSIGN_OR_RETURN(const auto lock, MaintenanceLock::Acquire(root, wait));
  if (!lock) {
    return report;  // another compaction or retention is at work
  }
  for (const auto& dir : FeedFolders(root)) {
    FROTA_ASSIGN_OR_RETURN(const auto info, ReadFeedInfo(dir));
    if (info.format == codec::Format::kRioArchiveCsv) {
      continue;  // a replay streams these files from disk, row by row: they stay loose
    }
    FROTA_ASSIGN_OR_RETURN(const auto removed, ReadRemovedPrefix(dir));
    FROTA_ASSIGN_OR_RETURN(const auto hours, ListHours(dir));
    std::string last_date;
    for (const auto& hour : hours) {
      if (!removed.through.empty() && hour <= removed.through) {
        continue;  // retention's to remove, not ours to pack
      }
      const auto end = HourEnd(hour);
      if (!end || *end > sealed_before) {
        ++report.hours_not_sealed;
        continue;
      }
      const std::string date = hour.substr(0, hour.find('/'));
      if (date != last_date) {
        RemoveTemporaryPacks(dir / date);
        last_date = date;
      }
      const auto started = std::chrono::steady_clock::now();
      FROTA_ASSIGN_OR_RETURN(const auto files, ListHour(dir, hour));
      const fs::path loose_dir = dir / hour;
      const fs::path pack_path = loose_dir.string() + std::string(kPackSuffix);
      const bool any_loose =
          std::any_of(files.begin(), files.end(), [](const ArchivedFile& f) { return !f.packed; });
      PackedHour done;
      done.feed = dir.filename().string();
      done.hour = hour;
      if (any_loose) {
        FROTA_RETURN_IF_ERROR(WritePack(info, files, pack_path, done));
      }
      if (!fs::exists(pack_path, ec)) {
        continue;  // an hour folder of temporary files only
      }
      FROTA_ASSIGN_OR_RETURN(done.files_removed, RemoveLooseCopies(loose_dir, pack_path));
      if (!any_loose) {
        ++report.hours_already_packed;
        if (done.files_removed > 0) {
          report.leftovers_removed += done.files_removed;
          spdlog::info("bronze loose copies of a packed hour removed feed={} hour={} files={}",
                       done.feed, hour, done.files_removed);
        }
        continue;
      }
      done.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      spdlog::info(
          "bronze hour packed feed={} hour={} responses={} files_removed={} bytes_before={} "
          "bytes_after={} seconds={:.2f}",
          done.feed, hour, done.responses, done.files_removed, done.bytes_before, done.bytes_after,
          done.seconds);
      report.packed.push_back(std::move(done));
    }
  }
  return report;
}

}  // namespace frota::source
