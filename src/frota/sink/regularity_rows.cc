#include "frota/sink/regularity_rows.h"

namespace frota::sink {

namespace {

void SetDirection(ChunkAppender& a, std::size_t column, std::int8_t direction_id) {
  direction_id >= 0 ? a.SetInt8(column, direction_id) : a.SetNull(column);
}

void SetOptionalDouble(ChunkAppender& a, std::size_t column, std::optional<double> v) {
  v ? a.SetDouble(column, *v) : a.SetNull(column);
}

}  // namespace

const std::vector<ColumnType>& DepartureColumns() {
  using CT = ColumnType;
  static const std::vector<ColumnType> kColumns = {
      CT::kVarchar, CT::kVarchar, CT::kVarchar,   CT::kVarchar, CT::kTinyint, CT::kVarchar,
      CT::kVarchar, CT::kDate,    CT::kTimestamp, CT::kBoolean, CT::kDouble,  CT::kBoolean,
      CT::kBoolean, CT::kVarchar, CT::kDate,      CT::kTinyint};
  return kColumns;
}

const std::vector<ColumnType>& HeadwayColumns() {
  using CT = ColumnType;
  static const std::vector<ColumnType> kColumns = {
      CT::kVarchar, CT::kTinyint, CT::kDate,    CT::kVarchar, CT::kTimestamp, CT::kDate,
      CT::kTinyint, CT::kVarchar, CT::kBoolean, CT::kDouble,  CT::kDouble,    CT::kVarchar};
  return kColumns;
}

const std::vector<ColumnType>& AlertColumns() {
  using CT = ColumnType;
  static const std::vector<ColumnType> kColumns = {
      CT::kVarchar, CT::kVarchar,   CT::kVarchar,   CT::kVarchar,   CT::kTinyint,
      CT::kDate,    CT::kTimestamp, CT::kTimestamp, CT::kTimestamp, CT::kTimestamp,
      CT::kDouble,  CT::kDouble,    CT::kVarchar};
  return kColumns;
}

base::Status AppendDeparture(ChunkAppender& a, const model::DepartureRow& row) {
  a.SetString(0, row.feed_id);
  a.SetString(1, row.vehicle_id);
  a.SetString(2, row.feed_route_id);
  a.SetString(3, row.route_id);
  SetDirection(a, 4, row.direction_id);
  a.SetString(5, row.trip_id);
  a.SetString(6, row.shape_id);
  a.SetDateDays(7, base::DaysSinceEpoch(row.service_date));
  a.SetTimestampMicros(8, base::ToUnixMicros(row.departure_time));
  a.SetBool(9, row.inferred);
  a.SetDouble(10, row.distance_m);
  a.SetBool(11, row.tagged_late);
  a.SetBool(12, row.unplanned);
  a.SetString(13, row.day_type);
  a.SetDateDays(14, base::DaysSinceEpoch(row.local_date));
  a.SetInt8(15, row.hour);
  return a.EndRow();
}

base::Status AppendHeadway(ChunkAppender& a, const model::HeadwayRow& row) {
  a.SetString(0, row.route_id);
  SetDirection(a, 1, row.direction_id);
  a.SetDateDays(2, base::DaysSinceEpoch(row.service_date));
  a.SetString(3, row.day_type);
  a.SetTimestampMicros(4, base::ToUnixMicros(row.departure_time));
  a.SetDateDays(5, base::DaysSinceEpoch(row.local_date));
  a.SetInt8(6, row.hour);
  a.SetString(7, row.vehicle_id);
  a.SetBool(8, row.inferred);
  SetOptionalDouble(a, 9, row.headway_s);
  SetOptionalDouble(a, 10, row.planned_headway_s);
  row.exclusion.empty() ? a.SetNull(11) : a.SetString(11, row.exclusion);
  return a.EndRow();
}

base::Status AppendAlert(ChunkAppender& a, const model::AlertRow& row) {
  const auto time = [&a](std::size_t column, std::optional<base::Timestamp> t) {
    t ? a.SetTimestampMicros(column, base::ToUnixMicros(*t)) : a.SetNull(column);
  };
  a.SetString(0, row.alert_id);
  a.SetString(1, row.kind);
  a.SetString(2, row.feed_id);
  a.SetString(3, row.route_id);
  SetDirection(a, 4, row.direction_id);
  row.service_date ? a.SetDateDays(5, base::DaysSinceEpoch(*row.service_date)) : a.SetNull(5);
  time(6, row.start_time);
  time(7, row.end_time);
  time(8, row.raised_at);
  time(9, row.closed_at);
  SetOptionalDouble(a, 10, row.planned_headway_s);
  SetOptionalDouble(a, 11, row.actual_headway_s);
  a.SetString(12, row.vehicles);
  return a.EndRow();
}

}  // namespace frota::sink
