// Topic chores of a transactional publisher: create its progress topic, read its last record.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "frota/base/status.h"
#include "frota/transport/kafka_common.h"

namespace frota::transport {

/// Creates `topic` (one partition, compacted: only the latest record of each key matters)
/// unless it exists. Errors name the brokers and the topic.
base::Status EnsureCompactedTopic(const std::string& brokers, const std::string& topic,
                                  const KafkaProperties& properties, std::chrono::seconds wait);

/// The value of the last committed record with key `key` in partition 0 of `topic`
/// (read_committed: records of aborted or open transactions are never seen), or nullopt
/// when it has none. Reads backwards in growing windows from the end.
base::Result<std::optional<std::string>> ReadLastValue(const std::string& brokers,
                                                       const std::string& topic,
                                                       const std::string& key,
                                                       const KafkaProperties& properties,
                                                       std::chrono::seconds wait);

}  // namespace frota::transport
