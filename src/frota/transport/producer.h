// Publishes records to a Kafka topic: one message per position or rejection, keyed by vehicle.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/transport/kafka_common.h"
#include "frota/transport/payload.h"

struct rd_kafka_s;
struct rd_kafka_topic_s;

namespace frota::transport {

struct ProducerOptions {
  std::string brokers;  // host:port[,host:port...]
  std::string topic;    // must exist
  PayloadFormat format = PayloadFormat::kBinary;
  /// How long unreachable brokers are waited for at start (retrying, saying so).
  std::chrono::seconds connect_wait{120};
  /// Applied after frota's defaults (see Producer).
  KafkaProperties properties;
  /// Non-empty: a transactional producer with this transactional.id. Create() then
  /// initialises transactions, which fences any older producer of the same id and aborts
  /// what it left open; messages are then published between Begin/CommitTransaction.
  std::string transactional_id;
};

/// An idempotent Kafka producer tuned for throughput.
///
/// Defaults: enable.idempotence=true (so acks=all, and a retried batch is never written
/// twice nor reordered), compression lz4, linger.ms=25, batch.size=1 MB and up to 100k
/// messages per batch, a local queue of 2M messages, and the murmur2_random partitioner:
/// the hash Java clients use by default, so any producer of the same key, in any
/// language, picks the same partition; every key frota writes is non-empty, so the
/// "random" half (for empty keys) never applies.
///
/// Publish*() only queue: they block (serving delivery reports) while the local queue is
/// full. Flush() waits for every queued message and returns the first delivery error.
/// Not thread-safe: one thread publishes (delivery reports run inside its calls).
class Producer {
 public:
  static base::Result<std::unique_ptr<Producer>> Create(const ProducerOptions& options);
  ~Producer();
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  /// One record; the key is feed_id/vehicle_id.
  base::Status PublishPosition(const model::Position& position, std::string_view source_name);
  base::Status PublishRejection(const model::Rejection& rejection, std::string_view source_name);
  /// A collector's poll, keyed feed_id/ (every poll of a feed in one partition, in order).
  base::Status PublishPoll(const model::PollRow& poll);
  /// A message to partition 0 of another topic (a transactional producer's progress
  /// record).
  base::Status PublishToTopic(const std::string& topic, std::string_view key,
                              std::string_view payload);
  /// A message as is (tests: corrupt payloads); `partition` empty: by key.
  base::Status PublishRaw(std::string_view key, std::string_view payload,
                          std::optional<std::int32_t> partition = std::nullopt);
  /// Flushes, then sends EndOfInput to every partition (with the count of records this
  /// producer delivered there), and flushes again.
  base::Status PublishEndOfInput(const std::string& run_id);
  /// Queues EndOfInput to every partition without flushing (inside a transaction), with
  /// the count of records this producer queued there.
  base::Status QueueEndOfInput(const std::string& run_id);
  /// Transactions (transactional_id set). Any error leaves the producer unusable for
  /// further transactions unless it says it is retriable; callers then abort and, on
  /// doubt, make a new producer (which fences this one).
  base::Status BeginTransaction();
  base::Status CommitTransaction(std::chrono::milliseconds timeout = std::chrono::seconds(60));
  void AbortTransaction(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  /// Waits until every queued message is delivered (or failed); the first failure.
  base::Status Flush(std::chrono::milliseconds timeout = std::chrono::minutes(5));

  [[nodiscard]] std::int32_t partition_count() const { return partitions_; }
  [[nodiscard]] std::int64_t queued() const { return queued_; }
  [[nodiscard]] std::int64_t delivered() const { return delivered_.load(); }
  [[nodiscard]] std::int64_t failed() const { return failed_.load(); }

 private:
  Producer() = default;
  base::Status Produce(std::string_view key, std::string_view payload, std::int32_t partition);
  friend struct ProducerCallbacks;
  void RecordDelivery(std::int32_t partition, const char* error);

  rd_kafka_s* rk_ = nullptr;
  rd_kafka_topic_s* topic_ = nullptr;
  std::vector<std::pair<std::string, rd_kafka_topic_s*>> other_topics_;
  ProducerOptions options_;
  std::int32_t partitions_ = 0;
  std::string buffer_;
  std::string key_;  // reused: keys outgrow the small-string buffer
  std::int64_t queued_ = 0;
  std::atomic<std::int64_t> delivered_{0};
  std::atomic<std::int64_t> failed_{0};
  std::mutex mutex_;  // guards first_error_ (delivery reports may run on flush threads)
  std::optional<std::string> first_error_;
  std::unique_ptr<std::atomic<std::int64_t>[]> delivered_per_partition_;  // partitions_ of them
};

}  // namespace frota::transport
