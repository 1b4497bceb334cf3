// Whole-file reads, atomic writes (temp file + fsync + rename) and process memory figures.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "frota/base/status.h"

namespace frota::base {

/// Reads a whole file; the error names the path and the reason.
Result<std::string> ReadFile(const std::filesystem::path& path);
/// ReadFile into `bytes`, replacing what it held and reusing its capacity: a reader of
/// many files keeps one buffer instead of faulting in a fresh one of megabytes per file.
Status ReadFileInto(const std::filesystem::path& path, std::string& bytes);

/// A whole file's bytes for a parser that reads them once: a regular file is mapped
/// read-only, so the parser reads the page cache itself instead of a copy (a replay of a
/// day eight times the Rio one reads 8 GB of responses of 1.2 MB each, and the copy, to a
/// buffer larger than the core's cache, was a fifth of the decoding thread's time);
/// anything else (a pipe, /proc, an empty file) is read into a buffer kept for the next
/// file. The bytes stay valid until the next Load or the object's end.
///
/// Only for files complete before they are read (the bronze archive writes each response
/// under a temporary name and renames it): one truncated while mapped makes reading its
/// lost pages fault (SIGBUS).
class FileBytes {
 public:
  FileBytes() = default;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes();

  /// Replaces the bytes held with `path`'s; the error names the path and the reason, and
  /// leaves no bytes.
  Status Load(const std::filesystem::path& path);
  [[nodiscard]] std::string_view bytes() const { return bytes_; }

 private:
  void Unmap();
  void* map_ = nullptr;
  std::size_t map_size_ = 0;
  std::string buffer_;
  std::string_view bytes_;
};

/// Writes `bytes` to `path` so that readers see either the old file or the whole new
/// one, never a partial file: write `path.tmp-<pid>`, fsync, rename, fsync the folder.
Status WriteFileAtomic(const std::filesystem::path& path, std::string_view bytes);

/// fsyncs the folder `dir`, so that renames and removals in it survive a crash. Best
/// effort: a folder that cannot be opened is left as it is.
void SyncFolder(const std::filesystem::path& dir);

/// Peak resident set size of this process in bytes (VmHWM), 0 if unknown.
std::int64_t PeakRssBytes();
/// Current resident set size in bytes (VmRSS), 0 if unknown.
std::int64_t CurrentRssBytes();

/// The cores this process may use (std::thread::hardware_concurrency), at least 1.
unsigned CoreCount();
/// Threads for `units` independent pieces of work: one each, at most one per core.
std::size_t ThreadsFor(std::size_t units);
/// Names the calling thread for `top -H`, `perf` and /proc/<pid>/task/*/comm (Linux keeps
/// the first 15 bytes). Best effort: a failure changes nothing else.
void NameThisThread(const char* name);

}  // namespace frota::base
