#include "frota/sim/day_poller.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numbers>
#include <optional>

#include "frota/model/rejection.h"
#include "frota/sim/feed_encoder.h"
#include "frota/sim/random.h"

namespace frota::sim {

namespace {

constexpr double kListedAfterOffS = 120;  // the server lists a bus this long after pull-in
constexpr double kMaxLatencyS = 1800;

// When fix `j` of bus `v` reaches the server (seconds after service_day_start): after
// its delivery delay, or when a stall it was taken in ends.
double FixArrival(const SimVehicle& vehicle, std::int64_t v, std::int64_t j,
                  const FaultConfig& faults, std::uint64_t seed) {
  const auto fix = static_cast<double>(vehicle.first_fix + j * kFixPeriodS);
  Rng rng =
      Rng::For(seed, "fix", (static_cast<std::uint64_t>(v) << 32) | static_cast<std::uint64_t>(j));
  const double delay =
      faults.delivery_floor_s + rng.LogNormal(faults.delivery_median_s, faults.delivery_sigma);
  for (const auto& [from, until] : vehicle.stalls) {
    if (fix >= from && fix < until) {
      return until + delay;
    }
    if (from > fix) {
      break;
    }
  }
  return fix + delay;
}

// The newest fix of the bus on the server at `now`: its index, or -1 before the first.
std::int64_t NewestArrivedFix(const SimVehicle& vehicle, std::int64_t v, double now,
                              const FaultConfig& faults, std::uint64_t seed) {
  const double last_fix_time = std::min(now, vehicle.t_off);
  if (last_fix_time < static_cast<double>(vehicle.first_fix)) {
    return -1;
  }
  const auto newest = static_cast<std::int64_t>(std::floor(
      (last_fix_time - static_cast<double>(vehicle.first_fix)) / static_cast<double>(kFixPeriodS)));
  for (std::int64_t j = newest; j >= 0 && j > newest - 400; --j) {
    if (FixArrival(vehicle, v, j, faults, seed) <= now) {
      return j;
    }
  }
  return -1;
}

// The rule-1 reason the decoder will give a record, in the decoder's order.
std::optional<model::RejectReason> DecoderReason(const SimRecord& record, bool header_has_time) {
  using model::RejectReason;
  if (!record.has_vehicle_id) {
    return RejectReason::kMissingVehicleId;
  }
  if (!record.has_position) {
    return RejectReason::kMissingCoordinates;
  }
  const double lat = record.lat;
  const double lon = record.lon;
  if (!(lat >= -90.0 && lat <= 90.0)) {
    return RejectReason::kLatitudeOutOfRange;
  }
  if (!(lon >= -180.0 && lon <= 180.0)) {
    return RejectReason::kLongitudeOutOfRange;
  }
  if (lat == 0.0 && lon == 0.0) {
    return RejectReason::kNullIsland;
  }
  if (!record.has_timestamp && !header_has_time) {
    return RejectReason::kMissingTimestamp;
  }
  if (record.has_timestamp && record.timestamp_in_ms) {
    return RejectReason::kTimestampInMilliseconds;
  }
  return std::nullopt;
}

// A point outside the area: outwards from its centre until outside, then a bit further.
std::optional<LatLon> PointOutside(const geo::Area& area, Rng& rng) {
  const auto& box = area.bounding_box();
  const LatLon centre{(box.min_lat + box.max_lat) / 2, (box.min_lon + box.max_lon) / 2};
  const LocalPlane plane(centre);
  const double theta = rng.Uniform(0, 2 * std::numbers::pi);
  const double beyond = rng.Uniform(500, 5000);
  for (double r = 1000; r < 500'000; r += 1000) {
    const LatLon edge = plane.ToLatLon(r * std::cos(theta), r * std::sin(theta));
    if (area.Contains(edge.lat, edge.lon)) {
      continue;
    }
    const LatLon p = plane.ToLatLon((r + beyond) * std::cos(theta), (r + beyond) * std::sin(theta));
    const auto lat = static_cast<float>(p.lat);
    const auto lon = static_cast<float>(p.lon);
    if (!area.Contains(lat, lon)) {
      return p;
    }
  }
  return std::nullopt;
}

// A bus standing at a terminal: its reported position wanders along a circle through
// the true one, of a diameter drawn per stand between the drift limits, once round every
// 60-120 minutes (urban canyons and multipath at bus stations), metres east and north. So
// slow that a long stand still holds §4 stops of 5 minutes and more (under 40 m moved in
// any 5 minutes), each ended when the drift has taken the bus 50 m from its anchor.
std::pair<double, double> TerminalDrift(const VehicleSample& sample, std::int32_t v, double t,
                                        const FaultConfig& faults, std::uint64_t seed) {
  if (!sample.terminal_stand || faults.terminal_drift_max_m <= 0) {
    return {0, 0};
  }
  const auto stand = static_cast<std::uint64_t>(std::llround(sample.stand_start));
  Rng rng = Rng::For(seed, "terminal_drift", (static_cast<std::uint64_t>(v) << 32) ^ stand);
  const double radius = rng.Uniform(faults.terminal_drift_min_m, faults.terminal_drift_max_m) / 2;
  const double period = rng.Uniform(3600, 7200);
  const double phase = rng.Uniform(0, 2 * std::numbers::pi);
  const double angle = phase + 2 * std::numbers::pi * (t - sample.stand_start) / period;
  return {radius * (std::cos(angle) - std::cos(phase)),
          radius * (std::sin(angle) - std::sin(phase))};
}

struct VehicleFeed {
  bool in_previous_poll = false;
  SimRecord last;              // the entity of the previous response
  std::int64_t last_fix = -1;  // the fix the server last showed
  SimRecord last_fix_record;   // and how it shows it (data faults included)
};

struct StoredResponse {
  std::vector<SimRecord> records;
  std::optional<std::int64_t> header_time_s;
  std::int64_t server_ms = 0;
  base::Timestamp ingest;
  std::vector<RecordFacts> facts;
  std::vector<std::int32_t> vehicles;  // -1 for none
};

// The polls of one day, in order; each poll's random draws come from its own stream.
class DayPoller {
 public:
  DayPoller(const PollPlan& day, WriterPool& writers, ExpectedOutcomes& expected,
            SimulateSummary& summary);

  base::Result<PollCounts> Run();

 private:
  base::Status Poll(std::int64_t k);
  void Entity(std::int32_t v, Rng& rng, double poll_t, double ingest_t, bool headerless);
  void DataFault(SimRecord& record, const LatLon& measured, double fault_a, double fault_b,
                 Rng& fault_rng) const;
  base::Status Respond(std::int64_t k, std::int64_t ingest_us, double request_ms, bool headerless,
                       std::int64_t header_s);
  void Offer(const std::vector<RecordFacts>& facts);
  [[nodiscard]] bool InOutage(double t) const;
  [[nodiscard]] bool RouteSilent(std::int32_t route, double t) const;
  void Progress(const std::string& line) const;

  const PollPlan& day_;
  const SimulateOptions& options_;
  const FaultConfig& faults_;
  const DayPlan& plan_;
  const Fleet& fleet_;
  const geo::Area& area_;
  WriterPool& writers_;
  ExpectedOutcomes& expected_;
  SimulateSummary& summary_;
  const std::int64_t polls_;

  std::vector<std::vector<std::pair<double, double>>> silent_windows_;
  std::map<std::int64_t, std::int64_t> late_at_;  // poll -> poll whose response it repeats
  std::map<std::int64_t, StoredResponse> kept_;   // responses a late copy will repeat
  std::vector<std::size_t> by_start_;
  std::vector<std::int32_t> active_;  // indexes into fleet.vehicles, kept sorted
  std::size_t next_start_ = 0;
  std::vector<VehicleFeed> feeds_;
  PollCounts counts_;
  std::int64_t offset_ = 0;
  std::vector<SimRecord> records_;
  std::vector<std::uint8_t> route_repeats_;
  std::vector<std::uint8_t> route_active_;
};

DayPoller::DayPoller(const PollPlan& day, WriterPool& writers, ExpectedOutcomes& expected,
                     SimulateSummary& summary)
    : day_(day),
      options_(*day.options),
      faults_(day.options->faults),
      plan_(*day.plan),
      fleet_(*day.fleet),
      area_(*day.area),
      writers_(writers),
      expected_(expected),
      summary_(summary),
      polls_(day.last_poll - day.first_poll + 1) {
  silent_windows_.resize(fleet_.route_ids.size());
  for (const LineSilence& silence : day_.silences) {
    silent_windows_[static_cast<std::size_t>(silence.route)].emplace_back(silence.start,
                                                                          silence.end);
  }
  // Late responses: spread over the day, each a copy of the response `age` polls before.
  const std::int64_t age = std::max<std::int32_t>(faults_.late_response_age_polls, 30);
  if (faults_.late_responses > 0 && polls_ > age + 200) {
    const std::int64_t span = polls_ - age - 200;
    for (std::int32_t i = 0; i < faults_.late_responses; ++i) {
      const std::int64_t k =
          day_.first_poll + age + 100 + span * (2 * i + 1) / (2 * faults_.late_responses);
      late_at_[k] = k - age;
    }
  }
  by_start_.resize(fleet_.vehicles.size());
  for (std::size_t i = 0; i < by_start_.size(); ++i) {
    by_start_[i] = i;
  }
  std::stable_sort(by_start_.begin(), by_start_.end(), [&](std::size_t a, std::size_t b) {
    return fleet_.vehicles[a].t_on < fleet_.vehicles[b].t_on;
  });
  feeds_.resize(fleet_.vehicles.size());
  counts_.latency_histogram.assign(static_cast<std::size_t>(kMaxLatencyS) + 2, 0);
  route_repeats_.resize(fleet_.route_ids.size());
  route_active_.resize(fleet_.route_ids.size());
}

void DayPoller::Progress(const std::string& line) const {
  if (options_.progress) {
    options_.progress(line);
  }
}

bool DayPoller::InOutage(double t) const {
  return std::any_of(day_.outages.begin(), day_.outages.end(),
                     [t](const auto& o) { return t >= o.first && t < o.second; });
}

bool DayPoller::RouteSilent(std::int32_t route, double t) const {
  const auto& list = silent_windows_[static_cast<std::size_t>(route)];
  return std::any_of(list.begin(), list.end(),
                     [t](const auto& o) { return t >= o.first && t < o.second; });
}

void DayPoller::Offer(const std::vector<RecordFacts>& facts) {
  for (const auto& f : facts) {
    expected_.Offer(f);
  }
  expected_.EndOfResponse();
}

base::Result<PollCounts> DayPoller::Run() {
  Progress(fmt::format("polling polls={} vehicles={} peak={}", polls_, fleet_.vehicles.size(),
                       fleet_.peak_vehicles));
  for (std::int64_t k = day_.first_poll; k <= day_.last_poll; ++k) {
    FROTA_RETURN_IF_ERROR(Poll(k));
  }
  expected_.Finish();
  FROTA_RETURN_IF_ERROR(writers_.Finish());
  return std::move(counts_);
}

base::Status DayPoller::Poll(std::int64_t k) {
  Rng rng = Rng::For(options_.seed, "poll", static_cast<std::uint64_t>(k - day_.first_poll));
  const double poll_t = static_cast<double>(k) * kPollS;
  const double request_ms = std::floor(rng.Uniform(80, 900));
  const std::int64_t ingest_us = day_.day_start_us + static_cast<std::int64_t>(poll_t * 1e6) +
                                 static_cast<std::int64_t>(request_ms) * 1000;
  const double ingest_t = static_cast<double>(ingest_us - day_.day_start_us) / 1e6;
  const bool headerless = rng.Bernoulli(faults_.headerless_response);
  const std::int64_t header_s = static_cast<std::int64_t>(
      std::floor(static_cast<double>(ingest_us) / 1e6 - rng.Uniform(0.5, 3)));
  for (auto& flag : route_repeats_) {
    flag = rng.Bernoulli(faults_.repeat) ? 1 : 0;
  }
  std::fill(route_active_.begin(), route_active_.end(), 0);

  // Buses come and go.
  while (next_start_ < by_start_.size() && fleet_.vehicles[by_start_[next_start_]].t_on <= poll_t) {
    const auto v = static_cast<std::int32_t>(by_start_[next_start_++]);
    active_.insert(std::lower_bound(active_.begin(), active_.end(), v), v);
  }
  std::erase_if(active_, [&](std::int32_t v) {
    return poll_t > fleet_.vehicles[static_cast<std::size_t>(v)].t_off + kListedAfterOffS + kPollS;
  });

  records_.clear();
  if (InOutage(poll_t)) {
    // The poll fails: nothing is archived, and the next response repeats nothing.
    for (const std::int32_t v : active_) {
      feeds_[static_cast<std::size_t>(v)].in_previous_poll = false;
    }
    return base::Status::Ok();
  }
  for (const std::int32_t v : active_) {
    Entity(v, rng, poll_t, ingest_t, headerless);
  }
  for (const SimRecord& record : records_) {
    counts_.records_over_300 +=
        static_cast<double>(ingest_us) / 1e6 - static_cast<double>(record.fix_s) > 300 ? 1 : 0;
  }
  for (std::size_t r = 0; r < route_active_.size(); ++r) {
    if (route_active_[r] != 0) {
      ++counts_.line_polls;
      counts_.repeated_line_polls += route_repeats_[r];
    }
  }
  for (const std::int32_t v : active_) {
    feeds_[static_cast<std::size_t>(v)].in_previous_poll = false;
  }
  for (const SimRecord& record : records_) {
    VehicleFeed& state = feeds_[static_cast<std::size_t>(record.vehicle)];
    state.in_previous_poll = true;
    state.last = record;
    state.last.fault.reset();
  }
  FROTA_RETURN_IF_ERROR(Respond(k, ingest_us, request_ms, headerless, header_s));
  if ((k - day_.first_poll) % 960 == 0) {
    Progress(fmt::format("poll {}/{} records={}", k - day_.first_poll, polls_, summary_.records));
  }
  return base::Status::Ok();
}

// What active bus `v` contributes to the response: nothing, a repeat of its previous
// entity, the fix it showed before, or a fresh fix (with a data fault, perhaps).
void DayPoller::Entity(std::int32_t v, Rng& rng, double poll_t, double ingest_t, bool headerless) {
  const SimVehicle& vehicle = fleet_.vehicles[static_cast<std::size_t>(v)];
  VehicleFeed& state = feeds_[static_cast<std::size_t>(v)];
  route_active_[static_cast<std::size_t>(vehicle.route)] = 1;
  // Draws happen in a fixed order for every active bus, whatever it reports.
  const double fault_u = rng.Uniform();
  const bool drop_timestamp = rng.Bernoulli(faults_.missing_timestamp);
  const double fault_a = rng.Uniform();
  const double fault_b = rng.Uniform();
  Rng fault_rng(rng.Next());
  if (RouteSilent(vehicle.route, poll_t)) {
    return;  // line_silent: the server leaves the line's buses out
  }

  // The line's entities repeat the previous response.
  if (route_repeats_[static_cast<std::size_t>(vehicle.route)] != 0 && state.in_previous_poll &&
      state.last.has_timestamp) {
    SimRecord copy = state.last;
    copy.fault = Fault::kRepeat;
    records_.push_back(copy);
    return;
  }
  const std::int64_t fix = NewestArrivedFix(vehicle, v, ingest_t, faults_, options_.seed);
  if (fix < 0 || ingest_t > vehicle.t_off + kListedAfterOffS) {
    return;
  }
  const std::int64_t fix_s = vehicle.first_fix + fix * kFixPeriodS;
  const double fix_age = ingest_t - static_cast<double>(fix_s);
  SimRecord record;
  if (fix == state.last_fix) {
    // No newer fix has arrived: the server shows the same one again.
    record = state.last_fix_record;
    record.fault.reset();
  } else {
    ++counts_.fresh_records;
    ++counts_
          .latency_histogram[static_cast<std::size_t>(std::clamp(fix_age, 0.0, kMaxLatencyS + 1))];
    const auto t = static_cast<double>(fix_s);
    const VehicleSample sample = SampleVehicle(vehicle, plan_, t);
    const auto [east, north] = GpsError(vehicle, t, faults_.gps_noise_m);
    const auto [drift_east, drift_north] = TerminalDrift(sample, v, t, faults_, options_.seed);
    const LatLon measured =
        LocalPlane(sample.position).ToLatLon(east + drift_east, north + drift_north);
    record.vehicle = v;
    record.timestamp_s = day_.day_start_us / 1'000'000 + fix_s;
    record.fix_s = record.timestamp_s;
    record.lat = static_cast<float>(measured.lat);
    record.lon = static_cast<float>(measured.lon);
    record.speed_mps = static_cast<float>(sample.speed_mps);
    record.bearing_deg = static_cast<float>(sample.bearing_deg);
    record.slot = sample.slot;

    // A data fault of the fix: it stays with the fix while the server shows it.
    double cumulative = 0;
    for (const Fault candidate : kDrawnRecordFaults) {
      cumulative += faults_.RecordRate(candidate);
      if (fault_u < cumulative) {
        record.fault = candidate;
        break;
      }
    }
    if (record.fault) {
      DataFault(record, measured, fault_a, fault_b, fault_rng);
    }
    state.last_fix = fix;
    state.last_fix_record = record;
  }
  // A response without header time loses some entities' timestamps (a rendering
  // glitch of that response, not of the fix).
  if (!record.fault && headerless) {
    ++counts_.headerless_fresh;
    if (drop_timestamp) {
      record.has_timestamp = false;
      record.fault = Fault::kMissingTimestamp;
    }
  }
  if (!record.fault && fix_age > 300) {
    record.fault = Fault::kDelayedReport;
  }
  records_.push_back(record);
}

// Applies the data fault drawn for a fresh fix; a fault that cannot be placed (no point
// inside or outside the area) is dropped.
void DayPoller::DataFault(SimRecord& record, const LatLon& measured, double fault_a, double fault_b,
                          Rng& fault_rng) const {
  const geo::Area& area = area_;
  switch (*record.fault) {
    case Fault::kFutureClock:
      record.timestamp_s += static_cast<std::int64_t>(40 + fault_a * 560);
      break;
    case Fault::kGpsJump: {
      // 3-12 km away in some direction, but inside the city (outside would be
      // out_of_area, an earlier rule): shorter jumps when the city is small.
      std::optional<LatLon> landed;
      const double drawn = 3000 + fault_b * 9000;
      for (const double distance : {drawn, std::max(3000.0, drawn / 2), 3000.0, 2500.0}) {
        for (int attempt = 0; attempt < 16 && !landed; ++attempt) {
          const double theta = 2 * std::numbers::pi * (fault_a + attempt / 16.0);
          const LatLon p =
              LocalPlane(measured).ToLatLon(distance * std::cos(theta), distance * std::sin(theta));
          if (area.Contains(static_cast<float>(p.lat), static_cast<float>(p.lon))) {
            landed = p;
          }
        }
      }
      if (landed) {
        record.lat = static_cast<float>(landed->lat);
        record.lon = static_cast<float>(landed->lon);
      } else {
        record.fault.reset();
      }
      break;
    }
    case Fault::kOutsideCity:
      if (const auto p = PointOutside(area, fault_rng)) {
        record.lat = static_cast<float>(p->lat);
        record.lon = static_cast<float>(p->lon);
      } else {
        record.fault.reset();
      }
      break;
    case Fault::kMissingVehicleId:
      record.has_vehicle_id = false;
      break;
    case Fault::kMissingCoordinates:
      record.has_position = false;
      break;
    case Fault::kLatitudeOutOfRange:
      record.lat *= 10;
      break;
    case Fault::kLongitudeOutOfRange:
      record.lon *= 10;
      break;
    case Fault::kNullIsland:
      record.lat = 0;
      record.lon = 0;
      break;
    case Fault::kTimestampInMilliseconds:
      record.timestamp_in_ms = true;
      break;
    default:
      break;
  }
}

// The response, its records' facts and the faults they carry; and, at the polls chosen
// for it, a late copy of an old response.
base::Status DayPoller::Respond(std::int64_t k, std::int64_t ingest_us, double request_ms,
                                bool headerless, std::int64_t header_s) {
  const std::optional<std::int64_t> header_time =
      headerless ? std::nullopt : std::optional(header_s);
  StoredResponse response;
  response.header_time_s = header_time;
  response.server_ms = ingest_us / 1000;
  response.ingest = base::FromUnixMicros(ingest_us);
  for (const SimRecord& record : records_) {
    RecordFacts facts;
    facts.decoder_reason = DecoderReason(record, header_time.has_value());
    facts.vehicle = record.has_vehicle_id ? record.vehicle : -1;
    facts.event_us = (record.has_timestamp ? record.timestamp_s : header_s) * 1'000'000;
    facts.ingest_us = ingest_us;
    facts.lat = record.lat;
    facts.lon = record.lon;
    response.facts.push_back(facts);
    response.vehicles.push_back(record.vehicle);
    if (record.fault) {
      counts_.fault_rows.push_back({offset_, *record.fault, record.vehicle});
      ++counts_.injected[static_cast<std::size_t>(*record.fault)];
    }
    ++offset_;
  }
  Offer(response.facts);
  counts_.injected[static_cast<std::size_t>(Fault::kHeaderlessResponse)] += headerless ? 1 : 0;
  summary_.records += static_cast<std::int64_t>(records_.size());
  ++summary_.responses;
  if (std::any_of(late_at_.begin(), late_at_.end(),
                  [&](const auto& entry) { return entry.second == k; })) {
    response.records = records_;
    kept_.emplace(k, response);
  }

  WriteJob job;
  job.envelope.ingest_time = response.ingest;
  job.envelope.http_status = 200;
  job.envelope.headers = {{"content-type", "application/x-protobuf"}};
  job.envelope.duration_ms = request_ms;
  job.records = records_;
  job.header_time_s = header_time;
  job.server_ms = response.server_ms;
  const auto lane = static_cast<std::size_t>(k - day_.first_poll);
  FROTA_RETURN_IF_ERROR(writers_.Submit(lane, std::move(job)));

  // A late response: an old body, named after this one, its envelope set back.
  if (const auto it = late_at_.find(k); it != late_at_.end()) {
    const auto old = kept_.find(it->second);
    if (old != kept_.end()) {
      const StoredResponse& copy = old->second;
      WriteJob late;
      late.envelope.ingest_time = response.ingest + std::chrono::milliseconds(1);
      late.envelope.http_status = 200;
      late.envelope.headers = {{"content-type", "application/x-protobuf"}};
      late.envelope.duration_ms = request_ms;
      late.records = copy.records;
      late.header_time_s = copy.header_time_s;
      late.server_ms = copy.server_ms;
      late.received = copy.ingest;
      FROTA_RETURN_IF_ERROR(writers_.Submit(lane, std::move(late)));
      for (std::size_t i = 0; i < copy.facts.size(); ++i) {
        counts_.fault_rows.push_back(
            {offset_ + static_cast<std::int64_t>(i), Fault::kLateResponse, copy.vehicles[i]});
      }
      offset_ += static_cast<std::int64_t>(copy.facts.size());
      summary_.records += static_cast<std::int64_t>(copy.facts.size());
      ++summary_.responses;
      ++counts_.injected[static_cast<std::size_t>(Fault::kLateResponse)];
      Offer(copy.facts);
      kept_.erase(old);
    }
  }
  return base::Status::Ok();
}

}  // namespace

base::Result<PollCounts> PollDay(const PollPlan& day, WriterPool& writers,
                                 ExpectedOutcomes& expected, SimulateSummary& summary) {
  DayPoller poller(day, writers, expected, summary);
  return poller.Run();
}

}  // namespace frota::sim
