#include "frota/transport/producer.h"

#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

namespace frota::transport {

struct ProducerCallbacks {
  static void OnDelivery(rd_kafka_t* /*rk*/, const rd_kafka_message_t* message, void* opaque) {
    static_cast<Producer*>(opaque)->RecordDelivery(
        message->partition,
        message->err == RD_KAFKA_RESP_ERR_NO_ERROR ? nullptr : rd_kafka_err2str(message->err));
  }
};

void Producer::RecordDelivery(std::int32_t partition, const char* error) {
  if (error == nullptr) {
    // A report per message: counters, no lock.
    delivered_.fetch_add(1, std::memory_order_relaxed);
    if (partition >= 0 && partition < partitions_) {
      delivered_per_partition_[static_cast<std::size_t>(partition)].fetch_add(
          1, std::memory_order_relaxed);
    }
    return;
  }
  failed_.fetch_add(1, std::memory_order_relaxed);
  const std::lock_guard lock(mutex_);
  if (!first_error_) {
    first_error_ = error;
  }
}

base::Result<std::unique_ptr<Producer>> Producer::Create(const ProducerOptions& options) {
  KafkaProperties properties = {
      {"bootstrap.servers", options.brokers},
      {"client.id", "frota-producer"},
      {"enable.idempotence", "true"},
      {"compression.type", "lz4"},
      {"linger.ms", "25"},
      {"batch.size", "1000000"},
      {"batch.num.messages", "100000"},
      {"queue.buffering.max.messages", "2000000"},
      {"queue.buffering.max.kbytes", "1048576"},
      {"partitioner", "murmur2_random"},
      {"allow.auto.create.topics", "false"},
      {"message.timeout.ms", "600000"},
  };
  if (!options.transactional_id.empty()) {
    // A transaction must end before its messages time out: both one minute.
    properties.emplace_back("transactional.id", options.transactional_id);
    properties.emplace_back("transaction.timeout.ms", "60000");
    properties.emplace_back("message.timeout.ms", "60000");
  }
  properties.insert(properties.end(), options.properties.begin(), options.properties.end());
  FROTA_ASSIGN_OR_RETURN(auto* conf, internal::MakeConf(properties));
  internal::InstallLogging(conf);
  rd_kafka_conf_set_dr_msg_cb(conf, &ProducerCallbacks::OnDelivery);
  std::unique_ptr<Producer> producer(new Producer());
  producer->options_ = options;
  rd_kafka_conf_set_opaque(conf, producer.get());
  char error[512];
  producer->rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error);
  if (producer->rk_ == nullptr) {
    rd_kafka_conf_destroy(conf);
    return base::InvalidInput("kafka producer: {}", error);
  }
  FROTA_ASSIGN_OR_RETURN(
      producer->partitions_,
      internal::WaitForTopic(producer->rk_, options.brokers, options.topic, options.connect_wait));
  producer->delivered_per_partition_ = std::make_unique<std::atomic<std::int64_t>[]>(
      static_cast<std::size_t>(producer->partitions_));
  producer->topic_ = rd_kafka_topic_new(producer->rk_, options.topic.c_str(), nullptr);
  if (!options.transactional_id.empty()) {
    rd_kafka_error_t* init = rd_kafka_init_transactions(
        producer->rk_, static_cast<int>(std::chrono::milliseconds(options.connect_wait).count()));
    if (init != nullptr) {
      const std::string message = rd_kafka_error_string(init);
      rd_kafka_error_destroy(init);
      return base::Unavailable("kafka producer on {}: transactions not initialised: {}",
                               options.brokers, message);
    }
  }
  spdlog::info("kafka producer ready brokers={} topic={} partitions={} payload={}", options.brokers,
               options.topic, producer->partitions_,
               options.format == PayloadFormat::kBinary ? "binary" : "json");
  return producer;
}

Producer::~Producer() {
  if (topic_ != nullptr) {
    rd_kafka_topic_destroy(topic_);
  }
  for (auto& [name, topic] : other_topics_) {
    rd_kafka_topic_destroy(topic);
  }
  if (rk_ != nullptr) {
    // Unflushed messages are dropped: callers Flush() when they mean to deliver.
    rd_kafka_purge(rk_, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_destroy(rk_);
  }
}

base::Status Producer::Produce(std::string_view key, std::string_view payload,
                               std::int32_t partition) {
  while (true) {
    if (rd_kafka_produce(topic_, partition, RD_KAFKA_MSG_F_COPY, const_cast<char*>(payload.data()),
                         payload.size(), key.data(), key.size(), nullptr) == 0) {
      ++queued_;
      // Serve delivery reports now and then without waiting.
      if ((queued_ & 0x3FF) == 0) {
        rd_kafka_poll(rk_, 0);
      }
      return base::Status::Ok();
    }
    const auto error = rd_kafka_last_error();
    if (error != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      return base::Unavailable("kafka produce to {}: {}", options_.topic, rd_kafka_err2str(error));
    }
    rd_kafka_poll(rk_, 50);  // the queue drains as batches are delivered
  }
}

base::Status Producer::PublishPosition(const model::Position& position,
                                       std::string_view source_name) {
  EncodePosition(position, source_name, options_.format, buffer_);
  AssignMessageKey(position.feed_id, position.vehicle_id, key_);
  return Produce(key_, buffer_, RD_KAFKA_PARTITION_UA);
}

base::Status Producer::PublishRejection(const model::Rejection& rejection,
                                        std::string_view source_name) {
  EncodeRejection(rejection, source_name, options_.format, buffer_);
  AssignMessageKey(rejection.feed_id, rejection.vehicle_id, key_);
  return Produce(key_, buffer_, RD_KAFKA_PARTITION_UA);
}

base::Status Producer::PublishPoll(const model::PollRow& poll) {
  EncodePoll(poll, options_.format, buffer_);
  AssignMessageKey(poll.feed_id, "", key_);
  return Produce(key_, buffer_, RD_KAFKA_PARTITION_UA);
}

base::Status Producer::PublishToTopic(const std::string& topic, std::string_view key,
                                      std::string_view payload) {
  rd_kafka_topic_t* handle = nullptr;
  for (auto& [name, t] : other_topics_) {
    if (name == topic) {
      handle = t;
    }
  }
  if (handle == nullptr) {
    handle = rd_kafka_topic_new(rk_, topic.c_str(), nullptr);
    other_topics_.emplace_back(topic, handle);
  }
  if (rd_kafka_produce(handle, 0, RD_KAFKA_MSG_F_COPY, const_cast<char*>(payload.data()),
                       payload.size(), key.data(), key.size(), nullptr) != 0) {
    return base::Unavailable("kafka produce to {}: {}", topic,
                             rd_kafka_err2str(rd_kafka_last_error()));
  }
  return base::Status::Ok();
}

namespace {

// A transaction call's error as a status, consumed.
base::Status TxnStatus(rd_kafka_error_t* error, std::string_view what) {
  if (error == nullptr) {
    return base::Status::Ok();
  }
  const std::string message = rd_kafka_error_string(error);
  const bool fatal = rd_kafka_error_is_fatal(error) != 0;
  rd_kafka_error_destroy(error);
  if (fatal) {
    return base::Internal("kafka {} failed (fatal): {}", what, message);
  }
  return base::Unavailable("kafka {} failed: {}", what, message);
}

}  // namespace

base::Status Producer::BeginTransaction() {
  return TxnStatus(rd_kafka_begin_transaction(rk_), "begin transaction");
}

base::Status Producer::CommitTransaction(std::chrono::milliseconds timeout) {
  FROTA_RETURN_IF_ERROR(TxnStatus(
      rd_kafka_commit_transaction(rk_, static_cast<int>(timeout.count())), "commit transaction"));
  const std::lock_guard lock(mutex_);
  if (first_error_) {
    return base::Unavailable("kafka delivery to {} failed: {}", options_.topic, *first_error_);
  }
  return base::Status::Ok();
}

void Producer::AbortTransaction(std::chrono::milliseconds timeout) {
  const auto status = TxnStatus(rd_kafka_abort_transaction(rk_, static_cast<int>(timeout.count())),
                                "abort transaction");
  if (!status.ok()) {
    spdlog::warn("{}", status.error().message());
  }
}

base::Status Producer::PublishRaw(std::string_view key, std::string_view payload,
                                  std::optional<std::int32_t> partition) {
  return Produce(key, payload, partition.value_or(RD_KAFKA_PARTITION_UA));
}

base::Status Producer::PublishEndOfInput(const std::string& run_id) {
  FROTA_RETURN_IF_ERROR(Flush());
  std::vector<std::int64_t> counts;
  for (std::int32_t p = 0; p < partitions_; ++p) {
    counts.push_back(delivered_per_partition_[static_cast<std::size_t>(p)].load());
  }
  for (std::int32_t p = 0; p < partitions_; ++p) {
    EncodeEndOfInput({run_id, counts[static_cast<std::size_t>(p)]}, options_.format, buffer_);
    FROTA_RETURN_IF_ERROR(Produce("", buffer_, p));
  }
  return Flush();
}

base::Status Producer::QueueEndOfInput(const std::string& run_id) {
  // Counts are of messages delivered so far (earlier transactions of this producer).
  rd_kafka_poll(rk_, 0);
  for (std::int32_t p = 0; p < partitions_; ++p) {
    EncodeEndOfInput({run_id, delivered_per_partition_[static_cast<std::size_t>(p)].load()},
                     options_.format, buffer_);
    FROTA_RETURN_IF_ERROR(Produce("", buffer_, p));
  }
  return base::Status::Ok();
}

base::Status Producer::Flush(std::chrono::milliseconds timeout) {
  const auto error = rd_kafka_flush(rk_, static_cast<int>(timeout.count()));
  {
    const std::lock_guard lock(mutex_);
    if (first_error_) {
      return base::Unavailable("kafka delivery to {} failed for {} messages: {}", options_.topic,
                               failed_.load(), *first_error_);
    }
  }
  if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return base::Unavailable("kafka flush to {}: {} ({} messages still queued)", options_.topic,
                             rd_kafka_err2str(error), rd_kafka_outq_len(rk_));
  }
  char fatal[512];
  if (rd_kafka_fatal_error(rk_, fatal, sizeof fatal) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return base::Internal("kafka producer fatal error: {}", fatal);
  }
  return base::Status::Ok();
}

}  // namespace frota::transport
