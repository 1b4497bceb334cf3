// Rio de Janeiro's live GPS APIs: gps/sppo (buses) and gps/brt, as simdjson On-Demand readers.
#include <algorithm>
#include <cmath>

#include "frota/codec/decode_internal.h"
#include "frota/codec/json_internal.h"

namespace frota::codec::internal {

namespace {

using model::RejectReason;
namespace ondemand = simdjson::ondemand;

base::Error JsonError(std::string_view what, simdjson::error_code error) {
  return base::InvalidInput("not a {}: invalid JSON ({})", what, simdjson::error_message(error));
}

std::string_view TrimmedText(const Field& field) {
  return field.present && !field.container ? Trim(field.raw) : std::string_view();
}

/// Rejects an element that is not an object at all.
void RejectNonObject(RecordSink& sink, ondemand::json_type type,
                     std::optional<base::Timestamp> ingest_time) {
  DetailWriter detail;
  detail.AddNote(fmt::format("element is {}, not an object", JsonTypeName(type)));
  sink.AddRejection(RejectReason::kMalformedRecord, {}, std::nullopt, ingest_time, detail.Take());
}

// --- gps/sppo ------------------------------------------------------------------------

// Every value is a string; decimals use commas; times are epoch milliseconds.
struct SppoRecord {
  Field ordem;
  Field latitude;
  Field longitude;
  Field datahora;
  Field velocidade;
  Field linha;
  Field datahoraservidor;

  Field* RawSlot(const char* raw) {
    switch (raw[0]) {
      case 'o':
        return RawKeyIs(raw, "ordem") ? &ordem : nullptr;
      case 'l':
        return RawKeyIs(raw, "latitude")    ? &latitude
               : RawKeyIs(raw, "longitude") ? &longitude
               : RawKeyIs(raw, "linha")     ? &linha
                                            : nullptr;
      case 'd':
        return RawKeyIs(raw, "datahora")           ? &datahora
               : RawKeyIs(raw, "datahoraservidor") ? &datahoraservidor
                                                   : nullptr;
      case 'v':
        return RawKeyIs(raw, "velocidade") ? &velocidade : nullptr;
      default:
        return nullptr;
    }
  }
  Field* Slot(std::string_view key) {
    switch (key.size()) {
      case 5:
        return KeyIs(key, "ordem") ? &ordem : KeyIs(key, "linha") ? &linha : nullptr;
      case 8:
        return KeyIs(key, "latitude") ? &latitude : KeyIs(key, "datahora") ? &datahora : nullptr;
      case 9:
        return KeyIs(key, "longitude") ? &longitude : nullptr;
      case 10:
        return KeyIs(key, "velocidade") ? &velocidade : nullptr;
      case 16:
        return KeyIs(key, "datahoraservidor") ? &datahoraservidor : nullptr;
      default:
        return nullptr;
    }
  }
};

void EmitSppo(const SppoRecord& record, const DecodeOptions& options, RecordSink& sink) {
  const std::string_view vehicle_id = TrimmedText(record.ordem);
  DetailWriter detail;
  std::optional<RejectReason> reason;

  base::Timestamp event_time;
  const auto time_reason = ReadEpoch(record.datahora, EpochUnit::kMillis, event_time);
  std::optional<base::Timestamp> ingest_time = options.ingest_time;
  std::optional<RejectReason> ingest_reason;
  if (!ingest_time) {
    base::Timestamp server_time;
    ingest_reason = ReadEpoch(record.datahoraservidor, EpochUnit::kMillis, server_time);
    if (!ingest_reason) {
      ingest_time = server_time;
    }
  }
  double lat = 0;
  double lon = 0;
  const Number speed = ReadNumber(record.velocidade);

  if (vehicle_id.empty()) {
    reason = RejectReason::kMissingVehicleId;
    detail.Add("ordem", record.ordem);
  } else if ((reason = ReadCoordinates("latitude", record.latitude, "longitude", record.longitude,
                                       lat, lon, detail))) {
  } else if (time_reason) {
    reason = time_reason;
    detail.Add("datahora", record.datahora);
  } else if (ingest_reason) {
    reason = ingest_reason;
    detail.Add("datahoraservidor", record.datahoraservidor);
  } else if (speed.state == NumberState::kInvalid) {
    reason = RejectReason::kMalformedRecord;
    detail.Add("velocidade", record.velocidade);
  }
  if (reason) {
    sink.AddRejection(*reason, vehicle_id,
                      time_reason ? std::nullopt : std::optional<base::Timestamp>(event_time),
                      ingest_time, detail.Take());
    return;
  }
  model::Position& position = sink.AddPosition();
  position.vehicle_id = vehicle_id;
  position.route_id = TrimmedText(record.linha);
  position.lat = lat;
  position.lon = lon;
  position.event_time = event_time;
  position.ingest_time = *ingest_time;
  if (speed.state == NumberState::kOk) {
    position.reported_speed_kmh = static_cast<float>(speed.value);
  }
}

simdjson::error_code DecodeSppoArray(ondemand::document& doc, const DecodeOptions& options,
                                     RecordSink& sink) {
  ondemand::array array;
  if (const auto error = doc.get_array().get(array)) {
    return error;
  }
  for (auto element_result : array) {
    ondemand::value element;
    if (const auto error = element_result.get(element)) {
      return error;
    }
    ondemand::json_type type{};
    if (const auto error = element.type().get(type)) {
      return error;
    }
    if (type != ondemand::json_type::object) {
      RejectNonObject(sink, type, options.ingest_time);
      continue;
    }
    ondemand::object object;
    if (const auto error = element.get_object().get(object)) {
      return error;
    }
    SppoRecord record;
    for (auto field_result : object) {
      ondemand::field field;
      Field* slot = nullptr;
      if (const auto error = std::move(field_result).get(field)) {
        return error;
      }
      if (const auto error = FindSlot(field, record, slot)) {
        return error;
      }
      if (slot != nullptr) {
        if (const auto error = ReadField(field.value(), *slot)) {
          return error;
        }
      }
    }
    EmitSppo(record, options, sink);
  }
  return simdjson::SUCCESS;
}

// --- gps/brt -------------------------------------------------------------------------

// Typed values: numbers for coordinates, times and speed; `direcao` a number or " ".
struct BrtRecord {
  Field codigo;
  Field linha;
  Field latitude;
  Field longitude;
  Field data_hora;
  Field velocidade;
  Field direcao;
  Field sentido;

  Field* RawSlot(const char* raw) {
    switch (raw[0]) {
      case 'c':
        return RawKeyIs(raw, "codigo") ? &codigo : nullptr;
      case 'l':
        return RawKeyIs(raw, "latitude")    ? &latitude
               : RawKeyIs(raw, "longitude") ? &longitude
               : RawKeyIs(raw, "linha")     ? &linha
                                            : nullptr;
      case 'd':
        return RawKeyIs(raw, "dataHora")  ? &data_hora
               : RawKeyIs(raw, "direcao") ? &direcao
                                          : nullptr;
      case 'v':
        return RawKeyIs(raw, "velocidade") ? &velocidade : nullptr;
      case 's':
        return RawKeyIs(raw, "sentido") ? &sentido : nullptr;
      default:
        return nullptr;
    }
  }
  Field* Slot(std::string_view key) {
    switch (key.size()) {
      case 5:
        return KeyIs(key, "linha") ? &linha : nullptr;
      case 6:
        return KeyIs(key, "codigo") ? &codigo : nullptr;
      case 7:
        return KeyIs(key, "direcao") ? &direcao : KeyIs(key, "sentido") ? &sentido : nullptr;
      case 8:
        return KeyIs(key, "latitude") ? &latitude : KeyIs(key, "dataHora") ? &data_hora : nullptr;
      case 9:
        return KeyIs(key, "longitude") ? &longitude : nullptr;
      case 10:
        return KeyIs(key, "velocidade") ? &velocidade : nullptr;
      default:
        return nullptr;
    }
  }
};

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return (x >= 'A' && x <= 'Z' ? x - 'A' + 'a' : x) == (y >= 'A' && y <= 'Z' ? y - 'A' + 'a' : y);
  });
}

// Ingest times are patched in after the whole response is read (it is the newest
// dataHora), so records carry nullopt here.
void EmitBrt(const BrtRecord& record, RecordSink& sink,
             std::optional<base::Timestamp>& newest_event_time) {
  const std::string_view vehicle_id = TrimmedText(record.codigo);
  DetailWriter detail;
  std::optional<RejectReason> reason;

  base::Timestamp event_time;
  const auto time_reason = ReadEpoch(record.data_hora, EpochUnit::kMillis, event_time);
  if (!time_reason) {
    newest_event_time = newest_event_time ? std::max(*newest_event_time, event_time) : event_time;
  }
  double lat = 0;
  double lon = 0;
  const Number speed = ReadNumber(record.velocidade);
  // " " is how the API says "no heading": absent, not an error.
  const Number bearing = ReadNumber(record.direcao);

  if (vehicle_id.empty()) {
    reason = RejectReason::kMissingVehicleId;
    detail.Add("codigo", record.codigo);
  } else if ((reason = ReadCoordinates("latitude", record.latitude, "longitude", record.longitude,
                                       lat, lon, detail))) {
  } else if (time_reason) {
    reason = time_reason;
    detail.Add("dataHora", record.data_hora);
  } else if (speed.state == NumberState::kInvalid) {
    reason = RejectReason::kMalformedRecord;
    detail.Add("velocidade", record.velocidade);
  } else if (bearing.state == NumberState::kInvalid) {
    reason = RejectReason::kMalformedRecord;
    detail.Add("direcao", record.direcao);
  }
  if (reason) {
    sink.AddRejection(*reason, vehicle_id,
                      time_reason ? std::nullopt : std::optional<base::Timestamp>(event_time),
                      std::nullopt, detail.Take());
    return;
  }
  model::Position& position = sink.AddPosition();
  position.vehicle_id = vehicle_id;
  position.route_id = TrimmedText(record.linha);
  position.lat = lat;
  position.lon = lon;
  position.event_time = event_time;
  if (speed.state == NumberState::kOk) {
    position.reported_speed_kmh = static_cast<float>(speed.value);
  }
  if (bearing.state == NumberState::kOk) {
    position.bearing_deg = static_cast<float>(bearing.value);
  }
  const std::string_view sentido = TrimmedText(record.sentido);
  if (EqualsIgnoringCase(sentido, "ida")) {
    position.direction_id = 0;
  } else if (EqualsIgnoringCase(sentido, "volta")) {
    position.direction_id = 1;
  }
}

// Reads {"veiculos": [...]}; other keys are ignored, a missing or null list is no vehicles.
simdjson::error_code DecodeBrtObject(ondemand::document& doc, RecordSink& sink,
                                     std::optional<base::Timestamp>& newest_event_time,
                                     bool& found_list) {
  ondemand::object root;
  if (const auto error = doc.get_object().get(root)) {
    return error;
  }
  for (auto root_field_result : root) {
    ondemand::field root_field;
    std::string_view root_key;
    if (const auto error = std::move(root_field_result).get(root_field)) {
      return error;
    }
    if (const auto error = ReadKey(root_field, root_key)) {
      return error;
    }
    if (root_key != "veiculos") {
      continue;
    }
    ondemand::value list = root_field.value();
    ondemand::json_type list_type{};
    if (const auto error = list.type().get(list_type)) {
      return error;
    }
    if (list_type == ondemand::json_type::null) {
      found_list = true;
      continue;
    }
    ondemand::array array;
    if (const auto error = list.get_array().get(array)) {
      return error;
    }
    found_list = true;
    for (auto element_result : array) {
      ondemand::value element;
      if (const auto error = element_result.get(element)) {
        return error;
      }
      ondemand::json_type type{};
      if (const auto error = element.type().get(type)) {
        return error;
      }
      if (type != ondemand::json_type::object) {
        RejectNonObject(sink, type, std::nullopt);
        continue;
      }
      ondemand::object object;
      if (const auto error = element.get_object().get(object)) {
        return error;
      }
      BrtRecord record;
      for (auto field_result : object) {
        ondemand::field field;
        Field* slot = nullptr;
        if (const auto error = std::move(field_result).get(field)) {
          return error;
        }
        if (const auto error = FindSlot(field, record, slot)) {
          return error;
        }
        if (slot != nullptr) {
          if (const auto error = ReadField(field.value(), *slot)) {
            return error;
          }
        }
      }
      EmitBrt(record, sink, newest_event_time);
    }
  }
  return simdjson::SUCCESS;
}

}  // namespace

base::Result<ResponseInfo> DecodeRioSppo(std::string_view bytes, const DecodeOptions& options,
                                         DecodedBatch& out) {
  constexpr std::string_view kWhat = "Rio SPPO response (a JSON array of objects)";
  RecordSink sink(Format::kRioSppo, options, out);
  ondemand::document doc;
  simdjson::error_code error = JsonScratch::ForThisThread().Iterate(bytes, doc);
  if (!error) {
    error = DecodeSppoArray(doc, options, sink);
  }
  if (!error && HasTrailingContent(doc)) {
    error = simdjson::TAPE_ERROR;
  }
  if (error) {
    sink.Rollback();
    return JsonError(kWhat, error);
  }
  ResponseInfo info;
  info.records = sink.records();
  return info;
}

base::Result<ResponseInfo> DecodeRioBrt(std::string_view bytes, const DecodeOptions& options,
                                        DecodedBatch& out) {
  constexpr std::string_view kWhat = "Rio BRT response (a JSON object with \"veiculos\")";
  const std::size_t positions_before = out.positions.size();
  const std::size_t rejections_before = out.rejections.size();
  RecordSink sink(Format::kRioBrt, options, out);
  ondemand::document doc;
  std::optional<base::Timestamp> newest_event_time;
  bool found_list = false;
  simdjson::error_code error = JsonScratch::ForThisThread().Iterate(bytes, doc);
  if (!error) {
    error = DecodeBrtObject(doc, sink, newest_event_time, found_list);
  }
  if (!error && HasTrailingContent(doc)) {
    error = simdjson::TAPE_ERROR;
  }
  if (error) {
    sink.Rollback();
    return JsonError(kWhat, error);
  }
  if (!found_list) {
    return base::InvalidInput("not a {}: no \"veiculos\" list", kWhat);
  }
  // The response's own clock is its newest fix: the API keeps no receive time.
  const std::optional<base::Timestamp> ingest_time =
      options.ingest_time ? options.ingest_time : newest_event_time;
  for (std::size_t i = positions_before; i < out.positions.size(); ++i) {
    out.positions[i].ingest_time = *ingest_time;  // a position implies a usable dataHora
  }
  for (std::size_t i = rejections_before; i < out.rejections.size(); ++i) {
    out.rejections[i].ingest_time = ingest_time;
  }
  ResponseInfo info;
  info.records = sink.records();
  return info;
}

}  // namespace frota::codec::internal
