#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "frota/codec/codec_test_util.h"
#include "frota/codec/decode.h"
#include "frota/testing/shared_data.h"

namespace frota::codec {
namespace {

using model::RejectReason;
using testing_util::CountReasons;

constexpr std::string_view kHeader =
    "index,data,hora,id_veiculo,timestamp_gps,timestamp_captura,latitude,longitude,servico,"
    "sentido,velocidade,direction,trip_short_name,trip_id\n";

std::string Row(std::string_view vehicle, std::string_view gps, std::string_view capture,
                std::string_view lat = "-22.993042", std::string_view date = "2022-06-30 00:00:00",
                std::string_view direction = "I") {
  return fmt::format(
      "0,{},3,{},{},{},{},-43.597977,13,ITI IDA - 13 MATO ALTO X ALVORADA,47,{},13,"
      "B0013AAF0AIDU01\n",
      date, vehicle, gps, capture, lat, direction);
}

DecodedBatch ReadAll(ArchiveCsvReader& reader, std::size_t chunk = 1000) {
  DecodedBatch batch;
  while (true) {
    const auto more = reader.Next(batch, chunk);
    EXPECT_TRUE(more.ok()) << (more.ok() ? "" : more.error().message());
    if (!more.ok() || !*more) {
      return batch;
    }
  }
}

DecodedBatch DecodeText(std::string_view csv, DecodeOptions options = {}) {
  auto reader = ArchiveCsvReader::FromBytes(csv, std::move(options));
  EXPECT_TRUE(reader.ok()) << (reader.ok() ? "" : reader.error().message());
  return reader.ok() ? ReadAll(**reader) : DecodedBatch{};
}

std::string Gzip(std::string_view text) {
  z_stream stream{};
  EXPECT_EQ(deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&stream, static_cast<uLong>(text.size())) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

std::filesystem::path TempFile(std::string_view name, std::string_view bytes) {
  const auto path =
      std::filesystem::temp_directory_path() / fmt::format("frota-codec-{}-{}", ::getpid(), name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// --- the real archive --------------------------------------------------------------------

// An independent reading of a .csv.gz: zlib's gzgets, a split on commas (the real files
// quote nothing), and 2022's fixed UTC-3 for Rio (Brazil has had no DST since 2019).
struct Tally {
  std::int64_t rows = 0;
  std::set<std::string> vehicles;
  std::string min_gps = "9999";
  std::string max_gps;
  std::int64_t with_trip_id = 0;
  std::int64_t direction_ida = 0;
};

Tally TallyGzip(const std::filesystem::path& path) {
  Tally tally;
  gzFile file = gzopen(path.c_str(), "rb");
  EXPECT_NE(file, nullptr);
  char line[4096];
  bool header = true;
  while (gzgets(file, line, sizeof line) != nullptr) {
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> fields;
    std::string field;
    for (const char* p = line; *p != '\0' && *p != '\n'; ++p) {
      if (*p == ',') {
        fields.push_back(field);
        field.clear();
      } else {
        field += *p;
      }
    }
    fields.push_back(field);
    ++tally.rows;
    tally.vehicles.insert(fields[3]);
    tally.min_gps = std::min(tally.min_gps, fields[4]);
    tally.max_gps = std::max(tally.max_gps, fields[4]);
    tally.with_trip_id += fields[13].empty() ? 0 : 1;
    tally.direction_ida += fields[11] == "I" ? 1 : 0;
  }
  gzclose(file);
  return tally;
}

// "2022-06-30 03:34:51" in Rio (UTC-3 all of 2022) → "2022-06-30T06:34:51Z".
std::string RioTextToUtcIso(const std::string& local) {
  auto t = base::ParseIso8601(local);
  EXPECT_TRUE(t.has_value()) << local;
  return base::FormatIso8601(*t + std::chrono::hours(3));
}

TEST(ArchiveCsvReader, EveryRealLineFileStreamsWithItsRowsVehiclesAndTimes) {
  FROTA_REQUIRE_SHARED(dir, "rio-brt-2022/gps");
  std::int64_t total_rows = 0;
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.path().string().ends_with(".csv.gz")) {
      continue;
    }
    ++files;
    SCOPED_TRACE(entry.path().string());
    const Tally tally = TallyGzip(entry.path());
    DecodeOptions options;
    options.first_offset = 1000;
    auto reader = ArchiveCsvReader::Open(entry.path(), options);
    ASSERT_TRUE(reader.ok()) << reader.error().message();
    const DecodedBatch batch = ReadAll(**reader, 4096);
    EXPECT_EQ(static_cast<std::int64_t>(batch.positions.size()), tally.rows);
    EXPECT_EQ(CountReasons(batch), (std::map<std::string, std::int64_t>{}));
    EXPECT_EQ(testing_util::DistinctVehicles(batch), tally.vehicles);
    EXPECT_EQ(testing_util::MinEventTime(batch), RioTextToUtcIso(tally.min_gps));
    EXPECT_EQ(testing_util::MaxEventTime(batch), RioTextToUtcIso(tally.max_gps));
    std::int64_t with_trip_id = 0;
    std::int64_t ida = 0;
    for (const auto& position : batch.positions) {
      with_trip_id += position.trip_id.empty() ? 0 : 1;
      ida += position.direction_id == 0 ? 1 : 0;
      ASSERT_EQ(position.trip_start_date.size(), 8U);
      ASSERT_GE(position.ingest_time, position.event_time - std::chrono::minutes(5));
    }
    EXPECT_EQ(with_trip_id, tally.with_trip_id);
    EXPECT_EQ(ida, tally.direction_ida);
    testing_util::ExpectDenseOffsets(batch, 1000);
    total_rows += tally.rows;
  }
  EXPECT_EQ(files, 9U);
  EXPECT_EQ(total_rows, 516'124);  // "about 520,000 rows in all"
}

TEST(ArchiveCsvReader, FirstRowOfLine13MapsEveryColumn) {
  FROTA_REQUIRE_SHARED(path, "rio-brt-2022/gps/13.csv.gz");
  auto reader = ArchiveCsvReader::Open(path, {});
  ASSERT_TRUE(reader.ok()) << reader.error().message();
  DecodedBatch batch;
  ASSERT_TRUE((*reader)->Next(batch, 1).ok());
  ASSERT_EQ(batch.positions.size(), 1U);
  // 0,2022-06-30 00:00:00,3,86811,2022-06-30 03:34:51,2022-06-30 03:35:20,-22.993042,
  // -43.597977,13,ITI IDA - 13 MATO ALTO X ALVORADA (EXPRESSO),0,I,13,B0013AAF0AIDU01
  const auto& position = batch.positions[0];
  EXPECT_EQ(position.feed_id, "rio-archive-csv");
  EXPECT_EQ(position.mode, model::Mode::kBrt);
  EXPECT_EQ(position.vehicle_id, "86811");
  EXPECT_EQ(base::FormatIso8601(position.event_time), "2022-06-30T06:34:51Z");
  EXPECT_EQ(base::FormatIso8601(position.ingest_time), "2022-06-30T06:35:20Z");
  EXPECT_DOUBLE_EQ(position.lat, -22.993042);
  EXPECT_DOUBLE_EQ(position.lon, -43.597977);
  EXPECT_EQ(position.route_id, "13");
  EXPECT_EQ(position.trip_id, "B0013AAF0AIDU01");
  EXPECT_EQ(position.trip_start_date, "20220630");
  EXPECT_EQ(position.direction_id, 0);
  EXPECT_FLOAT_EQ(position.reported_speed_kmh, 0.0F);
  EXPECT_EQ(position.source.offset, 0);
}

// --- DST history, on fixtures written here -------------------------------------------------

TEST(ArchiveCsvReader, SpringForwardOf2018MapsTheMissingHourWithTheOffsetBeforeIt) {
  // 2018-11-04 00:00 local, Rio moved from UTC-3 to UTC-2: 00:xx never happened.
  const DecodedBatch batch =
      DecodeText(std::string(kHeader) + Row("1", "2018-11-03 23:30:00", "2018-11-03 23:30:10") +
                 Row("1", "2018-11-04 00:30:00", "2018-11-04 00:30:10") +
                 Row("1", "2018-11-04 01:30:00", "2018-11-04 01:30:10") +
                 Row("1", "2018-11-04 12:00:00", "2018-11-04 12:00:10"));
  ASSERT_EQ(batch.positions.size(), 4U);
  EXPECT_EQ(base::FormatIso8601(batch.positions[0].event_time), "2018-11-04T02:30:00Z");
  EXPECT_EQ(base::FormatIso8601(batch.positions[1].event_time), "2018-11-04T03:30:00Z");
  EXPECT_EQ(base::FormatIso8601(batch.positions[2].event_time), "2018-11-04T03:30:00Z");
  EXPECT_EQ(base::FormatIso8601(batch.positions[3].event_time), "2018-11-04T14:00:00Z");
  EXPECT_EQ(base::FormatIso8601(batch.positions[3].ingest_time), "2018-11-04T14:00:10Z");
}

TEST(ArchiveCsvReader, FallBackOf2019TakesTheEarlierInstantOfTheRepeatedHour) {
  // 2019-02-17 00:00 local (UTC-2), clocks went back to 2019-02-16 23:00 (UTC-3): the
  // last DST change in Brazil. 23:xx on the 16th happened twice.
  const DecodedBatch batch =
      DecodeText(std::string(kHeader) + Row("1", "2019-02-16 22:30:00", "2019-02-16 22:30:05") +
                 Row("1", "2019-02-16 23:30:00", "2019-02-16 23:30:05") +
                 Row("1", "2019-02-17 00:30:00", "2019-02-17 00:30:05") +
                 Row("1", "2019-06-01 12:00:00", "2019-06-01 12:00:05"));
  ASSERT_EQ(batch.positions.size(), 4U);
  EXPECT_EQ(base::FormatIso8601(batch.positions[0].event_time), "2019-02-17T00:30:00Z");
  EXPECT_EQ(base::FormatIso8601(batch.positions[1].event_time), "2019-02-17T01:30:00Z");
  EXPECT_EQ(base::FormatIso8601(batch.positions[2].event_time), "2019-02-17T03:30:00Z");
  EXPECT_EQ(base::FormatIso8601(batch.positions[3].event_time), "2019-06-01T15:00:00Z");
}

TEST(ArchiveCsvReader, TimestampsWithAnExplicitOffsetOrFractionAreHonoured) {
  const DecodedBatch batch = DecodeText(
      std::string(kHeader) + Row("1", "2022-06-30T03:34:51.250", "2022-06-30 03:35:20Z") +
      Row("2", "2022-06-30 03:34:51-02:00", "2022-06-30 03:35:20+0000"));
  ASSERT_EQ(batch.positions.size(), 2U);
  EXPECT_EQ(base::FormatIso8601(batch.positions[0].event_time), "2022-06-30T06:34:51.250000Z");
  EXPECT_EQ(base::FormatIso8601(batch.positions[0].ingest_time), "2022-06-30T03:35:20Z");
  EXPECT_EQ(base::FormatIso8601(batch.positions[1].event_time), "2022-06-30T05:34:51Z");
}

TEST(ArchiveCsvReader, EveryTimeTextReadsTheSameHoweverItsTextsRepeatAndInterleave) {
  // 2,000 rows whose GPS times are drawn from 300 texts (far more than the reader
  // remembers), UTC and local, some with a fraction, some not times at all, and whose
  // capture times cycle through 3 texts: each must read as it does alone.
  std::mt19937 random(7);
  std::vector<std::string> texts;
  for (int i = 0; i < 300; ++i) {
    const int minute = i / 60;
    const int second = i % 60;
    const std::string hms = fmt::format("03:{:02d}:{:02d}", minute, second);
    switch (i % 4) {
      case 0:
        texts.push_back("2022-06-30T" + hms + "Z");
        break;
      case 1:
        texts.push_back("2022-06-30 " + hms);
        break;
      case 2:
        texts.push_back("2022-06-30 " + hms + ".5");
        break;
      default:
        texts.push_back(fmt::format("2022-06-30 {}:{:02d}", hms, i));  // not a time
        break;
    }
  }
  const auto expected = [](const std::string& text) -> std::optional<std::string> {
    if (text.size() > 19 && text[19] == ':') {
      return std::nullopt;  // not a time
    }
    // Rio's offset on 2022-06-30 is -03:00 (no summer time since 2019).
    std::string utc =
        text.substr(0, 10) + "T0" + std::to_string(text[12] - '0' + 3) + text.substr(13, 6);
    if (text.ends_with(".5")) {
      return utc + ".500000Z";
    }
    return text.ends_with('Z') ? text : utc + "Z";
  };
  const std::string captures[] = {"2022-06-30 03:59:00", "2022-06-30T07:00:00Z",
                                  "2022-06-30 03:59:30.25"};
  std::string csv(kHeader);
  std::vector<std::string> gps;
  for (int row = 0; row < 2000; ++row) {
    gps.push_back(texts[random() % texts.size()]);
    csv += Row(std::to_string(row), gps.back(), captures[row % 3]);
  }
  const DecodedBatch batch = DecodeText(csv);
  std::map<std::string, std::string> event_time_of_vehicle;
  std::map<std::string, std::string> ingest_time_of_vehicle;
  for (const auto& p : batch.positions) {
    event_time_of_vehicle[p.vehicle_id] = base::FormatIso8601(p.event_time);
    ingest_time_of_vehicle[p.vehicle_id] = base::FormatIso8601(p.ingest_time);
  }
  std::set<std::string> refused;
  for (const auto& r : batch.rejections) {
    EXPECT_EQ(r.reason, RejectReason::kMalformedRecord);
    refused.insert(r.vehicle_id);
  }
  std::size_t times = 0;
  for (int row = 0; row < 2000; ++row) {
    const std::string vehicle = std::to_string(row);
    const auto want = expected(gps[row]);
    if (!want) {
      EXPECT_EQ(refused.count(vehicle), 1U) << gps[row];
      continue;
    }
    ++times;
    EXPECT_EQ(event_time_of_vehicle[vehicle], *want) << gps[row];
    const std::string capture_utc[] = {"2022-06-30T06:59:00Z", "2022-06-30T07:00:00Z",
                                       "2022-06-30T06:59:30.250000Z"};
    EXPECT_EQ(ingest_time_of_vehicle[vehicle], capture_utc[row % 3]);
  }
  EXPECT_GT(times, 1000U);
  EXPECT_GT(refused.size(), 300U);
  EXPECT_EQ(batch.positions.size() + batch.rejections.size(), 2000U);
}

// --- CSV shapes -------------------------------------------------------------------------

TEST(ArchiveCsvReader, ColumnsAreFoundByNameInAnyOrder) {
  const DecodedBatch batch = DecodeText(
      "trip_id,latitude,timestamp_captura,longitude,id_veiculo,timestamp_gps,direction,data,"
      "servico,velocidade\r\n"
      "T1,-22.9,2022-07-01 10:00:30,-43.2,B1,2022-07-01 10:00:00,V,2022-07-01 "
      "00:00:00,35,12.5\r\n");
  ASSERT_EQ(batch.positions.size(), 1U);
  const auto& position = batch.positions[0];
  EXPECT_EQ(position.vehicle_id, "B1");
  EXPECT_EQ(position.trip_id, "T1");
  EXPECT_EQ(position.route_id, "35");
  EXPECT_EQ(position.direction_id, 1);
  EXPECT_EQ(position.trip_start_date, "20220701");
  EXPECT_FLOAT_EQ(position.reported_speed_kmh, 12.5F);
  EXPECT_EQ(base::FormatIso8601(position.event_time), "2022-07-01T13:00:00Z");
}

TEST(ArchiveCsvReader, QuotedFieldsMayHoldCommasQuotesAndLineBreaks) {
  const DecodedBatch batch = DecodeText(
      std::string(kHeader) +
      "0,2022-06-30 00:00:00,3,\"86,811\",2022-06-30 03:34:51,2022-06-30 03:35:20,-22.99,-43.59,"
      "\"13\",\"ITI \"\"IDA\"\"\nsecond line\",0,I,13,B1\n" +
      Row("2", "2022-06-30 03:34:51", "2022-06-30 03:35:20") + "0,bad\n");
  ASSERT_EQ(batch.positions.size(), 2U);
  EXPECT_EQ(batch.positions[0].vehicle_id, "86,811");
  EXPECT_EQ(batch.positions[0].route_id, "13");
  ASSERT_EQ(batch.rejections.size(), 1U);
  // The quoted line break makes the data rows start at lines 2 and 4.
  EXPECT_EQ(batch.rejections[0].reason, RejectReason::kMalformedRecord);
  EXPECT_EQ(batch.rejections[0].detail, "line 5: 2 fields, expected 14");
  EXPECT_EQ(batch.rejections[0].source.offset, 2);
}

// Reads `text` interned, `chunk` rows at a time, and expects each record to be the one
// decoding without an interner gives (which never reuses a row): its texts by id, with
// its key's hashes. Returns the reader's repeated_rows().
std::int64_t ExpectInternedAsDecoded(const std::string& text, const DecodeOptions& options,
                                     std::size_t chunk) {
  const DecodedBatch decoded = DecodeText(text, options);
  auto reader = ArchiveCsvReader::FromBytes(text, options);
  EXPECT_TRUE(reader.ok());
  if (!reader.ok()) {
    return -1;
  }
  auto strings = std::make_shared<model::StringDictionary>();
  model::RecordInterner interner(strings);
  InternedBatch interned;
  while (true) {
    const auto more = (*reader)->Next(interned, chunk, interner);
    EXPECT_TRUE(more.ok()) << more.error().message();
    if (!more.ok() || !*more) {
      break;
    }
  }
  EXPECT_EQ(interned.positions.size(), decoded.positions.size());
  EXPECT_EQ(interned.position_keys.size(), decoded.positions.size());
  EXPECT_EQ(interned.rejections.size(), decoded.rejections.size());
  EXPECT_EQ(interned.rejection_keys.size(), decoded.rejections.size());
  if (interned.positions.size() != decoded.positions.size() ||
      interned.rejections.size() != decoded.rejections.size()) {
    return -1;
  }
  for (std::size_t i = 0; i < decoded.positions.size(); ++i) {
    const model::Position& want = decoded.positions[i];
    const model::Position got = model::MaterializePosition(interned.positions[i], *strings);
    EXPECT_EQ(got.feed_id, want.feed_id) << i;
    EXPECT_EQ(got.vehicle_id, want.vehicle_id) << i;
    EXPECT_EQ(got.route_id, want.route_id) << i;
    EXPECT_EQ(got.trip_id, want.trip_id) << i;
    EXPECT_EQ(got.trip_start_date, want.trip_start_date) << i;
    EXPECT_EQ(got.trip_start_time, want.trip_start_time) << i;
    EXPECT_EQ(got.direction_id, want.direction_id) << i;
    EXPECT_EQ(got.mode, want.mode) << i;
    EXPECT_EQ(got.lat, want.lat) << i;
    EXPECT_EQ(got.lon, want.lon) << i;
    EXPECT_TRUE(got.reported_speed_kmh == want.reported_speed_kmh ||
                (std::isnan(got.reported_speed_kmh) && std::isnan(want.reported_speed_kmh)));
    EXPECT_EQ(got.event_time, want.event_time) << i;
    EXPECT_EQ(got.ingest_time, want.ingest_time) << i;
    EXPECT_EQ(got.source.offset, want.source.offset) << i;
    EXPECT_EQ(interned.position_keys[i].feed, model::StringDictionary::TextHash(want.feed_id));
    EXPECT_EQ(interned.position_keys[i].vehicle,
              model::StringDictionary::TextHash(want.vehicle_id));
  }
  for (std::size_t i = 0; i < decoded.rejections.size(); ++i) {
    const model::Rejection& want = decoded.rejections[i];
    const model::Rejection got = model::MaterializeRejection(interned.rejections[i], *strings);
    EXPECT_EQ(got.reason, want.reason) << i;
    EXPECT_EQ(got.vehicle_id, want.vehicle_id) << i;
    EXPECT_EQ(got.detail, want.detail) << i;
    EXPECT_EQ(got.event_time, want.event_time) << i;
    EXPECT_EQ(got.source.offset, want.source.offset) << i;
    EXPECT_EQ(interned.rejection_keys[i].vehicle,
              model::StringDictionary::TextHash(want.vehicle_id));
  }
  return (*reader)->repeated_rows();
}

TEST(ArchiveCsvReader, InterningAsItReadsGivesTheDecodedRecordsInterned) {
  // Ordinary rows of vehicles changing route, trip, date and direction, a quoted row and
  // bad cells, read both ways in odd chunks: each interned record is its decoded one, its
  // texts by id, with its key's hashes.
  std::string text(kHeader);
  text +=
      "0,2022-06-30 00:00:00,3,\"86,811\",2022-06-30 03:34:51,2022-06-30 03:35:20,-22.99,"
      "-43.59,\"13\",\"ITI \"\"IDA\"\"\nsecond line\",0,I,13,B1\n";
  for (int i = 0; i < 400; ++i) {
    const std::string vehicle = fmt::format("{}", i % 7 == 0 ? 13 : 100 + i % 17);
    const std::string gps = fmt::format("2022-06-30 03:{:02d}:{:02d}", i / 60 % 60, i % 60);
    text += Row(vehicle, gps, "2022-06-30 04:10:00", i % 53 == 0 ? "abc" : "-22.99",
                (i / 90) % 2 == 0 ? "2022-06-30 00:00:00" : "2022-07-01", i % 3 == 0 ? "V" : "I");
  }
  text += "0,bad\n" + Row("", "2022-06-30 03:34:51", "2022-06-30 03:35:20");
  DecodeOptions options;
  options.feed_id = "rio-brt";
  options.first_offset = 50;
  const DecodedBatch decoded = DecodeText(text, options);
  ASSERT_GT(decoded.positions.size(), 350U);
  ASSERT_GT(decoded.rejections.size(), 5U);
  // One capture time: no row has a previous capture to repeat.
  EXPECT_EQ(ExpectInternedAsDecoded(text, options, 37), 0);
}

TEST(ArchiveCsvReader, ARowRepeatedFromThePreviousCaptureGivesTheRecordDecodingWould) {
  // Captures 15 s apart, each listing every vehicle's latest GPS row, as Rio's archive
  // does: most rows repeat the vehicle's row one capture earlier but for the capture time
  // (and the columns frota does not read: index, hora, sentido, trip_short_name). Others
  // differ from it in one column that is read, each column in turn; vehicles leave,
  // return, swap places and arrive; a capture is interrupted by a row without a capture
  // time, one with a bad capture time, a quoted row, a short row; and a repeated row's
  // capture time may be unreadable. Read interned, in chunks of every size from 1, each
  // record must be the one decoding gives, and the rows taken from the previous capture
  // must be exact repeats, most of them.
  constexpr int kVehicles = 9;
  constexpr int kCaptures = 24;
  struct Cells {
    std::string data = "2022-06-30 00:00:00";
    std::string gps;
    std::string lat = "-22.993042";
    std::string lon = "-43.597977";
    std::string servico = "13";
    std::string velocidade = "47";
    std::string direction = "I";
    std::string trip = "B0013AAF0AIDU01";
  };
  const auto row = [](int index, const std::string& vehicle, const std::string& capture,
                      const Cells& c) {
    return fmt::format("{},{},{},{},{},{},{},{},{},sentido {},{},{},13,{}\n", index, c.data,
                       index % 24, vehicle, c.gps, capture, c.lat, c.lon, c.servico, index,
                       c.velocidade, c.direction, c.trip);
  };
  std::string text(kHeader);
  std::map<std::string, std::string> last_row_text;  // a vehicle's row without capture
  std::int64_t exact_repeats = 0;  // rows equal in every read column to the previous capture's
  std::map<int, Cells> cells;
  int index = 0;
  for (int c = 0; c < kCaptures; ++c) {
    const std::string capture = fmt::format("2022-06-30 04:{:02d}:{:02d}", c / 4, c % 4 * 15);
    std::vector<int> order;
    for (int v = 0; v < kVehicles; ++v) {
      const bool away = (v == 3 && c % 6 == 2) || (v == 7 && c >= 10 && c < 13);
      const bool new_vehicle = v == 8 && c < 5;
      if (!away && !new_vehicle) {
        order.push_back(v);
      }
    }
    if (c % 5 == 4) {
      std::swap(order[1], order[2]);
    }
    std::map<std::string, std::string> this_capture;
    for (std::size_t k = 0; k < order.size(); ++k) {
      const int v = order[k];
      Cells& cell = cells[v];
      // A new GPS report every other capture (every third for odd vehicles).
      if (c % (v % 2 == 0 ? 2 : 3) == 0 || cell.gps.empty()) {
        const int second = 4 * 3600 + c * 15 - v;
        cell.gps = fmt::format("2022-06-30 0{}:{:02d}:{:02d}", second / 3600, second / 60 % 60,
                               second % 60);
        cell.lat = fmt::format("-22.99{:04d}", c * 10 + v);
      }
      // Some rows differ in one read column only, each column in turn.
      Cells shown = cell;
      switch ((c * kVehicles + v) % 23) {
        case 1:
          shown.lon = "-43.597978";
          break;
        case 4:
          shown.servico = "14";
          break;
        case 7:
          shown.velocidade = "48";
          break;
        case 10:
          shown.direction = "V";
          break;
        case 13:
          shown.trip = "B0013AAF0AIDU02";
          break;
        case 16:
          shown.data = "2022-07-01";
          break;
        case 19:
          shown.lat = "-22.99304";
          break;  // the same number, another text
        default:
          break;
      }
      const std::string vehicle = fmt::format("B{}", 30 + v);
      std::string capture_text = capture;
      if (c == 9 && v == 5) {
        capture_text = "2022-06-30 04:02:2x";  // unreadable: refused (a capture of its own)
      }
      const std::string line = row(index++, vehicle, capture_text, shown);
      text += line;
      const std::string read_part =
          fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}", shown.data, vehicle, shown.gps, shown.lat,
                      shown.lon, shown.servico, shown.velocidade, shown.direction, shown.trip);
      if (capture_text == capture) {
        if (last_row_text.contains(vehicle) && last_row_text[vehicle] == read_part) {
          ++exact_repeats;
        }
        this_capture[vehicle] = read_part;
      }
      if (k == 3 && c % 7 == 3) {
        text += row(index++, "B99", "", cells[0]);  // no capture time: refused
      }
      if (k == 4 && c == 12) {
        text += "0,short,row\n";
        text += fmt::format(
            "{},2022-06-30 00:00:00,3,\"B{}\",{},{},-22.99,-43.59,\"13\",\"ITI \"\"IDA\"\"\","
            "0,I,13,B1\n",
            index++, 30 + v, cell.gps, capture);
      }
    }
    last_row_text = std::move(this_capture);
  }
  DecodeOptions options;
  options.feed_id = "rio-brt";
  options.first_offset = 7;
  ASSERT_GT(exact_repeats, 50);
  for (const std::size_t chunk : {1, 2, 5, 13, 64, 1000}) {
    SCOPED_TRACE(fmt::format("chunks of {} rows", chunk));
    const std::int64_t repeated = ExpectInternedAsDecoded(text, options, chunk);
    EXPECT_LE(repeated, exact_repeats);
    EXPECT_GE(repeated, exact_repeats * 3 / 4);
  }
  // Given the ingest time, rows carry no capture to repeat: each is decoded.
  options.ingest_time = base::FromUnixSeconds(1'656'570'000);
  EXPECT_EQ(ExpectInternedAsDecoded(text, options, 64), 0);
}

TEST(ArchiveCsvReader, BadCellsBecomeRejectionsWithTheLineNumber) {
  const DecodedBatch batch = DecodeText(
      std::string(kHeader) + Row("", "2022-06-30 03:34:51", "2022-06-30 03:35:20") +
      Row("2", "2022-06-30 03:34:51", "2022-06-30 03:35:20", "") +
      Row("3", "2022-06-30 03:34:51", "2022-06-30 03:35:20", "abc") +
      Row("4", "2022-06-30 03:34:51", "2022-06-30 03:35:20", "-99.5") +
      Row("5", "", "2022-06-30 03:35:20") + Row("6", "yesterday", "2022-06-30 03:35:20") +
      Row("7", "2022-06-30 03:34:51", "") +
      Row("8", "2022-06-30 03:34:51", "2022-06-30 03:35:20", "-22.9", "2022-02-30 00:00:00") +
      Row("9", "2022-06-30 03:34:51", "2022-06-30 03:35:20", "0", "2022-06-30", "X") + "\n" +
      Row("10", "2022-06-30 03:34:51", "2022-06-30 03:35:20"));
  ASSERT_EQ(batch.positions.size(), 2U);
  // A latitude of 0 is fine where the longitude is not; "X" is no direction at all.
  EXPECT_EQ(batch.positions[0].vehicle_id, "9");
  EXPECT_EQ(batch.positions[0].lat, 0.0);
  EXPECT_EQ(batch.positions[0].direction_id, -1);
  EXPECT_EQ(batch.positions[1].vehicle_id, "10");
  EXPECT_EQ(batch.positions[1].source.offset, 9);  // the blank line is not a record
  const std::vector<std::pair<RejectReason, std::string>> expected = {
      {RejectReason::kMissingVehicleId, R"(id_veiculo="" line 2)"},
      {RejectReason::kMissingCoordinates, R"(latitude="" longitude="-43.597977" line 3)"},
      {RejectReason::kMalformedRecord, R"(latitude="abc" line 4)"},
      {RejectReason::kLatitudeOutOfRange, R"(latitude="-99.5" line 5)"},
      {RejectReason::kMissingTimestamp, R"(timestamp_gps="" line 6)"},
      {RejectReason::kMalformedRecord, R"(timestamp_gps="yesterday" line 7)"},
      {RejectReason::kMissingTimestamp, R"(timestamp_captura="" line 8)"},
      {RejectReason::kMalformedRecord, R"(data="2022-02-30 00:00:00" line 9)"},
  };
  ASSERT_EQ(batch.rejections.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(batch.rejections[i].reason, expected[i].first) << i;
    EXPECT_EQ(batch.rejections[i].detail, expected[i].second) << i;
    EXPECT_EQ(batch.rejections[i].feed_id, "rio-archive-csv");
  }
  EXPECT_EQ(batch.rejections[3].vehicle_id, "4");
  EXPECT_EQ(base::FormatIso8601(*batch.rejections[3].event_time), "2022-06-30T06:34:51Z");
  EXPECT_EQ(base::FormatIso8601(*batch.rejections[3].ingest_time), "2022-06-30T06:35:20Z");
}

TEST(ArchiveCsvReader, GzipFilesAndPlainFilesGiveTheSameRecords) {
  std::string csv(kHeader);
  for (int i = 0; i < 3000; ++i) {
    csv += Row(std::to_string(i % 17), "2022-06-30 03:34:51", "2022-06-30 03:35:20");
  }
  const auto plain = TempFile("plain.csv", csv);
  // Two gzip members, as `cat a.gz b.gz` makes: one stream to gunzip.
  const auto gzipped =
      TempFile("two-members.csv.gz", Gzip(csv.substr(0, 1000)) + Gzip(csv.substr(1000)));
  DecodeOptions options;
  options.source = 3;
  auto plain_reader = ArchiveCsvReader::Open(plain, options);
  auto gzip_reader = ArchiveCsvReader::Open(gzipped, options);
  ASSERT_TRUE(plain_reader.ok() && gzip_reader.ok());
  const DecodedBatch from_plain = ReadAll(**plain_reader, 7);
  const DecodedBatch from_gzip = ReadAll(**gzip_reader, 1000);
  ASSERT_EQ(from_plain.positions.size(), 3000U);
  ASSERT_EQ(from_gzip.positions.size(), 3000U);
  for (std::size_t i = 0; i < 3000; ++i) {
    ASSERT_EQ(from_plain.positions[i].vehicle_id, from_gzip.positions[i].vehicle_id);
    ASSERT_EQ(from_gzip.positions[i].source.offset, static_cast<std::int64_t>(i));
    ASSERT_EQ(from_gzip.positions[i].source.source, 3U);
  }
  std::filesystem::remove(plain);
  std::filesystem::remove(gzipped);
}

TEST(ArchiveCsvReader, TruncatedGzipIsAnErrorNamingFileAndByte) {
  std::string csv(kHeader);
  for (int i = 0; i < 2000; ++i) {
    csv += Row(std::to_string(i), "2022-06-30 03:34:51", "2022-06-30 03:35:20");
  }
  const std::string gz = Gzip(csv);
  const auto path = TempFile("truncated.csv.gz", gz.substr(0, gz.size() / 2));
  auto reader = ArchiveCsvReader::Open(path, {});
  ASSERT_TRUE(reader.ok()) << reader.error().message();
  DecodedBatch batch;
  base::Result<bool> more = true;
  while (more.ok() && *more) {
    more = (*reader)->Next(batch, 100);
  }
  ASSERT_FALSE(more.ok());
  EXPECT_NE(more.error().message().find(path.string()), std::string::npos);
  EXPECT_NE(more.error().message().find("truncated at compressed byte"), std::string::npos)
      << more.error().message();
  std::filesystem::remove(path);
}

TEST(ArchiveCsvReader, AHeaderWithoutTheNeededColumnsIsAnError) {
  auto reader = ArchiveCsvReader::FromBytes("index,data,latitude,longitude\n1,2,3,4\n", {});
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.error().message().find("no column 'id_veiculo'"), std::string::npos)
      << reader.error().message();
  EXPECT_FALSE(ArchiveCsvReader::FromBytes("", {}).ok());
  EXPECT_FALSE(ArchiveCsvReader::Open("/nonexistent/file.csv", {}).ok());
}

TEST(ArchiveCsvReader, DecodeResponseReadsACsvHeldInMemory) {
  const std::string csv = std::string(kHeader) +
                          Row("1", "2022-06-30 03:34:51", "2022-06-30 03:35:20") +
                          Row("2", "2022-06-30 03:34:51", "2022-06-30 03:35:20", "91");
  DecodedBatch batch;
  DecodeOptions options;
  options.first_offset = 10;
  const auto info = DecodeResponse(Format::kRioArchiveCsv, Gzip(csv), options, batch);
  ASSERT_TRUE(info.ok()) << info.error().message();
  EXPECT_EQ(info->records, 2);
  EXPECT_EQ(batch.positions.size(), 1U);
  EXPECT_EQ(batch.rejections.at(0).source.offset, 11);
}

}  // namespace
}  // namespace frota::codec
