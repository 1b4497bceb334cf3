#include "frota/job/validation.h"

#include "frota/base/number_format.h"
#include "frota/geo/area.h"

namespace frota::job {

template <typename Record>
std::optional<model::RejectReason> CheckRecordRules(const Record& position,
                                                    const JobConfig& config) {
  if (position.event_time > position.ingest_time + config.future_tolerance) {
    return model::RejectReason::kFuture;
  }
  if (position.ingest_time - position.event_time > config.stale_limit) {
    return model::RejectReason::kStale;
  }
  if (config.area != nullptr && !config.area->Contains(position.lat, position.lon)) {
    return model::RejectReason::kOutOfArea;
  }
  return std::nullopt;
}

template <typename Record>
std::string DescribeRecordRuleFailure(const Record& position, model::RejectReason reason) {
  const auto lag_s =
      std::chrono::duration<double>(position.ingest_time - position.event_time).count();
  switch (reason) {
    case model::RejectReason::kFuture:
    case model::RejectReason::kStale: {
      // event_time and ingest_time have columns of their own in `rejected`. The text is
      // fmt's "lag_s={:.3f}" (base::AppendFixed), without fmt's parsing and big-number
      // path: the Rio feeds refuse one record in six under rules 2-4.
      std::string detail = "lag_s=";
      base::AppendFixed(detail, lag_s, 3);
      return detail;
    }
    case model::RejectReason::kOutOfArea: {
      std::string detail;
      detail.reserve(40);
      detail += "lat=";
      base::AppendFixed(detail, position.lat, 6);
      detail += " lon=";
      base::AppendFixed(detail, position.lon, 6);
      return detail;
    }
    default:
      return {};
  }
}

template std::optional<model::RejectReason> CheckRecordRules(const model::Position&,
                                                             const JobConfig&);
template std::optional<model::RejectReason> CheckRecordRules(const model::PositionRecord&,
                                                             const JobConfig&);
template std::string DescribeRecordRuleFailure(const model::Position&, model::RejectReason);
template std::string DescribeRecordRuleFailure(const model::PositionRecord&, model::RejectReason);

model::Rejection MakeRejection(const model::Position& position, model::RejectReason reason,
                               std::string detail) {
  model::Rejection rejection;
  rejection.reason = reason;
  rejection.feed_id = position.feed_id;
  rejection.vehicle_id = position.vehicle_id;
  rejection.event_time = position.event_time;
  rejection.ingest_time = position.ingest_time;
  rejection.source = position.source;
  rejection.detail = std::move(detail);
  return rejection;
}

}  // namespace frota::job
