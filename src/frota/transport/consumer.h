// Consumes a Kafka topic in a consumer group, with cooperative incremental rebalancing.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/strong_id.h"
#include "frota/base/time.h"
#include "frota/transport/kafka_common.h"

struct rd_kafka_s;
struct rd_kafka_message_s;
struct rd_kafka_topic_partition_list_s;

namespace frota::transport {

struct ConsumerOptions {
  std::string brokers;
  std::string topic;  // must exist
  std::string group;
  std::chrono::seconds connect_wait{120};
  /// The group's failure detector: a process silent this long loses its partitions.
  std::chrono::milliseconds session_timeout{10000};
  KafkaProperties properties;  // after frota's defaults
};

/// One consumed message; its bytes live until the next Poll().
struct Message {
  base::PartitionId partition;
  std::int64_t offset = 0;
  std::string_view key;
  std::string_view payload;
  std::optional<base::Timestamp> timestamp;  // the message's (create or log append) time
};

/// Told about partitions as the group moves them. Called from inside Consumer::Poll(), on
/// the polling thread, in the order Kafka decides:
///  - OnRevoked(partitions, lost) BEFORE the partitions are given up: the last moment to
///    commit what was read from them. `lost`: the group already gave them to another
///    member (this one missed its session timeout); a commit may still be tried, and the
///    sink's fence decides whether it may land.
///  - OnAssigned(partitions) when partitions are added: returns, for each, the offset to
///    read from (nullopt: the beginning). An error makes Poll() fail.
class RebalanceListener {
 public:
  virtual ~RebalanceListener() = default;
  virtual base::Result<std::vector<std::optional<std::int64_t>>> OnAssigned(
      const std::vector<base::PartitionId>& partitions) = 0;
  virtual base::Status OnRevoked(const std::vector<base::PartitionId>& partitions, bool lost) = 0;
};

/// A member of a consumer group on one topic, with partition.assignment.strategy
/// cooperative-sticky (a rebalance moves only the partitions that change owner; the
/// others keep being consumed), auto commit off (offsets live in the sink; the ones
/// committed to Kafka are informational: CommitOffsets), reading from the offsets the
/// listener returns. Not thread-safe: one thread polls.
class Consumer {
 public:
  static base::Result<std::unique_ptr<Consumer>> Create(const ConsumerOptions& options,
                                                        RebalanceListener* listener);
  ~Consumer();
  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;

  /// Up to `max` messages, waiting at most `timeout` for the first. Rebalance callbacks
  /// run inside. Transient broker errors are logged and skipped; a fatal one is an error.
  base::Status Poll(std::vector<Message>& out, std::size_t max, std::chrono::milliseconds timeout);
  /// Moves the read position of assigned partitions (after a reset to the sink's state);
  /// messages fetched before the seek are never returned.
  base::Status Seek(
      const std::vector<std::pair<base::PartitionId, std::optional<std::int64_t>>>& positions);
  /// Informational offset commit to Kafka (monitoring tools read it), asynchronous.
  void CommitOffsets(const std::vector<std::pair<base::PartitionId, std::int64_t>>& next_offsets);
  /// Leaves the group cleanly: OnRevoked for every partition, then close.
  base::Status Close();

  [[nodiscard]] std::int32_t partition_count() const { return partitions_; }
  [[nodiscard]] const std::string& topic() const { return options_.topic; }

 private:
  Consumer() = default;
  friend struct ConsumerCallbacks;
  void OnRebalance(int error, rd_kafka_topic_partition_list_s* partitions);
  void ReleaseMessages();
  void FinishJoinBeforeLeaving();

  rd_kafka_s* rk_ = nullptr;
  ConsumerOptions options_;
  RebalanceListener* listener_ = nullptr;
  std::int32_t partitions_ = 0;
  bool cooperative_ = true;     // the rebalance protocol the configured assignors use
  bool assigned_once_ = false;  // an assignment (possibly empty) arrived
  std::vector<rd_kafka_message_s*> held_;
  std::optional<base::Error> callback_error_;
  bool closed_ = false;
};

}  // namespace frota::transport
