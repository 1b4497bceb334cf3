// Compaction of the bronze archive: sealed hours of loose responses become packs
// (docs/bronze-archive.md "Packed hours").
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/source/bronze_archive.h"

namespace frota::source {

/// Serialises the maintenance of one archive (compaction, retention) across threads and
/// processes: an flock on ROOT/.maintenance.lock, held while the object lives.
class MaintenanceLock {
 public:
  /// Waits for the lock when `wait`; otherwise nullptr (not an error) while another
  /// holds it.
  static base::Result<std::unique_ptr<MaintenanceLock>> Acquire(const std::filesystem::path& root,
                                                                bool wait);
  ~MaintenanceLock();
  MaintenanceLock(const MaintenanceLock&) = delete;
  MaintenanceLock& operator=(const MaintenanceLock&) = delete;

 private:
  explicit MaintenanceLock(int fd) : fd_(fd) {}
  int fd_;
};

/// One hour that a compaction packed.
struct PackedHour {
  std::string feed;  // folder name
  std::string hour;  // "date=YYYY-MM-DD/hour=HH"
  std::int64_t responses = 0;
  std::int64_t files_removed = 0;  // loose bodies and envelopes
  std::int64_t bytes_before = 0;   // of the loose files (and an earlier pack of the hour)
  std::int64_t bytes_after = 0;    // of the pack
  double seconds = 0;
};

/// What CompactArchive did.
struct CompactionReport {
  std::vector<PackedHour> packed;
  std::int64_t hours_already_packed = 0;  // nothing loose left in them
  std::int64_t hours_not_sealed = 0;      // ending after `sealed_before`: left loose
  std::int64_t leftovers_removed = 0;     // loose copies of packed responses a crash left
};

/// How long after an hour's end a writer's hour counts as sealed. A collector's ingest
/// floor already covers the requests in flight; this covers its wall clock stepping
/// back (an NTP step, a resumed virtual machine) and, for `frota compact` run beside a
/// collector, the two processes' clocks disagreeing.
inline constexpr std::chrono::minutes kSealMargin{10};

/// The instant an hour of ListHours' form ends (its start plus one hour).
std::optional<base::Timestamp> HourEnd(std::string_view hour);

/// Packs every hour of every feed of the archive at `root` that ends at or before
/// `sealed_before` and still holds loose responses: bodies and envelopes become
/// FEED/date=D/hour=HH.pack (each response's records counted by decoding it), written
/// atomically, and only then are the loose files removed. The caller promises that no
/// response can still arrive in those hours (a collector: its ingest floor, less a
/// margin for its clock; an archive no one writes any more: any instant).
///
/// Idempotent and crash-safe: a crash before the pack's rename leaves the loose hour
/// (and a temporary file the next call removes), a crash after it leaves both, which
/// readers list once and the next call tidies. Holds the archive's MaintenanceLock
/// (waiting for it when `wait`, else returning an empty report while another holds it).
/// Logs each hour packed.
base::Result<CompactionReport> CompactArchive(const std::filesystem::path& root,
                                              base::Timestamp sealed_before, bool wait = true);

}  // namespace frota::source
