// OpenSky state vectors, every field (the DOM parser: this runs once per poll, for silver).
#include "frota/codec/aircraft_state.h"

#include <simdjson.h>

#include <cmath>

namespace frota::codec {

namespace {

namespace dom = simdjson::dom;

std::optional<std::string> Text(dom::element e, bool trim) {
  std::string_view text;
  if (e.get_string().get(text)) {
    return std::nullopt;
  }
  if (trim) {
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!text.empty() && blank(text.back())) {
      text.remove_suffix(1);
    }
    while (!text.empty() && blank(text.front())) {
      text.remove_prefix(1);
    }
    if (text.empty()) {
      return std::nullopt;
    }
  }
  return std::string(text);
}

std::optional<double> Real(dom::element e) {
  double value = 0;
  if (e.get_double().get(value) || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> Integer(dom::element e) {
  std::int64_t value = 0;
  if (!e.get_int64().get(value)) {
    return value;
  }
  double real = 0;
  if (!e.get_double().get(real) && std::isfinite(real) && real == std::floor(real) &&
      std::fabs(real) < 9e15) {
    return static_cast<std::int64_t>(real);
  }
  return std::nullopt;
}

std::optional<bool> Boolean(dom::element e) {
  bool value = false;
  if (e.get_bool().get(value)) {
    return std::nullopt;
  }
  return value;
}

AircraftState ReadState(dom::element element) {
  AircraftState s;
  s.raw = simdjson::minify(element);
  dom::array array;
  if (element.get_array().get(array)) {
    return s;
  }
  std::vector<dom::element> f(array.begin(), array.end());
  s.fields = f.size();
  const auto at = [&](std::size_t i) -> std::optional<dom::element> {
    if (i < f.size()) {
      return f[i];
    }
    return std::nullopt;
  };
  if (auto e = at(0)) s.icao24 = Text(*e, true);
  if (auto e = at(1)) s.callsign = Text(*e, true);
  if (auto e = at(2)) s.origin_country = Text(*e, false);
  if (auto e = at(3)) s.time_position = Integer(*e);
  if (auto e = at(4)) s.last_contact = Integer(*e);
  if (auto e = at(5)) s.longitude = Real(*e);
  if (auto e = at(6)) s.latitude = Real(*e);
  if (auto e = at(7)) s.barometric_altitude_m = Real(*e);
  if (auto e = at(8)) s.on_ground = Boolean(*e);
  if (auto e = at(9)) s.velocity_mps = Real(*e);
  if (auto e = at(10)) s.true_track_deg = Real(*e);
  if (auto e = at(11)) s.vertical_rate_mps = Real(*e);
  if (auto e = at(12)) {
    dom::array sensors;
    if (!e->get_array().get(sensors)) {
      std::vector<std::int64_t> ids;
      bool ok = true;
      for (const auto id : sensors) {
        const auto v = Integer(id);
        ok = ok && v.has_value();
        if (v) {
          ids.push_back(*v);
        }
      }
      if (ok) {
        s.sensors = std::move(ids);
      }
    }
  }
  if (auto e = at(13)) s.geo_altitude_m = Real(*e);
  if (auto e = at(14)) s.squawk = Text(*e, true);
  if (auto e = at(15)) s.spi = Boolean(*e);
  if (auto e = at(16)) {
    if (const auto v = Integer(*e); v && *v >= INT32_MIN && *v <= INT32_MAX) {
      s.position_source = static_cast<std::int32_t>(*v);
    }
  }
  if (auto e = at(17)) {
    if (const auto v = Integer(*e); v && *v >= INT32_MIN && *v <= INT32_MAX) {
      s.category = static_cast<std::int32_t>(*v);
    }
  }
  return s;
}

}  // namespace

base::Result<std::vector<AircraftState>> DecodeAircraftStates(std::string_view bytes) {
  thread_local dom::parser parser;
  dom::element root;
  if (const auto error = parser.parse(bytes.data(), bytes.size()).get(root)) {
    return base::InvalidInput("not an OpenSky states response: {}", simdjson::error_message(error));
  }
  dom::object object;
  if (root.get_object().get(object)) {
    return base::InvalidInput("not an OpenSky states response: not a JSON object");
  }
  std::vector<AircraftState> out;
  dom::element states;
  if (object["states"].get(states) || states.is_null()) {
    return out;
  }
  dom::array array;
  if (states.get_array().get(array)) {
    return base::InvalidInput("not an OpenSky states response: \"states\" is not an array");
  }
  for (const auto element : array) {
    out.push_back(ReadState(element));
  }
  return out;
}

}  // namespace frota::codec
