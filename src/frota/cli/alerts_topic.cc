#include "frota/cli/alerts_topic.h"

#include <memory>
#include <nlohmann/json.hpp>

#include "frota/base/time.h"
#include "frota/transport/producer.h"

namespace frota::cli {

// An alert row as the JSON of its Kafka message (the `alerts` table's columns).
std::string AlertJson(const model::AlertRow& a) {
  nlohmann::ordered_json j;
  const auto time = [](std::optional<base::Timestamp> t) {
    return t ? nlohmann::ordered_json(base::FormatIso8601(*t)) : nlohmann::ordered_json();
  };
  const auto number = [](std::optional<double> v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
  };
  j["alert_id"] = a.alert_id;
  j["kind"] = a.kind;
  j["feed_id"] = a.feed_id;
  j["route_id"] = a.route_id;
  j["direction_id"] =
      a.direction_id >= 0 ? nlohmann::ordered_json(a.direction_id) : nlohmann::ordered_json();
  j["service_date"] = a.service_date ? nlohmann::ordered_json(base::FormatDate(*a.service_date))
                                     : nlohmann::ordered_json();
  j["start_time"] = time(a.start_time);
  j["end_time"] = time(a.end_time);
  j["raised_at"] = time(a.raised_at);
  j["closed_at"] = time(a.closed_at);
  j["planned_headway_s"] = number(a.planned_headway_s);
  j["actual_headway_s"] = number(a.actual_headway_s);
  j["vehicles"] = a.vehicles;
  return j.dump();
}

base::Result<PublishAlerts> OpenAlertsTopic(const std::string& brokers, const std::string& topic,
                                            double connect_wait_s) {
  transport::ProducerOptions options;
  options.brokers = brokers;
  options.topic = topic;
  options.connect_wait = std::chrono::seconds(static_cast<std::int64_t>(connect_wait_s));
  FROTA_ASSIGN_OR_RETURN(auto created, transport::Producer::Create(options));
  std::shared_ptr<transport::Producer> producer(std::move(created));
  return PublishAlerts([producer](const std::vector<model::AlertRow>& rows) -> base::Status {
    for (const auto& a : rows) {
      FROTA_RETURN_IF_ERROR(producer->PublishRaw(a.alert_id, AlertJson(a)));
    }
    return producer->Flush();
  });
}

}  // namespace frota::cli
