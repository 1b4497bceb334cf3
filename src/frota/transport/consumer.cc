#include "frota/transport/consumer.h"

#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

namespace frota::transport {

namespace {

std::vector<base::PartitionId> Ids(const rd_kafka_topic_partition_list_t* list) {
  std::vector<base::PartitionId> out;
  for (int i = 0; i < list->cnt; ++i) {
    out.emplace_back(list->elems[i].partition);
  }
  return out;
}

// Whether the group uses the cooperative (incremental) rebalance protocol. librdkafka
// requires every configured assignor to share one protocol, so the configuration decides
// it. Asking the client instead (rd_kafka_rebalance_protocol) is a round trip to its group
// thread that answers NULL once the group is shutting down: in the revocation that
// rd_kafka_consumer_close() delivers after an incremental rebalance, for one.
bool CooperativeProtocol(const KafkaProperties& properties) {
  std::string strategy;
  for (const auto& [key, value] : properties) {
    if (key == "partition.assignment.strategy") {
      strategy = value;  // the last one set wins, as in librdkafka
    }
  }
  return strategy.find("cooperative-sticky") != std::string::npos;
}

std::string Text(const std::vector<base::PartitionId>& ids) {
  std::string out;
  for (const auto id : ids) {
    out += (out.empty() ? "" : ",") + std::to_string(id.value());
  }
  return out.empty() ? "none" : out;
}

}  // namespace

struct ConsumerCallbacks {
  static void OnRebalance(rd_kafka_t* /*rk*/, rd_kafka_resp_err_t error,
                          rd_kafka_topic_partition_list_t* partitions, void* opaque) {
    static_cast<Consumer*>(opaque)->OnRebalance(error, partitions);
  }
};

base::Result<std::unique_ptr<Consumer>> Consumer::Create(const ConsumerOptions& options,
                                                         RebalanceListener* listener) {
  const auto session_ms = options.session_timeout.count();
  KafkaProperties properties = {
      {"bootstrap.servers", options.brokers},
      {"group.id", options.group},
      {"client.id", "frota-consumer"},
      {"partition.assignment.strategy", "cooperative-sticky"},
      {"enable.auto.commit", "false"},
      {"enable.auto.offset.store", "false"},
      // A partition always starts at the offset the sink gives (or explicitly at the
      // beginning); an offset the topic no longer has must stop the run, never silently
      // jump (to the start: duplicates; to the end: loss).
      {"auto.offset.reset", "error"},
      {"allow.auto.create.topics", "false"},
      {"session.timeout.ms", std::to_string(session_ms)},
      {"heartbeat.interval.ms", std::to_string(std::max<std::int64_t>(100, session_ms / 4))},
      // A PostgreSQL outage is waited out inside a poll loop iteration (up to the sink's
      // wait); the group must not expel the member for that.
      {"max.poll.interval.ms", "900000"},
      {"fetch.wait.max.ms", "100"},
  };
  properties.insert(properties.end(), options.properties.begin(), options.properties.end());
  FROTA_ASSIGN_OR_RETURN(auto* conf, internal::MakeConf(properties));
  internal::InstallLogging(conf);
  rd_kafka_conf_set_rebalance_cb(conf, &ConsumerCallbacks::OnRebalance);
  std::unique_ptr<Consumer> consumer(new Consumer());
  consumer->options_ = options;
  consumer->listener_ = listener;
  consumer->cooperative_ = CooperativeProtocol(properties);
  rd_kafka_conf_set_opaque(conf, consumer.get());
  char error[512];
  consumer->rk_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
  if (consumer->rk_ == nullptr) {
    rd_kafka_conf_destroy(conf);
    return base::InvalidInput("kafka consumer: {}", error);
  }
  rd_kafka_poll_set_consumer(consumer->rk_);
  FROTA_ASSIGN_OR_RETURN(
      consumer->partitions_,
      internal::WaitForTopic(consumer->rk_, options.brokers, options.topic, options.connect_wait));
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, options.topic.c_str(), RD_KAFKA_PARTITION_UA);
  const auto subscribed = rd_kafka_subscribe(consumer->rk_, topics);
  rd_kafka_topic_partition_list_destroy(topics);
  if (subscribed != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return base::Unavailable("kafka subscribe to {}: {}", options.topic,
                             rd_kafka_err2str(subscribed));
  }
  spdlog::info("kafka consumer joined brokers={} topic={} group={} partitions={}", options.brokers,
               options.topic, options.group, consumer->partitions_);
  return consumer;
}

Consumer::~Consumer() {
  ReleaseMessages();
  if (rk_ != nullptr) {
    if (!closed_) {
      // Without Close() (an error path): leave without callbacks into a listener that
      // may be gone.
      listener_ = nullptr;
      FinishJoinBeforeLeaving();
      rd_kafka_consumer_close(rk_);
    }
    rd_kafka_destroy(rk_);
  }
}

void Consumer::FinishJoinBeforeLeaving() {
  // librdkafka before 2.3.0 aborts in rd_kafka_destroy() (an assertion in the
  // cooperative-sticky assignor, librdkafka issue #4312) when a member that has joined
  // the group is destroyed before its first assignment arrived. A member leaving that
  // early (it found the topic finished, or was told to stop, while its join was in
  // flight) therefore lets the join finish first. The listener is not told: the member
  // never owned anything, and what arrives now is revoked again by the close.
  constexpr int kFixedVersion = 0x020300ff;
  if (assigned_once_ || !cooperative_ || rd_kafka_version() >= kFixedVersion) {
    return;
  }
  RebalanceListener* listener = listener_;
  listener_ = nullptr;
  const auto wait =
      std::max<std::chrono::milliseconds>(options_.session_timeout, std::chrono::seconds(10));
  spdlog::info(
      "kafka consumer leaving before its first assignment: finishing the join "
      "first (at most {} s)",
      std::chrono::duration_cast<std::chrono::seconds>(wait).count());
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (!assigned_once_ && std::chrono::steady_clock::now() < deadline) {
    if (rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_, 100)) {
      rd_kafka_message_destroy(m);
    }
  }
  listener_ = listener;
}

void Consumer::OnRebalance(int error, rd_kafka_topic_partition_list_t* partitions) {
  const bool cooperative = cooperative_;
  const auto ids = Ids(partitions);
  if (error == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    assigned_once_ = true;
    spdlog::info("kafka rebalance: assigned partitions={}", Text(ids));
    if (listener_ != nullptr && !ids.empty()) {
      auto offsets = listener_->OnAssigned(ids);
      if (!offsets.ok()) {
        callback_error_ = offsets.error();
        return;
      }
      for (int i = 0; i < partitions->cnt; ++i) {
        const auto& offset = (*offsets)[static_cast<std::size_t>(i)];
        partitions->elems[i].offset = offset ? *offset : RD_KAFKA_OFFSET_BEGINNING;
      }
    }
    if (cooperative) {
      if (rd_kafka_error_t* e = rd_kafka_incremental_assign(rk_, partitions)) {
        spdlog::warn("kafka incremental assign failed: {}", rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
      }
    } else {
      rd_kafka_assign(rk_, partitions);
    }
    return;
  }
  if (error == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
    const bool lost = rd_kafka_assignment_lost(rk_) == 1;
    spdlog::info("kafka rebalance: revoking partitions={} lost={}", Text(ids), lost);
    if (listener_ != nullptr && !ids.empty()) {
      const auto status = listener_->OnRevoked(ids, lost);
      if (!status.ok()) {
        callback_error_ = status.error();
      }
    }
    if (cooperative) {
      if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk_, partitions)) {
        spdlog::warn("kafka incremental unassign failed: {}", rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
      }
    } else {
      rd_kafka_assign(rk_, nullptr);
    }
    return;
  }
  spdlog::warn("kafka rebalance error: {}",
               rd_kafka_err2str(static_cast<rd_kafka_resp_err_t>(error)));
  if (cooperative) {
    if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk_, partitions)) {
      spdlog::warn("kafka incremental unassign failed: {}", rd_kafka_error_string(e));
      rd_kafka_error_destroy(e);
    }
  } else {
    rd_kafka_assign(rk_, nullptr);
  }
}

void Consumer::ReleaseMessages() {
  for (auto* m : held_) {
    rd_kafka_message_destroy(m);
  }
  held_.clear();
}

base::Status Consumer::Poll(std::vector<Message>& out, std::size_t max,
                            std::chrono::milliseconds timeout) {
  out.clear();
  ReleaseMessages();
  int wait = static_cast<int>(timeout.count());
  while (out.size() < max) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_, wait);
    wait = 0;
    if (callback_error_) {
      if (m != nullptr) {
        rd_kafka_message_destroy(m);
      }
      auto error = *callback_error_;
      callback_error_.reset();
      return error;
    }
    if (m == nullptr) {
      break;
    }
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      const auto err = m->err;
      const std::string text = rd_kafka_message_errstr(m);
      rd_kafka_message_destroy(m);
      char fatal[512];
      if (rd_kafka_fatal_error(rk_, fatal, sizeof fatal) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return base::Internal("kafka consumer fatal error: {}", fatal);
      }
      if (err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET) {
        return base::FailedCheck(
            "kafka topic {}: the committed offset of a partition is no longer in the topic "
            "(retention deleted it, or the topic was recreated): {}",
            options_.topic, text);
      }
      if (err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        spdlog::warn("kafka consume error {}: {}", rd_kafka_err2name(err), text);
      }
      continue;
    }
    held_.push_back(m);
    Message message{base::PartitionId(m->partition), m->offset,
                    std::string_view(static_cast<const char*>(m->key), m->key_len),
                    std::string_view(static_cast<const char*>(m->payload), m->len), std::nullopt};
    rd_kafka_timestamp_type_t type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
    const std::int64_t ms = rd_kafka_message_timestamp(m, &type);
    if (type != RD_KAFKA_TIMESTAMP_NOT_AVAILABLE && ms >= 0) {
      message.timestamp = base::FromUnixMillis(ms);
    }
    out.push_back(message);
  }
  return base::Status::Ok();
}

base::Status Consumer::Seek(
    const std::vector<std::pair<base::PartitionId, std::optional<std::int64_t>>>& positions) {
  if (positions.empty()) {
    return base::Status::Ok();
  }
  rd_kafka_topic_partition_list_t* list =
      rd_kafka_topic_partition_list_new(static_cast<int>(positions.size()));
  for (const auto& [partition, offset] : positions) {
    rd_kafka_topic_partition_list_add(list, options_.topic.c_str(), partition.value())->offset =
        offset ? *offset : RD_KAFKA_OFFSET_BEGINNING;
  }
  rd_kafka_error_t* error = rd_kafka_seek_partitions(rk_, list, 10000);
  base::Status status;
  if (error != nullptr) {
    status = base::Unavailable("kafka seek: {}", rd_kafka_error_string(error));
    rd_kafka_error_destroy(error);
  } else {
    for (int i = 0; i < list->cnt; ++i) {
      if (list->elems[i].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        status = base::Unavailable("kafka seek of partition {}: {}", list->elems[i].partition,
                                   rd_kafka_err2str(list->elems[i].err));
        break;
      }
    }
  }
  rd_kafka_topic_partition_list_destroy(list);
  return status;
}

void Consumer::CommitOffsets(
    const std::vector<std::pair<base::PartitionId, std::int64_t>>& next_offsets) {
  if (next_offsets.empty()) {
    return;
  }
  rd_kafka_topic_partition_list_t* list =
      rd_kafka_topic_partition_list_new(static_cast<int>(next_offsets.size()));
  for (const auto& [partition, offset] : next_offsets) {
    rd_kafka_topic_partition_list_add(list, options_.topic.c_str(), partition.value())->offset =
        offset;
  }
  const auto error = rd_kafka_commit(rk_, list, /*async=*/1);
  if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
    spdlog::debug("kafka informational offset commit failed: {}", rd_kafka_err2str(error));
  }
  rd_kafka_topic_partition_list_destroy(list);
}

base::Status Consumer::Close() {
  if (closed_) {
    return base::Status::Ok();
  }
  ReleaseMessages();
  closed_ = true;
  FinishJoinBeforeLeaving();
  const auto error = rd_kafka_consumer_close(rk_);
  if (callback_error_) {
    auto e = *callback_error_;
    callback_error_.reset();
    return e;
  }
  if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return base::Unavailable("kafka consumer close: {}", rd_kafka_err2str(error));
  }
  return base::Status::Ok();
}

}  // namespace frota::transport
