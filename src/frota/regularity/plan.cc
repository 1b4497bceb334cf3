#include "frota/regularity/plan.h"

namespace frota::regularity {

Placed Place(const Departure& d, PlanCache& plans, const gtfs::HolidayCalendar& holidays) {
  Placed p;
  p.departure = &d;
  p.service_date = d.service_date;
  std::vector<base::LocalDate> dates{d.service_date};
  if (d.trip_start_date.empty()) {
    dates.push_back(base::LocalDateFromDays(base::DaysSinceEpoch(d.service_date) - 1));
  }
  for (const auto date : dates) {
    if (const LinePlan* plan = plans.Line(d.route_id, d.direction_id, date)) {
      if (const auto period = plan->PeriodOf(SecondsInto(*plan, d.departure_time))) {
        p.service_date = date;
        p.plan = plan;
        p.period = period;
        break;
      }
    }
  }
  if (!p.period) {
    p.plan = plans.Line(d.route_id, d.direction_id, p.service_date);
  }
  p.day_type = gtfs::DayTypeOf(p.service_date, holidays);
  return p;
}

MeasuredHeadway MeasureHeadway(const Placed* previous, const Placed& p, const Coverage& coverage,
                               bool hidden_between) {
  MeasuredHeadway m;
  const Departure& d = *p.departure;
  if (previous != nullptr) {
    m.headway_s =
        std::chrono::duration<double>(d.departure_time - previous->departure->departure_time)
            .count();
    if (previous->period != p.period) {
      m.exclusion = "service_break";
    } else if (hidden_between ||
               coverage.GapBetween(previous->departure->departure_time, d.departure_time)) {
      m.exclusion = "coverage_gap";
    }
  }
  m.planned_headway_s =
      p.plan->HeadwayIn(p.plan->periods[*p.period], SecondsInto(*p.plan, d.departure_time));
  return m;
}

}  // namespace frota::regularity
