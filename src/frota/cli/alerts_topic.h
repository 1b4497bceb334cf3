// `--alerts-topic`: the regularity alerts, also on a Kafka topic (replay and run --kafka).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "frota/base/status.h"
#include "frota/model/rows.h"

namespace frota::cli {

/// Hands a batch of alert rows to Kafka; what the runners call before each commit.
using PublishAlerts = std::function<base::Status(const std::vector<model::AlertRow>&)>;

/// An alert row as the JSON of its Kafka message (the `alerts` table's columns).
std::string AlertJson(const model::AlertRow& a);

/// A producer on `topic` of `brokers` (waiting up to `connect_wait_s` for them), as a
/// PublishAlerts: each alert keyed by its alert_id, the batch flushed before it returns,
/// so an epoch committed after it never holds an alert the topic has not. An epoch redone
/// after a crash publishes the same messages again, never fewer (a consumer keeping the
/// last message per key sees no change).
base::Result<PublishAlerts> OpenAlertsTopic(const std::string& brokers, const std::string& topic,
                                            double connect_wait_s);

}  // namespace frota::cli
