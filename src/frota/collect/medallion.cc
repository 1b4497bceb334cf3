#include "frota/collect/medallion.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <set>
#include <unordered_set>

#include "frota/job/validation.h"
#include "frota/sink/duckdb_connection.h"

namespace frota::collect {

namespace fs = std::filesystem;
using sink::ColumnType;

using AircraftPtr = std::shared_ptr<const codec::AircraftState>;

struct MedallionWriter::Row {
  model::Position position;
  std::uint32_t file = 0;  // index into Buffer::files
  AircraftPtr aircraft;    // opensky feeds only
};

struct MedallionWriter::RejectedRow {
  model::Rejection rejection;
  std::uint32_t file = 0;
  AircraftPtr aircraft;
};

struct MedallionWriter::Summary {
  base::Timestamp ingest_time;
  int http_status = 200;
  std::int64_t bytes = 0;
  double duration_ms = 0;
  bool repeat = false;
  bool decoded = false;
  std::int64_t records = 0;
  std::int64_t accepted = 0;
  std::int64_t rejected = 0;
  std::int64_t unique_vehicles = 0;
  std::int64_t airborne = 0;
  std::int64_t on_ground = 0;
  double mean_speed_kmh = NAN;
  double mean_altitude_m = NAN;
  std::optional<std::int64_t> latest_contact;  // Unix seconds; opensky feeds only
  std::uint32_t file = 0;
};

struct MedallionWriter::Latest {
  model::Position position;
  std::string bronze_file;
  AircraftPtr aircraft;
};

struct MedallionWriter::Buffer {
  std::vector<Row> positions;
  std::vector<RejectedRow> rejections;
  std::vector<Summary> summaries;
  std::vector<std::string> files;
  std::string time_zone;  // the feed's
  [[nodiscard]] bool empty() const {
    return positions.empty() && rejections.empty() && summaries.empty();
  }
  void Prepend(Buffer&& older) {
    // Rows of a failed flush go back in front, their file indexes shifted.
    const auto shift = static_cast<std::uint32_t>(older.files.size());
    for (auto& r : positions) {
      r.file += shift;
    }
    for (auto& r : rejections) {
      r.file += shift;
    }
    for (auto& s : summaries) {
      s.file += shift;
    }
    older.files.insert(older.files.end(), files.begin(), files.end());
    older.positions.insert(older.positions.end(), std::make_move_iterator(positions.begin()),
                           std::make_move_iterator(positions.end()));
    older.rejections.insert(older.rejections.end(), std::make_move_iterator(rejections.begin()),
                            std::make_move_iterator(rejections.end()));
    older.summaries.insert(older.summaries.end(), summaries.begin(), summaries.end());
    *this = std::move(older);
  }
};

namespace {

std::string Quote(const fs::path& path) {
  std::string out;
  for (const char c : path.string()) {
    out += c;
    if (c == '\'') {
      out += '\'';
    }
  }
  return out;
}

base::Status FsyncPath(const fs::path& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) {
    return base::IoError("{}: cannot open to fsync", path.string());
  }
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) {
    return base::IoError("{}: fsync failed", path.string());
  }
  return base::Status::Ok();
}

std::int32_t UtcDays(base::Timestamp t) {
  return static_cast<std::int32_t>(
      std::chrono::floor<std::chrono::days>(t).time_since_epoch().count());
}

void SetOptionalFloat(sink::ChunkAppender& a, std::size_t column, float v) {
  if (std::isnan(v)) {
    a.SetNull(column);
  } else {
    a.SetFloat(column, v);
  }
}

void SetOptionalText(sink::ChunkAppender& a, std::size_t column, const std::string& v) {
  if (v.empty()) {
    a.SetNull(column);
  } else {
    a.SetString(column, v);
  }
}

constexpr std::string_view kPositionColumns =
    "feed_id VARCHAR, vehicle_id VARCHAR, route_id VARCHAR, trip_id VARCHAR, "
    "trip_start_date VARCHAR, trip_start_time VARCHAR, direction_id TINYINT, mode VARCHAR, "
    "lat DOUBLE, lon DOUBLE, reported_speed_kmh FLOAT, bearing_deg FLOAT, altitude_m FLOAT, "
    "on_ground BOOLEAN, event_time TIMESTAMP, ingest_time TIMESTAMP, "
    "event_time_from_header BOOLEAN, bronze_file VARCHAR, record_index BIGINT";
const std::vector<ColumnType> kPositionTypes = {
    ColumnType::kVarchar, ColumnType::kVarchar, ColumnType::kVarchar,   ColumnType::kVarchar,
    ColumnType::kVarchar, ColumnType::kVarchar, ColumnType::kTinyint,   ColumnType::kVarchar,
    ColumnType::kDouble,  ColumnType::kDouble,  ColumnType::kFloat,     ColumnType::kFloat,
    ColumnType::kFloat,   ColumnType::kBoolean, ColumnType::kTimestamp, ColumnType::kTimestamp,
    ColumnType::kBoolean, ColumnType::kVarchar, ColumnType::kBigint};

// Every field of the OpenSky state vector (semantics.md section 8) in the API's units,
// after the record columns; null for other feeds. `on_ground` is the record column.
// `sensors` goes in as JSON text and out to Parquet as INTEGER[] (kSilverPositions).
constexpr std::string_view kAircraftColumns =
    "icao24 VARCHAR, callsign VARCHAR, origin_country VARCHAR, time_position BIGINT, "
    "last_contact BIGINT, last_contact_at VARCHAR, longitude DOUBLE, latitude DOUBLE, "
    "barometric_altitude_m DOUBLE, velocity_mps DOUBLE, velocity_kmh DOUBLE, "
    "true_track_deg DOUBLE, vertical_rate_mps DOUBLE, sensors VARCHAR, geo_altitude_m DOUBLE, "
    "squawk VARCHAR, spi BOOLEAN, position_source INTEGER, category INTEGER";
const std::vector<ColumnType> kAircraftTypes = {
    ColumnType::kVarchar, ColumnType::kVarchar, ColumnType::kVarchar, ColumnType::kBigint,
    ColumnType::kBigint,  ColumnType::kVarchar, ColumnType::kDouble,  ColumnType::kDouble,
    ColumnType::kDouble,  ColumnType::kDouble,  ColumnType::kDouble,  ColumnType::kDouble,
    ColumnType::kDouble,  ColumnType::kVarchar, ColumnType::kDouble,  ColumnType::kVarchar,
    ColumnType::kBoolean, ColumnType::kInteger, ColumnType::kInteger};
constexpr std::size_t kAircraftFirst = 19;  // after the record columns
constexpr std::string_view kSensorsAsList = "* REPLACE (CAST(sensors AS INTEGER[]) AS sensors)";

std::vector<ColumnType> PositionTypes() {
  auto types = kPositionTypes;
  types.insert(types.end(), kAircraftTypes.begin(), kAircraftTypes.end());
  return types;
}

// ISO 8601 local time with its UTC offset, e.g. 2021-10-17T08:49:50-03:00.
std::string FormatLocalSeconds(std::int64_t unix_seconds, const base::TimeZone& zone) {
  const auto t = base::FromUnixSeconds(unix_seconds);
  const auto offset = zone.OffsetAt(t);
  const auto local = std::chrono::floor<std::chrono::seconds>(t) + offset;
  const auto day = std::chrono::floor<std::chrono::days>(local);
  const std::chrono::year_month_day ymd(day);
  const std::chrono::hh_mm_ss hms(local - day);
  const auto minutes = std::chrono::abs(offset).count() / 60;
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}{}{:02d}:{:02d}",
                     static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                     static_cast<unsigned>(ymd.day()), hms.hours().count(), hms.minutes().count(),
                     hms.seconds().count(), offset < std::chrono::seconds(0) ? '-' : '+',
                     minutes / 60, minutes % 60);
}

void AppendAircraft(sink::ChunkAppender& a, const codec::AircraftState* s,
                    const base::TimeZone* zone) {
  constexpr std::size_t kFirst = kAircraftFirst;
  if (s == nullptr) {
    for (std::size_t i = 0; i < kAircraftTypes.size(); ++i) {
      a.SetNull(kFirst + i);
    }
    return;
  }
  const auto text = [&](std::size_t c, const std::optional<std::string>& v) {
    v ? a.SetString(c, *v) : a.SetNull(c);
  };
  const auto real = [&](std::size_t c, std::optional<double> v) {
    v ? a.SetDouble(c, *v) : a.SetNull(c);
  };
  const auto integer = [&](std::size_t c, std::optional<std::int64_t> v) {
    v ? a.SetInt64(c, *v) : a.SetNull(c);
  };
  const auto int32 = [&](std::size_t c, std::optional<std::int32_t> v) {
    v ? a.SetInt32(c, *v) : a.SetNull(c);
  };
  const auto boolean = [&](std::size_t c, std::optional<bool> v) {
    v ? a.SetBool(c, *v) : a.SetNull(c);
  };
  text(kFirst + 0, s->icao24);
  text(kFirst + 1, s->callsign);
  text(kFirst + 2, s->origin_country);
  integer(kFirst + 3, s->time_position);
  integer(kFirst + 4, s->last_contact);
  if (s->last_contact && zone != nullptr) {
    a.SetString(kFirst + 5, FormatLocalSeconds(*s->last_contact, *zone));
  } else {
    a.SetNull(kFirst + 5);
  }
  real(kFirst + 6, s->longitude);
  real(kFirst + 7, s->latitude);
  real(kFirst + 8, s->barometric_altitude_m);
  real(kFirst + 9, s->velocity_mps);
  real(kFirst + 10, s->velocity_mps ? std::optional<double>(*s->velocity_mps * 3.6) : std::nullopt);
  real(kFirst + 11, s->true_track_deg);
  real(kFirst + 12, s->vertical_rate_mps);
  if (s->sensors) {
    a.SetString(kFirst + 13, fmt::format("[{}]", fmt::join(*s->sensors, ",")));
  } else {
    a.SetNull(kFirst + 13);
  }
  real(kFirst + 14, s->geo_altitude_m);
  text(kFirst + 15, s->squawk);
  boolean(kFirst + 16, s->spi);
  int32(kFirst + 17, s->position_source);
  int32(kFirst + 18, s->category);
}

base::Status AppendPosition(sink::ChunkAppender& a, const model::Position& p,
                            const std::string& file, const codec::AircraftState* aircraft,
                            const base::TimeZone* zone) {
  a.SetString(0, p.feed_id);
  a.SetString(1, p.vehicle_id);
  SetOptionalText(a, 2, p.route_id);
  SetOptionalText(a, 3, p.trip_id);
  SetOptionalText(a, 4, p.trip_start_date);
  SetOptionalText(a, 5, p.trip_start_time);
  if (p.direction_id < 0) {
    a.SetNull(6);
  } else {
    a.SetInt8(6, p.direction_id);
  }
  a.SetString(7, model::ModeName(p.mode));
  a.SetDouble(8, p.lat);
  a.SetDouble(9, p.lon);
  SetOptionalFloat(a, 10, p.reported_speed_kmh);
  SetOptionalFloat(a, 11, p.bearing_deg);
  SetOptionalFloat(a, 12, p.altitude_m);
  if (p.on_ground < 0) {
    a.SetNull(13);
  } else {
    a.SetBool(13, p.on_ground == 1);
  }
  a.SetTimestampMicros(14, base::ToUnixMicros(p.event_time));
  a.SetTimestampMicros(15, base::ToUnixMicros(p.ingest_time));
  a.SetBool(16, p.event_time_from_header);
  a.SetString(17, file);
  a.SetInt64(18, p.source.offset);
  AppendAircraft(a, aircraft, zone);
  return a.EndRow();
}

}  // namespace

base::Result<std::unique_ptr<MedallionWriter>> MedallionWriter::Open(fs::path silver, fs::path gold,
                                                                     std::string run_id,
                                                                     job::JobConfig rules) {
  std::unique_ptr<MedallionWriter> writer(new MedallionWriter());
  writer->silver_ = std::move(silver);
  writer->gold_ = std::move(gold);
  writer->run_id_ = std::move(run_id);
  writer->rules_ = std::move(rules);
  FROTA_ASSIGN_OR_RETURN(writer->db_, sink::DuckDbConnection::Open(""));
  // Parquet export is all this database does: keep it small and single-threaded, the
  // pollers and the engine need the cores.
  FROTA_RETURN_IF_ERROR(writer->db_->Execute("SET threads = 1; SET memory_limit = '256MB';"));
  return writer;
}

MedallionWriter::~MedallionWriter() = default;

std::map<std::string, std::int64_t> MedallionWriter::Add(PolledResponse response) {
  Summary summary;
  summary.ingest_time = response.ingest_time;
  summary.http_status = response.http_status;
  summary.bytes = response.bytes;
  summary.duration_ms = response.duration_ms;
  summary.repeat = response.repeat;
  summary.decoded = response.decoded;
  summary.records = static_cast<std::int64_t>(response.batch.size());
  // An opensky response's state vectors, element i for the record of offset i (the
  // poller decodes from offset 0); any other count means another body: no aircraft columns.
  std::vector<AircraftPtr> states;
  if (response.format == codec::Format::kOpenSky && response.decoded) {
    auto decoded = codec::DecodeAircraftStates(response.body);
    if (decoded.ok() && decoded->size() == response.batch.size()) {
      states.reserve(decoded->size());
      for (auto& state : *decoded) {
        if (state.last_contact) {
          summary.latest_contact =
              std::max(summary.latest_contact.value_or(*state.last_contact), *state.last_contact);
        }
        states.push_back(std::make_shared<const codec::AircraftState>(std::move(state)));
      }
    }
  }
  const auto state_of = [&](std::int64_t offset) -> AircraftPtr {
    return offset >= 0 && static_cast<std::size_t>(offset) < states.size()
               ? states[static_cast<std::size_t>(offset)]
               : nullptr;
  };
  std::vector<model::Position> accepted;
  std::vector<model::Rejection> rejected = std::move(response.batch.rejections);
  for (auto& p : response.batch.positions) {
    if (const auto reason = job::CheckRecordRules(p, rules_)) {
      rejected.push_back(
          job::MakeRejection(p, *reason, job::DescribeRecordRuleFailure(p, *reason)));
    } else {
      accepted.push_back(std::move(p));
    }
  }
  // The poll summary of semantics.md section 8, for every mode.
  std::unordered_set<std::string_view> vehicles;
  double speed_sum = 0;
  std::int64_t speeds = 0;
  double altitude_sum = 0;
  std::int64_t altitudes = 0;
  for (const auto& p : accepted) {
    vehicles.insert(p.vehicle_id);
    summary.airborne += p.on_ground == 0 ? 1 : 0;
    summary.on_ground += p.on_ground == 1 ? 1 : 0;
    if (!std::isnan(p.reported_speed_kmh)) {
      speed_sum += p.reported_speed_kmh;
      ++speeds;
    }
    if (!std::isnan(p.altitude_m)) {
      altitude_sum += p.altitude_m;
      ++altitudes;
    }
  }
  summary.accepted = static_cast<std::int64_t>(accepted.size());
  summary.rejected = static_cast<std::int64_t>(rejected.size());
  summary.unique_vehicles = static_cast<std::int64_t>(vehicles.size());
  summary.mean_speed_kmh = speeds > 0 ? speed_sum / static_cast<double>(speeds) : NAN;
  summary.mean_altitude_m = altitudes > 0 ? altitude_sum / static_cast<double>(altitudes) : NAN;

  const std::lock_guard lock(mutex_);
  auto& slot = buffers_[response.feed_id];
  if (!slot) {
    slot = std::make_unique<Buffer>();
  }
  Buffer& buffer = *slot;
  const auto file = static_cast<std::uint32_t>(buffer.files.size());
  buffer.files.push_back(std::move(response.bronze_file));
  buffer.time_zone = response.time_zone;
  summary.file = file;
  buffer.summaries.push_back(summary);
  for (auto& p : accepted) {
    AircraftPtr state = state_of(p.source.offset);
    buffer.positions.push_back({std::move(p), file, std::move(state)});
  }
  std::map<std::string, std::int64_t> refused;
  for (auto& r : rejected) {
    const std::string reason(model::RejectReasonName(r.reason));
    ++stats_.rejected[reason];
    ++refused[reason];
    AircraftPtr state = state_of(r.source.offset);
    buffer.rejections.push_back({std::move(r), file, std::move(state)});
  }
  ++stats_.responses;
  stats_.records += summary.records;
  stats_.accepted += summary.accepted;
  stats_.buffered_records += summary.records;
  return refused;
}

base::Status MedallionWriter::Flush(base::Timestamp now) {
  const std::lock_guard flush_lock(flush_mutex_);
  std::map<std::string, std::unique_ptr<Buffer>> taken;
  {
    const std::lock_guard lock(mutex_);
    taken.swap(buffers_);
  }
  std::vector<std::string> files;
  std::optional<base::Error> first_error;
  for (auto& [feed_id, buffer] : taken) {
    if (buffer->empty()) {
      continue;
    }
    const auto status = WriteFeed(feed_id, *buffer, now, files);
    if (!status.ok()) {
      spdlog::error("medallion flush failed feed={} error={}", feed_id, status.error().message());
      if (!first_error) {
        first_error = status.error();
      }
      const std::lock_guard lock(mutex_);
      auto& slot = buffers_[feed_id];
      if (!slot) {
        slot = std::make_unique<Buffer>();
      }
      slot->Prepend(std::move(*buffer));
      continue;
    }
    const std::lock_guard lock(mutex_);
    stats_.buffered_records -=
        static_cast<std::int64_t>(buffer->positions.size() + buffer->rejections.size());
  }
  const std::lock_guard lock(mutex_);
  ++stats_.flushes;
  std::int64_t vehicles = 0;
  for (const auto& [feed, map] : latest_) {
    vehicles += static_cast<std::int64_t>(map.size());
  }
  stats_.vehicles = vehicles;
  if (!files.empty()) {
    stats_.last_files = files;
  }
  if (first_error) {
    ++stats_.flush_errors;
    return *first_error;
  }
  return base::Status::Ok();
}

// One feed's flush: the tables it fills and the files it writes, each written whole and
// renamed into place, one per UTC date of ingest.
struct MedallionWriter::FeedFlush {
  sink::DuckDbConnection& db;
  const std::string& feed_id;
  std::string file_name;  // RUN_ID-SEQUENCE.parquet
  const Buffer& buffer;
  base::Timestamp now;
  const base::TimeZone* zone;  // null: the feed names none
  std::vector<std::string> files;

  // Writes table `name` (already filled) to `path` atomically.
  base::Status CopyOut(std::string_view name, const fs::path& path) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) {
      return base::IoError("{}: cannot create: {}", path.parent_path().string(), ec.message());
    }
    const fs::path tmp = path.string() + fmt::format(".tmp-{}", ::getpid());
    FROTA_RETURN_IF_ERROR(db.Execute(
        fmt::format("COPY {} TO '{}' (FORMAT parquet, COMPRESSION zstd)", name, Quote(tmp))));
    FROTA_RETURN_IF_ERROR(FsyncPath(tmp, false));
    fs::rename(tmp, path, ec);
    if (ec) {
      return base::IoError("{}: cannot rename into place: {}", path.string(), ec.message());
    }
    FROTA_RETURN_IF_ERROR(FsyncPath(path.parent_path(), true));
    files.push_back(path.string());
    return base::Status::Ok();
  }

  [[nodiscard]] fs::path Dated(const fs::path& root, std::string_view table,
                               std::int32_t days) const {
    return root / table / ("feed=" + feed_id) /
           fmt::format("date={}", base::FormatDate(base::LocalDateFromDays(days))) / file_name;
  }

  // Silver positions.
  base::Status Positions(const fs::path& silver) {
    std::set<std::int32_t> dates;
    for (const auto& r : buffer.positions) {
      dates.insert(UtcDays(r.position.ingest_time));
    }
    for (const auto days : dates) {
      FROTA_RETURN_IF_ERROR(
          db.Execute(fmt::format("CREATE OR REPLACE TABLE silver_positions ({}, {})",
                                 kPositionColumns, kAircraftColumns)));
      {
        FROTA_ASSIGN_OR_RETURN(
            auto a, sink::ChunkAppender::Create(db, "silver_positions", PositionTypes()));
        for (const auto& r : buffer.positions) {
          if (UtcDays(r.position.ingest_time) == days) {
            FROTA_RETURN_IF_ERROR(
                AppendPosition(*a, r.position, buffer.files[r.file], r.aircraft.get(), zone));
          }
        }
        FROTA_RETURN_IF_ERROR(a->Close());
      }
      FROTA_RETURN_IF_ERROR(
          CopyOut(fmt::format("(SELECT {} FROM silver_positions)", kSensorsAsList),
                  Dated(silver, "positions", days)));
    }
    return base::Status::Ok();
  }

  // Silver rejections.
  base::Status Rejections(const fs::path& silver) {
    std::set<std::int32_t> dates;
    for (const auto& row : buffer.rejections) {
      dates.insert(UtcDays(row.rejection.ingest_time.value_or(now)));
    }
    for (const auto days : dates) {
      FROTA_RETURN_IF_ERROR(db.Execute(
          "CREATE OR REPLACE TABLE silver_rejected (feed_id VARCHAR, reason VARCHAR, "
          "vehicle_id VARCHAR, event_time TIMESTAMP, ingest_time TIMESTAMP, detail VARCHAR, "
          "bronze_file VARCHAR, record_index BIGINT, state_vector VARCHAR)"));
      {
        FROTA_ASSIGN_OR_RETURN(
            auto a, sink::ChunkAppender::Create(
                        db, "silver_rejected",
                        {ColumnType::kVarchar, ColumnType::kVarchar, ColumnType::kVarchar,
                         ColumnType::kTimestamp, ColumnType::kTimestamp, ColumnType::kVarchar,
                         ColumnType::kVarchar, ColumnType::kBigint, ColumnType::kVarchar}));
        for (const auto& row : buffer.rejections) {
          if (UtcDays(row.rejection.ingest_time.value_or(now)) == days) {
            FROTA_RETURN_IF_ERROR(AppendRejection(*a, row));
          }
        }
        FROTA_RETURN_IF_ERROR(a->Close());
      }
      FROTA_RETURN_IF_ERROR(CopyOut("silver_rejected", Dated(silver, "rejected", days)));
    }
    return base::Status::Ok();
  }

  base::Status AppendRejection(sink::ChunkAppender& a, const RejectedRow& row) const {
    const model::Rejection& r = row.rejection;
    a.SetString(0, r.feed_id.empty() ? feed_id : r.feed_id);
    a.SetString(1, model::RejectReasonName(r.reason));
    SetOptionalText(a, 2, r.vehicle_id);
    if (r.event_time) {
      a.SetTimestampMicros(3, base::ToUnixMicros(*r.event_time));
    } else {
      a.SetNull(3);
    }
    if (r.ingest_time) {
      a.SetTimestampMicros(4, base::ToUnixMicros(*r.ingest_time));
    } else {
      a.SetNull(4);
    }
    SetOptionalText(a, 5, r.detail);
    a.SetString(6, buffer.files[row.file]);
    a.SetInt64(7, r.source.offset);
    if (row.aircraft) {
      a.SetString(8, row.aircraft->raw);  // the state vector as received
    } else {
      a.SetNull(8);
    }
    return a.EndRow();
  }

  // Gold: one summary row per archived response.
  base::Status Summaries(const fs::path& gold) {
    std::set<std::int32_t> dates;
    for (const auto& s : buffer.summaries) {
      dates.insert(UtcDays(s.ingest_time));
    }
    for (const auto days : dates) {
      FROTA_RETURN_IF_ERROR(db.Execute(
          "CREATE OR REPLACE TABLE gold_poll_summary (feed_id VARCHAR, ingest_time TIMESTAMP, "
          "http_status INTEGER, bytes BIGINT, duration_ms DOUBLE, repeat BOOLEAN, decoded "
          "BOOLEAN, observations BIGINT, accepted BIGINT, rejected BIGINT, unique_vehicles "
          "BIGINT, airborne BIGINT, on_ground BIGINT, mean_speed_kmh DOUBLE, mean_altitude_m "
          "DOUBLE, bronze_file VARCHAR, latest_contact TIMESTAMP)"));
      {
        FROTA_ASSIGN_OR_RETURN(
            auto a, sink::ChunkAppender::Create(
                        db, "gold_poll_summary",
                        {ColumnType::kVarchar, ColumnType::kTimestamp, ColumnType::kInteger,
                         ColumnType::kBigint, ColumnType::kDouble, ColumnType::kBoolean,
                         ColumnType::kBoolean, ColumnType::kBigint, ColumnType::kBigint,
                         ColumnType::kBigint, ColumnType::kBigint, ColumnType::kBigint,
                         ColumnType::kBigint, ColumnType::kDouble, ColumnType::kDouble,
                         ColumnType::kVarchar, ColumnType::kTimestamp}));
        for (const auto& s : buffer.summaries) {
          if (UtcDays(s.ingest_time) == days) {
            FROTA_RETURN_IF_ERROR(AppendSummary(*a, s));
          }
        }
        FROTA_RETURN_IF_ERROR(a->Close());
      }
      FROTA_RETURN_IF_ERROR(CopyOut("gold_poll_summary", Dated(gold, "poll_summary", days)));
    }
    return base::Status::Ok();
  }

  base::Status AppendSummary(sink::ChunkAppender& a, const Summary& s) const {
    const auto set_or_null = [&a](std::size_t column, double value) {
      if (std::isnan(value)) {
        a.SetNull(column);
      } else {
        a.SetDouble(column, value);
      }
    };
    a.SetString(0, feed_id);
    a.SetTimestampMicros(1, base::ToUnixMicros(s.ingest_time));
    a.SetInt32(2, s.http_status);
    a.SetInt64(3, s.bytes);
    a.SetDouble(4, s.duration_ms);
    a.SetBool(5, s.repeat);
    a.SetBool(6, s.decoded);
    a.SetInt64(7, s.records);
    a.SetInt64(8, s.accepted);
    a.SetInt64(9, s.rejected);
    a.SetInt64(10, s.unique_vehicles);
    a.SetInt64(11, s.airborne);
    a.SetInt64(12, s.on_ground);
    set_or_null(13, s.mean_speed_kmh);
    set_or_null(14, s.mean_altitude_m);
    a.SetString(15, buffer.files[s.file]);
    if (s.latest_contact) {
      a.SetTimestampMicros(16, base::ToUnixMicros(base::FromUnixSeconds(*s.latest_contact)));
    } else {
      a.SetNull(16);
    }
    return a.EndRow();
  }

  // Gold: the latest state of every vehicle the feed has shown, by vehicle id.
  base::Status LatestState(const std::unordered_map<std::string, std::unique_ptr<Latest>>& latest,
                           const fs::path& path) {
    if (latest.empty()) {
      return base::Status::Ok();
    }
    FROTA_RETURN_IF_ERROR(db.Execute(
        fmt::format("CREATE OR REPLACE TABLE gold_latest_state ({}, {}, as_of TIMESTAMP)",
                    kPositionColumns, kAircraftColumns)));
    auto types = PositionTypes();
    types.push_back(ColumnType::kTimestamp);
    FROTA_ASSIGN_OR_RETURN(auto a, sink::ChunkAppender::Create(db, "gold_latest_state", types));
    std::vector<const Latest*> sorted;
    sorted.reserve(latest.size());
    for (const auto& [vehicle, l] : latest) {
      sorted.push_back(l.get());
    }
    std::sort(sorted.begin(), sorted.end(), [](const Latest* x, const Latest* y) {
      return x->position.vehicle_id < y->position.vehicle_id;
    });
    for (const auto* l : sorted) {
      a->SetTimestampMicros(kAircraftFirst + kAircraftTypes.size(), base::ToUnixMicros(now));
      FROTA_RETURN_IF_ERROR(
          AppendPosition(*a, l->position, l->bronze_file, l->aircraft.get(), zone));
    }
    FROTA_RETURN_IF_ERROR(a->Close());
    return CopyOut(fmt::format("(SELECT {} FROM gold_latest_state)", kSensorsAsList), path);
  }
};

base::Result<const base::TimeZone*> MedallionWriter::ZoneNamed(const std::string& name) {
  if (name.empty()) {
    return static_cast<const base::TimeZone*>(nullptr);
  }
  auto it = zones_.find(name);
  if (it == zones_.end()) {
    FROTA_ASSIGN_OR_RETURN(auto loaded, base::TimeZone::Load(name));
    it = zones_.emplace(name, std::move(loaded)).first;
  }
  return &it->second;
}

// The latest state per vehicle: largest event time; aircraft: largest last_contact
// (semantics.md section 8); ties: the later record.
void MedallionWriter::UpdateLatest(const std::string& feed_id, const Buffer& buffer) {
  auto& latest = latest_[feed_id];
  for (const auto& r : buffer.positions) {
    auto& slot = latest[r.position.vehicle_id];
    if (!slot) {
      slot = std::make_unique<Latest>();
    } else if (r.aircraft && slot->aircraft && r.aircraft->last_contact &&
               slot->aircraft->last_contact) {
      if (*r.aircraft->last_contact < *slot->aircraft->last_contact) {
        continue;
      }
    } else if (r.position.event_time < slot->position.event_time) {
      continue;
    }
    slot->position = r.position;
    slot->bronze_file = buffer.files[r.file];
    slot->aircraft = r.aircraft;
  }
}

base::Status MedallionWriter::WriteFeed(const std::string& feed_id, Buffer& buffer,
                                        base::Timestamp now, std::vector<std::string>& all_files) {
  ++sequence_;
  FROTA_ASSIGN_OR_RETURN(const base::TimeZone* zone, ZoneNamed(buffer.time_zone));
  FeedFlush flush{*db_, feed_id, fmt::format("{}-{:06d}.parquet", run_id_, sequence_), buffer, now,
                  zone, {}};
  FROTA_RETURN_IF_ERROR(flush.Positions(silver_));
  FROTA_RETURN_IF_ERROR(flush.Rejections(silver_));
  FROTA_RETURN_IF_ERROR(flush.Summaries(gold_));
  UpdateLatest(feed_id, buffer);
  FROTA_RETURN_IF_ERROR(flush.LatestState(
      latest_[feed_id], gold_ / "latest_state" / ("feed=" + feed_id) / (run_id_ + ".parquet")));
  const std::lock_guard lock(mutex_);
  for (const auto& f : flush.files) {
    if (f.rfind(silver_.string(), 0) == 0) {
      ++stats_.silver_files;
    } else {
      ++stats_.gold_files;
    }
  }
  all_files.insert(all_files.end(), flush.files.begin(), flush.files.end());
  stats_.poll_summaries += static_cast<std::int64_t>(buffer.summaries.size());
  return base::Status::Ok();
}

MedallionStats MedallionWriter::stats() const {
  const std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace frota::collect
