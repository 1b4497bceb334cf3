// A live collector's archive published to Kafka exactly once: `frota collect --kafka`.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/source/archive_follower.h"
#include "frota/source/replay_source.h"
#include "frota/transport/producer.h"

namespace frota::runner {

/// What the publisher has done; read at any time.
struct PublisherStats {
  bool connected = false;
  std::int64_t records = 0;       // positions and rejections published (committed)
  std::int64_t polls = 0;         // poll messages published (committed)
  std::int64_t transactions = 0;  // committed
  std::int64_t failures = 0;      // sessions ended by an error (Kafka down, fenced, ...)
  /// Responses this run archived (OnArchived) that no commit is known to cover yet, and
  /// now minus the oldest one's ingest time (0 when there is none).
  std::int64_t unpublished_responses = 0;
  double lag_seconds = 0;
  bool end_marker_published = false;
};

struct LivePublisherConfig {
  std::filesystem::path archive;
  source::ReplayOptions replay;         // mode and time zone of decoding, as `replay archive:`
  transport::ProducerOptions producer;  // brokers, topic, format, properties
  /// Names this publisher: its transactional.id and the key of its progress records.
  /// Two publishers of one archive must never run at once with the same id (the newer
  /// fences the older); publishers of different archives need different ids.
  std::string publisher_id;
  /// The compacted topic holding each committed transaction's progress (created when
  /// missing); empty: TOPIC.progress.
  std::string progress_topic;
  std::size_t transaction_records = 50'000;
  std::chrono::milliseconds retry_wait{5000};
  std::chrono::milliseconds scan_interval{1000};
  /// After the stop request, how long Kafka is waited for to publish what is left.
  std::chrono::milliseconds drain_wait{60'000};
  bool end_marker = false;
  std::string run_id;  // the collector's: in end-of-input markers
  source::ArchiveWaker* waker = nullptr;
  /// The wall clock (tests: the collector's virtual one) for the lag metric.
  std::function<base::Timestamp()> now;
  /// The collector's promise: every response with an earlier ingest time is visible in
  /// the archive (read before a scan; what a full drain then published is behind it).
  std::function<base::Timestamp()> ingest_floor;
  /// Called on the publisher's thread after every round (metrics).
  std::function<void(const PublisherStats&)> on_stats;
  /// Called on the publisher's thread after every round that reached Kafka, with the
  /// progress of the last committed transaction (bronze retention: what may go).
  std::function<void(const std::vector<engine::SourceProgress>&)> after_commit;
};

/// Publishes every record of every archived response (the partitions, offsets, order and
/// source names of `frota replay archive:ROOT --to-kafka`) and every journaled poll.
///
/// Exactly once, across crashes of the collector, of the broker and of the network:
///  - a session starts with a transactional producer (which fences any zombie of the same
///    publisher id and aborts its open transaction), then reads the last committed
///    progress record of this publisher from the progress topic and resumes the archive
///    follower and the poll journals there;
///  - each transaction holds up to transaction_records records in archive order, the
///    new polls, and one progress record (the next offset of every feed and journal,
///    relative to the archive); consumers read committed messages only, so the topic and
///    the progress record move together or not at all;
///  - any error aborts the transaction and ends the session; after retry_wait a new
///    session starts from the last committed progress. Polling and archiving never wait
///    for Kafka: bronze is the source of truth.
/// Runs on its own thread between Start() and Stop().
class LivePublisher {
 public:
  explicit LivePublisher(LivePublisherConfig config);
  ~LivePublisher();
  LivePublisher(const LivePublisher&) = delete;
  LivePublisher& operator=(const LivePublisher&) = delete;

  void Start();
  /// Asks the thread to publish what is archived (waiting up to drain_wait for Kafka),
  /// then the end-of-input markers if configured, and to stop; waits for it. The error
  /// says what could not be published (it stays in bronze for the next start).
  base::Status Stop();
  /// Stops without draining and without end markers (a start that failed: what is
  /// archived is published by the next start). The destructor cancels.
  void Cancel();
  [[nodiscard]] PublisherStats stats() const;
  /// A response was archived (the collector's listener): counted as unpublished until a
  /// drain covers its ingest time. Thread-safe.
  void OnArchived(base::Timestamp ingest_time);

 private:
  class Session;
  void Loop();
  void Wait(std::chrono::milliseconds timeout);

  LivePublisherConfig config_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> cancelled_{false};
  mutable std::mutex mutex_;  // guards stats_, final_status_, unpublished_
  std::condition_variable wake_;
  PublisherStats stats_;
  std::deque<base::Timestamp> unpublished_;  // ingest times, ascending per feed
  base::Status final_status_ = base::Status::Ok();
};

}  // namespace frota::runner
