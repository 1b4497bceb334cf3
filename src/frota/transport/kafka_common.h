// Pieces shared by the producer and the consumer: configuration, logging, broker waits.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "frota/base/status.h"

struct rd_kafka_s;
struct rd_kafka_conf_s;

namespace frota::transport {

/// Extra librdkafka properties ("key=value"), applied after frota's defaults: security
/// settings (SASL, TLS), tuning, test settings. Their values are never logged.
using KafkaProperties = std::vector<std::pair<std::string, std::string>>;

/// Parses "key=value" items (e.g. repeated --kafka-property flags).
base::Result<KafkaProperties> ParseKafkaProperties(const std::vector<std::string>& items);

namespace internal {

/// A librdkafka configuration with `properties` set; errors name the key, never the value.
base::Result<rd_kafka_conf_s*> MakeConf(const KafkaProperties& properties);

/// Routes librdkafka's logs and errors to spdlog (rate-limited: a broker that is down
/// makes librdkafka repeat itself every second).
void InstallLogging(rd_kafka_conf_s* conf);

/// Waits until `topic`'s metadata can be read: retries with backoff, logging each attempt
/// ("kafka brokers unreachable ..."), for at most `wait`. Returns the partition count. A
/// topic the brokers do not know is an error at once (create it first).
base::Result<std::int32_t> WaitForTopic(rd_kafka_s* rk, const std::string& brokers,
                                        const std::string& topic, std::chrono::seconds wait);

}  // namespace internal
}  // namespace frota::transport
