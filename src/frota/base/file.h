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

/// Writes `bytes` to `path` so that readers see either the old file or the whole new
/// one, never a partial file: write `path.tmp-<pid>`, fsync, rename, fsync the folder.
Status WriteFileAtomic(const std::filesystem::path& path, std::string_view bytes);

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
