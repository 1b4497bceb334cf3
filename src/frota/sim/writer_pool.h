// The archive's writers: BronzeWriters on threads of their own, each encoding the
// responses it is given (GTFS-RT, and Rio SPPO JSON when asked for). Internal to sim.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/sim/feed_encoder.h"
#include "frota/sim/fleet.h"
#include "frota/sim/schedule.h"
#include "frota/source/bronze_archive.h"

namespace frota::sim {

// One response waiting for its writer, which encodes it (encoding is the costly part of
// a poll, so the writers' threads share it).
struct WriteJob {
  source::ResponseEnvelope envelope;
  std::vector<SimRecord> records;
  std::optional<std::int64_t> header_time_s;
  std::int64_t server_ms = 0;  // SPPO datahoraservidor
  /// A response archived late: written after the current one (its name sorts there),
  /// then its envelope's ingest_time is set back to when it was really received.
  std::optional<base::Timestamp> received;
};

// BronzeWriters on threads of their own, response k going to writer k mod N.
class WriterPool {
 public:
  static base::Result<std::unique_ptr<WriterPool>> Open(
      const std::filesystem::path& root, const source::FeedInfo& info,
      const std::optional<std::filesystem::path>& sppo_root, const source::FeedInfo& sppo_info,
      std::int32_t count, const Fleet& fleet, const DayPlan& plan);

  ~WriterPool();

  base::Status Submit(std::size_t index, WriteJob job);

  base::Status Finish();

  /// Body bytes written (GTFS-RT, SPPO); complete after Finish().
  [[nodiscard]] std::pair<std::int64_t, std::int64_t> bytes() const;

 private:
  struct Lane {
    std::unique_ptr<FeedEncoder> encoder;
    std::int64_t bytes = 0;
    std::int64_t sppo_bytes = 0;
    std::unique_ptr<source::BronzeWriter> writer;
    std::unique_ptr<source::BronzeWriter> sppo_writer;
    std::thread thread;
    std::mutex mutex;
    std::condition_variable cv;
    std::deque<WriteJob> jobs;
    bool done = false;
    base::Status status;
  };

  WriterPool() = default;

  void Run(Lane& lane);

  static base::Status Write(Lane& lane, const WriteJob& job);

  std::vector<std::unique_ptr<Lane>> lanes_;
};

}  // namespace frota::sim
