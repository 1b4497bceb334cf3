#include "frota/transport/topic_admin.h"

#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string_view>
#include <thread>

namespace frota::transport {

namespace {

struct KafkaHandle {
  rd_kafka_t* rk = nullptr;
  ~KafkaHandle() {
    if (rk != nullptr) {
      rd_kafka_destroy(rk);
    }
  }
};

base::Status Open(KafkaHandle& handle, rd_kafka_type_t type, const std::string& brokers,
                  const KafkaProperties& extra, KafkaProperties base_properties) {
  base_properties.insert(base_properties.begin(), {"bootstrap.servers", brokers});
  base_properties.insert(base_properties.end(), extra.begin(), extra.end());
  FROTA_ASSIGN_OR_RETURN(auto* conf, internal::MakeConf(base_properties));
  internal::InstallLogging(conf);
  char error[512];
  handle.rk = rd_kafka_new(type, conf, error, sizeof error);
  if (handle.rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return base::InvalidInput("kafka client for {}: {}", brokers, error);
  }
  return base::Status::Ok();
}

// A progress topic that deletes old records would lose the last progress after its
// retention, and everything would be published again: refuse it.
base::Status CheckCompacted(rd_kafka_t* rk, const std::string& brokers, const std::string& topic,
                            int wait_ms) {
  char error[512];
  rd_kafka_ConfigResource_t* resource =
      rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str());
  rd_kafka_queue_t* queue = rd_kafka_queue_new(rk);
  rd_kafka_AdminOptions_t* options =
      rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS);
  rd_kafka_AdminOptions_set_request_timeout(options, wait_ms, error, sizeof error);
  rd_kafka_DescribeConfigs(rk, &resource, 1, options, queue);
  rd_kafka_event_t* event = rd_kafka_queue_poll(queue, wait_ms + 5000);
  base::Status status =
      base::Unavailable("kafka brokers {}: no answer describing topic {}", brokers, topic);
  if (event != nullptr) {
    if (rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      status = base::Unavailable("kafka brokers {}: describing topic {}: {}", brokers, topic,
                                 rd_kafka_event_error_string(event));
    } else {
      const auto* result = rd_kafka_event_DescribeConfigs_result(event);
      std::size_t n = 0;
      const rd_kafka_ConfigResource_t** resources =
          rd_kafka_DescribeConfigs_result_resources(result, &n);
      std::string policy;
      for (std::size_t i = 0; i < n; ++i) {
        std::size_t entries = 0;
        const rd_kafka_ConfigEntry_t** configs =
            rd_kafka_ConfigResource_configs(resources[i], &entries);
        for (std::size_t e = 0; e < entries; ++e) {
          if (std::string_view(rd_kafka_ConfigEntry_name(configs[e])) == "cleanup.policy" &&
              rd_kafka_ConfigEntry_value(configs[e]) != nullptr) {
            policy = rd_kafka_ConfigEntry_value(configs[e]);
          }
        }
      }
      status =
          policy.find("compact") != std::string::npos && policy.find("delete") == std::string::npos
              ? base::Status::Ok()
              : base::InvalidInput(
                    "kafka topic {} has cleanup.policy={}: a progress topic must be "
                    "compact only (its last record must never expire)",
                    topic, policy.empty() ? "?" : policy);
    }
    rd_kafka_event_destroy(event);
  }
  rd_kafka_AdminOptions_destroy(options);
  rd_kafka_ConfigResource_destroy(resource);
  rd_kafka_queue_destroy(queue);
  return status;
}

}  // namespace

base::Status EnsureCompactedTopic(const std::string& brokers, const std::string& topic,
                                  const KafkaProperties& properties, std::chrono::seconds wait) {
  KafkaHandle handle;
  FROTA_RETURN_IF_ERROR(
      Open(handle, RD_KAFKA_PRODUCER, brokers, properties,
           {{"client.id", "frota-admin"}, {"allow.auto.create.topics", "false"}}));
  // Does it exist? (A missing topic is not an error of WaitForTopic's metadata call here.)
  const rd_kafka_metadata_t* metadata = nullptr;
  rd_kafka_topic_t* probe = rd_kafka_topic_new(handle.rk, topic.c_str(), nullptr);
  const auto wait_ms = static_cast<int>(std::chrono::milliseconds(wait).count());
  const auto found = rd_kafka_metadata(handle.rk, 0, probe, &metadata, wait_ms);
  rd_kafka_topic_destroy(probe);
  if (found != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return base::Unavailable("kafka brokers {} unreachable: {}", brokers, rd_kafka_err2str(found));
  }
  const bool exists = metadata->topic_cnt == 1 &&
                      metadata->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR &&
                      metadata->topics[0].partition_cnt > 0;
  rd_kafka_metadata_destroy(metadata);
  if (exists) {
    return CheckCompacted(handle.rk, brokers, topic, wait_ms);
  }
  char error[512];
  rd_kafka_NewTopic_t* new_topic = rd_kafka_NewTopic_new(topic.c_str(), 1, -1, error, sizeof error);
  if (new_topic == nullptr) {
    return base::InvalidInput("kafka topic {}: {}", topic, error);
  }
  rd_kafka_NewTopic_set_config(new_topic, "cleanup.policy", "compact");
  rd_kafka_queue_t* queue = rd_kafka_queue_new(handle.rk);
  rd_kafka_AdminOptions_t* options =
      rd_kafka_AdminOptions_new(handle.rk, RD_KAFKA_ADMIN_OP_CREATETOPICS);
  rd_kafka_AdminOptions_set_operation_timeout(options, wait_ms, error, sizeof error);
  rd_kafka_CreateTopics(handle.rk, &new_topic, 1, options, queue);
  rd_kafka_event_t* event = rd_kafka_queue_poll(queue, wait_ms + 5000);
  base::Status status = base::Status::Ok();
  if (event == nullptr) {
    status = base::Unavailable("kafka brokers {}: no answer to creating topic {}", brokers, topic);
  } else if (rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    status = base::Unavailable("kafka brokers {}: creating topic {}: {}", brokers, topic,
                               rd_kafka_event_error_string(event));
  } else {
    const rd_kafka_CreateTopics_result_t* result = rd_kafka_event_CreateTopics_result(event);
    std::size_t n = 0;
    const rd_kafka_topic_result_t** topics = rd_kafka_CreateTopics_result_topics(result, &n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto err = rd_kafka_topic_result_error(topics[i]);
      if (err != RD_KAFKA_RESP_ERR_NO_ERROR && err != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
        status = base::Unavailable("kafka brokers {}: creating topic {}: {}", brokers, topic,
                                   rd_kafka_topic_result_error_string(topics[i]));
      }
    }
    if (status.ok()) {
      spdlog::info("kafka topic created topic={} partitions=1 cleanup.policy=compact", topic);
    }
  }
  if (event != nullptr) {
    rd_kafka_event_destroy(event);
  }
  rd_kafka_AdminOptions_destroy(options);
  rd_kafka_NewTopic_destroy(new_topic);
  rd_kafka_queue_destroy(queue);
  return status;
}

base::Result<std::optional<std::string>> ReadLastValue(const std::string& brokers,
                                                       const std::string& topic,
                                                       const std::string& key,
                                                       const KafkaProperties& properties,
                                                       std::chrono::seconds wait) {
  KafkaHandle handle;
  FROTA_RETURN_IF_ERROR(Open(handle, RD_KAFKA_CONSUMER, brokers, properties,
                             {{"client.id", "frota-progress-reader"},
                              {"allow.auto.create.topics", "false"},
                              {"group.id", "frota-progress-reader"},
                              {"enable.auto.commit", "false"},
                              {"enable.auto.offset.store", "false"},
                              {"isolation.level", "read_committed"},
                              {"enable.partition.eof", "true"}}));
  const auto wait_ms = static_cast<int>(std::chrono::milliseconds(wait).count());
  // Another producer's open transaction holds the last stable offset back, and a
  // read_committed reader sees nothing past it: it could take an older record for the
  // last one. Wait until everything written before now is decided (committed or
  // aborted; an abandoned transaction times out), or give up.
  KafkaHandle uncommitted;
  FROTA_RETURN_IF_ERROR(Open(uncommitted, RD_KAFKA_CONSUMER, brokers, properties,
                             {{"client.id", "frota-progress-reader"},
                              {"group.id", "frota-progress-reader"},
                              {"allow.auto.create.topics", "false"},
                              {"isolation.level", "read_uncommitted"}}));
  std::int64_t low = 0;
  std::int64_t written = 0;
  auto err =
      rd_kafka_query_watermark_offsets(uncommitted.rk, topic.c_str(), 0, &low, &written, wait_ms);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return base::Unavailable("kafka brokers {}: offsets of {}: {}", brokers, topic,
                             rd_kafka_err2str(err));
  }
  std::int64_t high = 0;
  const auto settle_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (true) {
    err = rd_kafka_query_watermark_offsets(handle.rk, topic.c_str(), 0, &low, &high, wait_ms);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return base::Unavailable("kafka brokers {}: offsets of {}: {}", brokers, topic,
                               rd_kafka_err2str(err));
    }
    if (high >= written) {
      break;
    }
    if (std::chrono::steady_clock::now() > settle_deadline) {
      return base::Unavailable(
          "kafka topic {}: a transaction of another producer stays open (stable offset {} < "
          "{}); the last progress cannot be read yet",
          topic, high, written);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  spdlog::debug("kafka progress read topic={} low={} high={}", topic, low, high);
  std::int64_t window = 64;
  std::int64_t end = high;  // read [start, end) in each round
  while (end > low) {
    const std::int64_t start = std::max(low, end - window);
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), 0)->offset = start;
    const auto assigned = rd_kafka_assign(handle.rk, list);
    rd_kafka_topic_partition_list_destroy(list);
    if (assigned != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return base::Unavailable("kafka brokers {}: reading {}: {}", brokers, topic,
                               rd_kafka_err2str(assigned));
    }
    std::optional<std::string> last;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (true) {
      if (std::chrono::steady_clock::now() > deadline) {
        return base::Unavailable("kafka brokers {}: reading {} timed out", brokers, topic);
      }
      rd_kafka_message_t* m = rd_kafka_consumer_poll(handle.rk, 500);
      if (m == nullptr) {
        continue;
      }
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        rd_kafka_message_destroy(m);
        break;
      }
      if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        const std::string problem = rd_kafka_message_errstr(m);
        rd_kafka_message_destroy(m);
        return base::Unavailable("kafka brokers {}: reading {}: {}", brokers, topic, problem);
      }
      const std::int64_t offset = m->offset;
      spdlog::debug("kafka progress record offset={} key_bytes={}", offset, m->key_len);
      if (offset < end && m->key_len == key.size() &&
          std::string_view(static_cast<const char*>(m->key), m->key_len) == key) {
        last = std::string(static_cast<const char*>(m->payload), m->len);
      }
      rd_kafka_message_destroy(m);
      if (offset + 1 >= end) {
        break;
      }
    }
    if (last) {
      (void)rd_kafka_assign(handle.rk, nullptr);
      return last;
    }
    end = start;
    window *= 4;
  }
  (void)rd_kafka_assign(handle.rk, nullptr);
  return std::optional<std::string>();
}

}  // namespace frota::transport
