#include "frota/transport/kafka_common.h"

#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

#include <map>
#include <mutex>
#include <thread>

namespace frota::transport {

base::Result<KafkaProperties> ParseKafkaProperties(const std::vector<std::string>& items) {
  KafkaProperties out;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return base::InvalidInput("kafka property \"{}\": expected KEY=VALUE",
                                item.substr(0, item.find('=')));
    }
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return out;
}

namespace internal {

base::Result<rd_kafka_conf_t*> MakeConf(const KafkaProperties& properties) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char error[512];
  for (const auto& [key, value] : properties) {
    if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), error, sizeof error) !=
        RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      // librdkafka's message may quote the value (a password): name the key only.
      return base::InvalidInput("kafka property {}: not accepted by librdkafka", key);
    }
  }
  return conf;
}

namespace {

// librdkafka repeats the same complaint every second while a broker is down: say each
// distinct message at most once per 10 s.
bool ShouldLog(const std::string& message) {
  static std::mutex mutex;
  static std::map<std::string, std::chrono::steady_clock::time_point> last;
  const auto now = std::chrono::steady_clock::now();
  const std::lock_guard lock(mutex);
  auto& when = last[message];
  if (when != std::chrono::steady_clock::time_point{} && now - when < std::chrono::seconds(10)) {
    return false;
  }
  when = now;
  if (last.size() > 1000) {
    last.clear();
  }
  return true;
}

void OnLog(const rd_kafka_t* /*rk*/, int level, const char* facility, const char* message) {
  const std::string text = fmt::format("kafka {} {}", facility, message);
  if (level <= 4 && !ShouldLog(text)) {
    return;
  }
  if (level <= 3) {
    spdlog::warn("{}", text);
  } else if (level <= 5) {
    spdlog::info("{}", text);
  } else {
    spdlog::debug("{}", text);
  }
}

void OnError(rd_kafka_t* rk, int error, const char* reason, void* /*opaque*/) {
  if (error == RD_KAFKA_RESP_ERR__FATAL) {
    char fatal[512];
    rd_kafka_fatal_error(rk, fatal, sizeof fatal);
    spdlog::error("kafka fatal error: {}", fatal);
    return;
  }
  const std::string text = fmt::format(
      "kafka error {}: {}", rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(error)), reason);
  if (ShouldLog(text)) {
    spdlog::warn("{}", text);
  }
}

}  // namespace

void InstallLogging(rd_kafka_conf_t* conf) {
  rd_kafka_conf_set_log_cb(conf, OnLog);
  rd_kafka_conf_set_error_cb(conf, OnError);
}

base::Result<std::int32_t> WaitForTopic(rd_kafka_t* rk, const std::string& brokers,
                                        const std::string& topic, std::chrono::seconds wait) {
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + wait;
  auto backoff = std::chrono::milliseconds(500);
  rd_kafka_topic_t* handle = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  for (int attempt = 1;; ++attempt) {
    const rd_kafka_metadata_t* metadata = nullptr;
    const auto error = rd_kafka_metadata(rk, 0, handle, &metadata, 3000);
    std::string problem;
    if (error == RD_KAFKA_RESP_ERR_NO_ERROR) {
      const auto& t = metadata->topics[0];
      const auto topic_error = t.err;
      const int partitions = t.partition_cnt;
      rd_kafka_metadata_destroy(metadata);
      if (topic_error == RD_KAFKA_RESP_ERR_NO_ERROR && partitions > 0) {
        rd_kafka_topic_destroy(handle);
        if (attempt > 1) {
          spdlog::info(
              "kafka brokers reachable brokers={} topic={} partitions={} waited_s={:.1f}", brokers,
              topic, partitions,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        }
        return partitions;
      }
      if (topic_error == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
        rd_kafka_topic_destroy(handle);
        return base::InvalidInput(
            "kafka topic {} does not exist on {}; create it first (e.g. kafka-topics.sh "
            "--create --topic {} --partitions 6)",
            topic, brokers, topic);
      }
      problem = rd_kafka_err2str(topic_error);
    } else {
      problem = rd_kafka_err2str(error);
    }
    if (std::chrono::steady_clock::now() + backoff > deadline) {
      rd_kafka_topic_destroy(handle);
      return base::Unavailable("kafka brokers {} unreachable for {} s ({} attempts): {}", brokers,
                               wait.count(), attempt, problem);
    }
    spdlog::warn(
        "kafka brokers unreachable, retrying brokers={} attempt={} retry_in_ms={} "
        "error=\"{}\"",
        brokers, attempt, backoff.count(), problem);
    std::this_thread::sleep_for(backoff);
    backoff = std::min<std::chrono::milliseconds>(backoff * 2, std::chrono::seconds(10));
  }
}

}  // namespace internal
}  // namespace frota::transport
