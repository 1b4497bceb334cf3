// Silver and gold layers of live collection as Parquet: validated positions, rejections,
// the latest state per vehicle and a summary per poll (semantics.md sections 2, 4 and 8).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/base/time_zone.h"
#include "frota/codec/aircraft_state.h"
#include "frota/codec/decode.h"
#include "frota/job/config.h"

namespace frota::sink {
class DuckDbConnection;
}

namespace frota::collect {

/// One archived response on its way to silver and gold: what the poll saw and decoded.
struct PolledResponse {
  std::string feed_id;
  std::string bronze_file;  // path of the body in the archive
  base::Timestamp ingest_time;
  int http_status = 200;
  std::int64_t bytes = 0;
  double duration_ms = 0;
  bool repeat = false;
  bool decoded = false;  // false: the body is not the feed's format (an HTML page, ...)
  codec::DecodedBatch batch;
  /// For `opensky` feeds: the archived body (read during Add() only, never kept), whose
  /// state vectors fill the aircraft columns, and the feed's zone for `last_contact_at`.
  codec::Format format = codec::Format::kGtfsRt;
  std::string_view body;
  std::string time_zone;
};

/// What the silver and gold writers did so far.
struct MedallionStats {
  std::int64_t responses = 0;
  std::int64_t records = 0;
  std::int64_t accepted = 0;
  std::map<std::string, std::int64_t> rejected;  // by reason (rules 1-4)
  std::int64_t silver_files = 0;
  std::int64_t gold_files = 0;
  std::int64_t poll_summaries = 0;
  std::int64_t vehicles = 0;  // in the latest-state tables
  std::int64_t flushes = 0;
  std::int64_t flush_errors = 0;
  std::int64_t buffered_records = 0;
  std::vector<std::string> last_files;  // of the last flush
};

/// Buffers validated positions and rejections per feed and writes them as Parquet every
/// flush (5 minutes by default), through an in-memory DuckDB:
///
///   SILVER/positions/feed=F/date=D/RUN-NNNNNN.parquet   rules 1-4 passed
///   SILVER/rejected/feed=F/date=D/RUN-NNNNNN.parquet    with reason and detail
///
/// For `opensky` feeds both silver tables and the latest state also carry every field of
/// the state vector (the aircraft columns: null for other feeds; rejections keep the
/// raw state vector as JSON).
///   GOLD/poll_summary/feed=F/date=D/RUN-NNNNNN.parquet  one row per archived response
///   GOLD/latest_state/feed=F/RUN.parquet                replaced at each flush
///
/// D is the UTC date of the ingest time. File names carry the run id, so runs never
/// overwrite each other; every file is written under a temporary name, fsynced and
/// renamed. A failed flush keeps the rows for the next one.
///
/// Add() is thread-safe (pollers call it); Flush() is serialised internally and may run
/// on any thread. The DuckDB connection is used only inside Flush().
class MedallionWriter {
 public:
  static base::Result<std::unique_ptr<MedallionWriter>> Open(std::filesystem::path silver,
                                                             std::filesystem::path gold,
                                                             std::string run_id,
                                                             job::JobConfig rules);
  ~MedallionWriter();
  MedallionWriter(const MedallionWriter&) = delete;
  MedallionWriter& operator=(const MedallionWriter&) = delete;

  /// Applies rules 2-4 and buffers the rows; returns this response's refusals by reason
  /// (rules 1-4).
  std::map<std::string, std::int64_t> Add(PolledResponse response);
  base::Status Flush(base::Timestamp now);
  [[nodiscard]] MedallionStats stats() const;
  [[nodiscard]] const std::filesystem::path& silver_root() const { return silver_; }
  [[nodiscard]] const std::filesystem::path& gold_root() const { return gold_; }

 private:
  struct Row;
  struct RejectedRow;
  struct Summary;
  struct Latest;
  struct Buffer;
  struct FeedFlush;
  MedallionWriter() = default;
  base::Status WriteFeed(const std::string& feed_id, Buffer& buffer, base::Timestamp now,
                         std::vector<std::string>& files);
  base::Result<const base::TimeZone*> ZoneNamed(const std::string& name);
  void UpdateLatest(const std::string& feed_id, const Buffer& buffer);

  std::filesystem::path silver_;
  std::filesystem::path gold_;
  std::string run_id_;
  job::JobConfig rules_;
  std::unique_ptr<sink::DuckDbConnection> db_;
  mutable std::mutex mutex_;  // buffers_ and stats_
  std::map<std::string, std::unique_ptr<Buffer>> buffers_;
  MedallionStats stats_;
  std::mutex flush_mutex_;  // one Flush at a time; owns db_, latest_, sequence_
  std::map<std::string, std::unordered_map<std::string, std::unique_ptr<Latest>>> latest_;
  std::int64_t sequence_ = 0;
  std::map<std::string, base::TimeZone> zones_;  // by name; Flush() only
};

}  // namespace frota::collect
