#include "frota/sim/truth.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <tuple>

#include "frota/base/file.h"
#include "frota/base/time.h"

namespace frota::sim {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

std::string Iso(std::int64_t us) { return base::FormatIso8601(base::FromUnixMicros(us)); }

std::int64_t ParseUs(const Json& value, std::string_view field) {
  const auto text = value.at(std::string(field)).get<std::string>();
  const auto t = base::ParseIso8601(text);
  if (!t) {
    throw std::runtime_error(fmt::format("{}: not an ISO 8601 time: '{}'", field, text));
  }
  return base::ToUnixMicros(*t);
}

double Round(double value, double unit) { return std::round(value / unit) * unit; }

}  // namespace

std::vector<TruthHeadway> HeadwaysWithoutExclusions(const std::vector<TruthDeparture>& departures) {
  std::map<std::tuple<std::string, std::int32_t, std::string>, std::vector<std::int64_t>> times;
  for (const auto& d : departures) {
    times[{d.route_id, d.direction_id, d.start_date}].push_back(d.time_us);
  }
  std::vector<TruthHeadway> out;
  for (auto& [key, list] : times) {
    std::sort(list.begin(), list.end());
    const auto& date = std::get<2>(key);
    const std::string service_date =
        date.size() == 8 ? date.substr(0, 4) + "-" + date.substr(4, 2) + "-" + date.substr(6, 2)
                         : date;
    for (std::size_t i = 1; i < list.size(); ++i) {
      out.push_back({std::get<0>(key), std::get<1>(key), service_date, list[i],
                     static_cast<double>(list[i] - list[i - 1]) / 1e6, ""});
    }
  }
  return out;
}

fs::path ResolveTruthPath(const fs::path& truth_file, const std::string& path) {
  const fs::path p(path);
  if (p.is_absolute() || path.empty()) {
    return p;
  }
  return truth_file.parent_path() / p;
}

base::Status WriteTruth(const Truth& truth, const fs::path& file) {
  Json j;
  j["format"] = "frota-sim-truth";
  j["version"] = truth.version;
  j["seed"] = truth.seed;
  j["date"] = truth.date;
  j["time_zone"] = truth.time_zone;
  j["feed_id"] = truth.feed_id;
  j["archive"] = truth.archive;
  j["gtfs"] = truth.gtfs;
  j["area"] = truth.area;
  j["fault_records"] = truth.fault_records;
  j["peak_vehicles"] = truth.peak_vehicles;
  j["vehicles"] = truth.vehicles;
  j["routes"] = truth.routes;
  j["planned_trips"] = truth.planned_trips;
  j["run_trips"] = truth.run_trips;
  j["responses"] = truth.responses;
  j["records"] = truth.records;
  j["body_bytes"] = truth.body_bytes;
  j["latency"] = {{"p50_s", Round(truth.latency_p50_s, 0.1)},
                  {"p90_s", Round(truth.latency_p90_s, 0.1)},
                  {"over_300s_share", Round(truth.latency_over_300s_share, 1e-6)}};
  Json expected;
  expected["accepted"] = truth.expected_accepted;
  expected["rejected"] = Json::object();
  for (const auto& [reason, n] : truth.expected_rejected) {
    expected["rejected"][reason] = n;
  }
  j["expected"] = expected;
  Json faults = Json::object();
  for (const auto& fault : truth.faults) {
    Json f;
    f["unit"] = fault.unit;
    f["injected"] = fault.injected;
    f["opportunities"] = fault.opportunities;
    f["configured_rate"] = fault.configured_rate;
    f["records"] = fault.records;
    if (!fault.expected.empty()) {
      f["expected"] = Json::object();
      for (const auto& [outcome, n] : fault.expected) {
        f["expected"][outcome] = n;
      }
    }
    faults[fault.fault] = f;
  }
  j["faults"] = faults;
  Json stops = Json::array();
  for (const auto& s : truth.stops) {
    stops.push_back({{"vehicle_id", s.vehicle_id},
                     {"route_id", s.route_id},
                     {"start", Iso(s.start_us)},
                     {"end", Iso(s.end_us)},
                     {"duration_s", Round((s.end_us - s.start_us) / 1e6, 0.001)},
                     {"lat", Round(s.lat, 1e-7)},
                     {"lon", Round(s.lon, 1e-7)},
                     {"kind", s.kind},
                     {"near_terminal", s.near_terminal}});
  }
  j["stops"] = std::move(stops);
  Json departures = Json::array();
  for (const auto& d : truth.departures) {
    departures.push_back({{"vehicle_id", d.vehicle_id},
                          {"route_id", d.route_id},
                          {"direction_id", d.direction_id},
                          {"trip_id", d.trip_id},
                          {"reported_trip_id", d.reported_trip_id},
                          {"start_date", d.start_date},
                          {"start_time", d.start_time},
                          {"scheduled", Iso(d.scheduled_us)},
                          {"time", Iso(d.time_us)},
                          {"exit_time", Iso(d.exit_time_us)},
                          {"tagged_late", d.tagged_late},
                          {"never_tagged", d.never_tagged}});
  }
  j["departures"] = std::move(departures);
  const auto slots = [](const std::vector<TruthSlot>& list) {
    Json out = Json::array();
    for (const auto& s : list) {
      Json slot = {{"trip_id", s.trip_id},
                   {"start_date", s.start_date},
                   {"start_time", s.start_time},
                   {"route_id", s.route_id}};
      if (!s.vehicle_ids.empty()) {
        slot["vehicle_ids"] = s.vehicle_ids;
      }
      out.push_back(std::move(slot));
    }
    return out;
  };
  j["never_run"] = slots(truth.never_run);
  j["duplicate_slots"] = slots(truth.duplicate_slots);
  Json reassignments = Json::array();
  for (const auto& r : truth.reassignments) {
    reassignments.push_back({{"vehicle_id", r.vehicle_id},
                             {"trip_id", r.trip_id},
                             {"start_date", r.start_date},
                             {"start", Iso(r.start_us)},
                             {"end", Iso(r.end_us)}});
  }
  j["reassignments"] = std::move(reassignments);
  Json cells = Json::array();
  for (const auto& c : truth.speed_cells) {
    cells.push_back({{"local_date", c.local_date},
                     {"hour", c.hour},
                     {"cell_x", c.cell_x},
                     {"cell_y", c.cell_y},
                     {"segments", c.segments},
                     {"distance_m", Round(c.distance_m, 0.001)},
                     {"duration_s", Round(c.duration_s, 0.001)},
                     {"mean_speed_kmh", Round(c.mean_speed_kmh, 0.001)}});
  }
  j["speed_cells"] = std::move(cells);
  Json outages = Json::array();
  for (const auto& o : truth.outages) {
    outages.push_back({{"start", Iso(o.start_us)}, {"end", Iso(o.end_us)}});
  }
  j["outages"] = std::move(outages);
  Json silences = Json::array();
  for (const auto& o : truth.line_silences) {
    silences.push_back(
        {{"route_id", o.route_id}, {"start", Iso(o.start_us)}, {"end", Iso(o.end_us)}});
  }
  j["line_silences"] = std::move(silences);
  Json stale = Json::array();
  for (const auto& r : truth.stale_plan) {
    stale.push_back({{"route_id", r.route_id},
                     {"shifted_trips", r.shifted_trips},
                     {"max_shift_s", Round(r.max_shift_s, 0.001)}});
  }
  j["stale_plan"] = std::move(stale);
  Json headways = Json::array();
  for (const auto& h : truth.headways) {
    headways.push_back({{"route_id", h.route_id},
                        {"direction_id", h.direction_id >= 0 ? Json(h.direction_id) : Json()},
                        {"service_date", h.service_date},
                        {"time", Iso(h.time_us)},
                        {"headway_s", Round(h.headway_s, 0.001)},
                        {"exclusion", h.exclusion.empty() ? Json() : Json(h.exclusion)}});
  }
  j["headways"] = std::move(headways);
  Json alerts = Json::array();
  for (const auto& a : truth.alerts) {
    alerts.push_back({{"kind", a.kind},
                      {"route_id", a.route_id},
                      {"direction_id", a.direction_id >= 0 ? Json(a.direction_id) : Json()},
                      {"start", Iso(a.start_us)},
                      {"end", Iso(a.end_us)},
                      {"planned_headway_s", Round(a.planned_headway_s, 0.001)}});
  }
  j["alerts"] = std::move(alerts);
  return base::WriteFileAtomic(file, j.dump(1) + "\n");
}

base::Result<Truth> ReadTruth(const fs::path& file) {
  FROTA_ASSIGN_OR_RETURN(const auto text, base::ReadFile(file));
  Truth truth;
  try {
    const Json j = Json::parse(text);
    if (j.value("format", std::string()) != "frota-sim-truth") {
      return base::InvalidInput(
          "{}: not a truth file of frota simulate (no \"format\": "
          "\"frota-sim-truth\")",
          file.string());
    }
    truth.version = j.at("version").get<std::int32_t>();
    if (truth.version != 1 && truth.version != 2) {
      return base::InvalidInput("{}: truth format version {}, this binary reads 1 and 2",
                                file.string(), truth.version);
    }
    truth.seed = j.at("seed").get<std::uint64_t>();
    truth.date = j.at("date").get<std::string>();
    truth.time_zone = j.at("time_zone").get<std::string>();
    truth.feed_id = j.at("feed_id").get<std::string>();
    truth.archive = j.value("archive", std::string());
    truth.gtfs = j.at("gtfs").get<std::string>();
    truth.area = j.value("area", std::string());
    truth.fault_records = j.value("fault_records", std::string());
    truth.peak_vehicles = j.value("peak_vehicles", std::int64_t{0});
    truth.vehicles = j.value("vehicles", std::int64_t{0});
    truth.routes = j.value("routes", std::int64_t{0});
    truth.planned_trips = j.value("planned_trips", std::int64_t{0});
    truth.run_trips = j.value("run_trips", std::int64_t{0});
    truth.responses = j.value("responses", std::int64_t{0});
    truth.records = j.value("records", std::int64_t{0});
    truth.body_bytes = j.value("body_bytes", std::int64_t{0});
    const auto& expected = j.at("expected");
    truth.expected_accepted = expected.at("accepted").get<std::int64_t>();
    for (const auto& [reason, n] : expected.at("rejected").items()) {
      truth.expected_rejected[reason] = n.get<std::int64_t>();
    }
    for (const auto& [name, f] : j.at("faults").items()) {
      TruthFault fault;
      fault.fault = name;
      fault.unit = f.value("unit", std::string());
      fault.injected = f.at("injected").get<std::int64_t>();
      fault.opportunities = f.value("opportunities", std::int64_t{0});
      fault.configured_rate = f.value("configured_rate", 0.0);
      fault.records = f.value("records", std::int64_t{0});
      if (f.contains("expected")) {
        for (const auto& [outcome, n] : f.at("expected").items()) {
          fault.expected[outcome] = n.get<std::int64_t>();
        }
      }
      truth.faults.push_back(std::move(fault));
    }
    for (const auto& s : j.at("stops")) {
      truth.stops.push_back({s.at("vehicle_id").get<std::string>(),
                             s.value("route_id", std::string()), ParseUs(s, "start"),
                             ParseUs(s, "end"), s.at("lat").get<double>(),
                             s.at("lon").get<double>(), s.at("kind").get<std::string>(),
                             s.value("near_terminal", false)});
    }
    for (const auto& d : j.at("departures")) {
      TruthDeparture departure;
      departure.vehicle_id = d.at("vehicle_id").get<std::string>();
      departure.route_id = d.at("route_id").get<std::string>();
      departure.direction_id = d.value("direction_id", -1);
      departure.trip_id = d.at("trip_id").get<std::string>();
      departure.reported_trip_id = d.at("reported_trip_id").get<std::string>();
      departure.start_date = d.at("start_date").get<std::string>();
      departure.start_time = d.value("start_time", std::string());
      departure.scheduled_us = ParseUs(d, "scheduled");
      departure.time_us = ParseUs(d, "time");
      departure.exit_time_us =
          d.contains("exit_time") ? ParseUs(d, "exit_time") : departure.time_us;
      departure.tagged_late = d.value("tagged_late", d.value("first_seen_far", false));
      departure.never_tagged = d.value("never_tagged", false);
      truth.departures.push_back(std::move(departure));
    }
    const auto read_slots = [](const Json& list, std::vector<TruthSlot>& out) {
      for (const auto& s : list) {
        TruthSlot slot;
        slot.trip_id = s.at("trip_id").get<std::string>();
        slot.start_date = s.at("start_date").get<std::string>();
        slot.start_time = s.value("start_time", std::string());
        slot.route_id = s.value("route_id", std::string());
        if (s.contains("vehicle_ids")) {
          slot.vehicle_ids = s.at("vehicle_ids").get<std::vector<std::string>>();
        }
        out.push_back(std::move(slot));
      }
    };
    read_slots(j.at("never_run"), truth.never_run);
    read_slots(j.at("duplicate_slots"), truth.duplicate_slots);
    for (const auto& r : j.at("reassignments")) {
      truth.reassignments.push_back(
          {r.at("vehicle_id").get<std::string>(), r.at("trip_id").get<std::string>(),
           r.at("start_date").get<std::string>(), ParseUs(r, "start"), ParseUs(r, "end")});
    }
    for (const auto& c : j.at("speed_cells")) {
      truth.speed_cells.push_back(
          {c.at("local_date").get<std::string>(), c.at("hour").get<std::int32_t>(),
           c.at("cell_x").get<std::int32_t>(), c.at("cell_y").get<std::int32_t>(),
           c.at("segments").get<std::int64_t>(), c.at("distance_m").get<double>(),
           c.at("duration_s").get<double>(), c.at("mean_speed_kmh").get<double>()});
    }
    if (truth.version >= 2) {
      for (const auto& o : j.at("outages")) {
        truth.outages.push_back({"", ParseUs(o, "start"), ParseUs(o, "end")});
      }
      for (const auto& o : j.at("line_silences")) {
        truth.line_silences.push_back(
            {o.at("route_id").get<std::string>(), ParseUs(o, "start"), ParseUs(o, "end")});
      }
      for (const auto& r : j.value("stale_plan", Json::array())) {
        truth.stale_plan.push_back({r.at("route_id").get<std::string>(),
                                    r.at("shifted_trips").get<std::int64_t>(),
                                    r.at("max_shift_s").get<double>()});
      }
      for (const auto& h : j.at("headways")) {
        TruthHeadway headway;
        headway.route_id = h.at("route_id").get<std::string>();
        headway.direction_id =
            h.at("direction_id").is_null() ? -1 : h.at("direction_id").get<std::int32_t>();
        headway.service_date = h.at("service_date").get<std::string>();
        headway.time_us = ParseUs(h, "time");
        headway.headway_s = h.at("headway_s").get<double>();
        headway.exclusion = h.at("exclusion").is_null() ? "" : h.at("exclusion").get<std::string>();
        truth.headways.push_back(std::move(headway));
      }
      for (const auto& a : j.value("alerts", Json::array())) {
        TruthAlert alert;
        alert.kind = a.at("kind").get<std::string>();
        alert.route_id = a.at("route_id").get<std::string>();
        alert.direction_id =
            a.at("direction_id").is_null() ? -1 : a.at("direction_id").get<std::int32_t>();
        alert.start_us = ParseUs(a, "start");
        alert.end_us = ParseUs(a, "end");
        alert.planned_headway_s = a.at("planned_headway_s").get<double>();
        truth.alerts.push_back(std::move(alert));
      }
    } else {
      // Version 1 knew no outages nor plan: every consecutive pair is a headway.
      truth.headways = HeadwaysWithoutExclusions(truth.departures);
    }
  } catch (const std::exception& e) {
    return base::InvalidInput("{}: {}", file.string(), e.what());
  }
  return truth;
}

}  // namespace frota::sim
