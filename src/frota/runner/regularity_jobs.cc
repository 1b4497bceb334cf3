#include "frota/runner/regularity_jobs.h"

#include "frota/base/bytes.h"
#include "frota/gtfs/holidays.h"
#include "frota/runner/replay_runner.h"

namespace frota::runner {

namespace {
constexpr std::string_view kRegularityMarker = "frota-regularity-1";
}  // namespace

std::unique_ptr<regularity::Stream> NewRegularityStream(const ReplayContext& context) {
  return std::make_unique<regularity::Stream>(
      *context.feed, *context.routes, *context.job.time_zone,
      gtfs::HolidayCalendar::ForTimeZone(context.job.time_zone->name()));
}

RegularityJobs::RegularityJobs(const ReplayContext& context)
    : stream_(NewRegularityStream(context)) {}

std::unique_ptr<RegularityJobs> RegularityJobs::ForContext(const ReplayContext& context) {
  if (!context.feed || !context.routes) {
    return nullptr;
  }
  return std::make_unique<RegularityJobs>(context);
}

base::Result<RegularityJobs::States> RegularityJobs::Unwrap(std::string_view runner_state) {
  States out;
  if (!runner_state.starts_with(kRegularityMarker)) {
    out.pipeline = runner_state;
    return out;
  }
  base::ByteReader r(runner_state.substr(kRegularityMarker.size()));
  FROTA_ASSIGN_OR_RETURN(const auto pipeline, r.String());
  FROTA_ASSIGN_OR_RETURN(const auto stream, r.String());
  out.pipeline = pipeline;
  out.stream = stream;
  out.wrapped = true;
  return out;
}

base::Result<std::string> RegularityJobs::Restore(std::string_view runner_state, bool resumed) {
  FROTA_ASSIGN_OR_RETURN(auto states, Unwrap(runner_state));
  if (!states.wrapped && resumed) {
    return base::InvalidInput(
        "the database was written without the regularity jobs (no GTFS, or an older frota): "
        "replay it from the start into a new database");
  }
  FROTA_RETURN_IF_ERROR(stream_->Restore(states.stream));
  return std::move(states.pipeline);
}

std::string RegularityJobs::Wrap(const std::string& pipeline_state) const {
  return WrapStates(pipeline_state, stream_->Snapshot());
}

std::string RegularityJobs::WrapStates(std::string_view pipeline_state,
                                       std::string_view stream_state) {
  base::ByteWriter w;
  w.Raw(kRegularityMarker);
  w.String(pipeline_state);
  w.String(stream_state);
  return w.Take();
}

}  // namespace frota::runner
