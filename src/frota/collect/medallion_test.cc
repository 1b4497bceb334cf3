#include "frota/collect/medallion.h"

#include <gtest/gtest.h>

#include "frota/base/file.h"
#include "frota/sink/duckdb_connection.h"
#include "frota/testing/shared_data.h"
#include "frota/testing/subprocess.h"

namespace frota::collect {
namespace {

PolledResponse OpenSkyResponse(const std::string& body, std::int64_t ingest_seconds,
                               const std::string& file) {
  PolledResponse r;
  r.feed_id = "opensky";
  r.bronze_file = file;
  r.ingest_time = base::FromUnixSeconds(ingest_seconds);
  r.bytes = static_cast<std::int64_t>(body.size());
  r.format = codec::Format::kOpenSky;
  r.body = body;
  r.time_zone = "America/Sao_Paulo";
  codec::DecodeOptions options;
  options.feed_id = r.feed_id;
  options.ingest_time = r.ingest_time;
  r.decoded = codec::DecodeResponse(codec::Format::kOpenSky, body, options, r.batch).ok();
  return r;
}

class MedallionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto writer =
        MedallionWriter::Open(dir_.path() / "silver", dir_.path() / "gold", "t", job::JobConfig{});
    ASSERT_TRUE(writer.ok()) << writer.error().message();
    writer_ = std::move(*writer);
    auto db = sink::DuckDbConnection::Open("");
    ASSERT_TRUE(db.ok());
    db_ = std::move(*db);
  }
  sink::DuckDbResult Query(const std::string& sql) {
    auto r = db_->Query(sql);
    EXPECT_TRUE(r.ok()) << sql << ": " << (r.ok() ? "" : r.error().message());
    return std::move(r).value();
  }
  std::string Glob(const std::string& table) const {
    return "read_parquet('" + dir_.path().string() + "/" + table + "/**/*.parquet')";
  }

  frota::testing::TempDir dir_{"medallion"};
  std::unique_ptr<MedallionWriter> writer_;
  std::unique_ptr<sink::DuckDbConnection> db_;
};

TEST_F(MedallionTest, SilverCarriesEveryStateVectorFieldOfARealExtendedCapture) {
  FROTA_REQUIRE_SHARED(path, "opensky/global_states_all_extended_1649392659.json");
  const auto body = base::ReadFile(path);
  ASSERT_TRUE(body.ok());
  auto response = OpenSkyResponse(*body, 1649392659, "bronze/a.json");
  const auto records = response.batch.size();
  const auto refused = writer_->Add(std::move(response));
  ASSERT_TRUE(writer_->Flush(base::FromUnixSeconds(1649392700)).ok());
  const auto stats = writer_->stats();
  ASSERT_GT(stats.accepted, 1000);

  auto all = Query(
      "SELECT count(*), count(icao24), count(origin_country), count(category), "
      "count(last_contact_at), min(typeof(sensors)) FROM " +
      Glob("silver/positions"));
  EXPECT_EQ(all.Int64(0, 0), stats.accepted);
  EXPECT_EQ(all.Int64(0, 1), stats.accepted);  // every accepted row has its state vector
  EXPECT_EQ(all.Int64(0, 2), stats.accepted);
  EXPECT_EQ(all.Int64(0, 3), stats.accepted);  // 18 fields: category everywhere
  EXPECT_EQ(all.Int64(0, 4), stats.accepted);
  EXPECT_EQ(all.String(0, 5), "INTEGER[]");

  // The capture's first state, field by field (docs/state-vectors.rst units).
  auto row = Query(
      "SELECT icao24, callsign, origin_country, time_position, last_contact, last_contact_at, "
      "longitude, latitude, barometric_altitude_m, on_ground, velocity_mps, velocity_kmh, "
      "true_track_deg, vertical_rate_mps, sensors IS NULL, geo_altitude_m, squawk, spi, "
      "position_source, category, vehicle_id, route_id, record_index FROM " +
      Glob("silver/positions") + " WHERE icao24 = '4b1816'");
  ASSERT_EQ(row.rows(), 1U);
  EXPECT_EQ(row.String(0, 0), "4b1816");
  EXPECT_EQ(row.String(0, 1), "SWR1951");
  EXPECT_EQ(row.String(0, 2), "Switzerland");
  EXPECT_EQ(row.Int64(0, 3), 1649392658);
  EXPECT_EQ(row.Int64(0, 4), 1649392658);
  EXPECT_EQ(row.String(0, 5), "2022-04-08T01:37:38-03:00");
  EXPECT_DOUBLE_EQ(row.Double(0, 6), 3.6738);
  EXPECT_DOUBLE_EQ(row.Double(0, 7), 41.8384);
  EXPECT_DOUBLE_EQ(row.Double(0, 8), 8534.4);
  EXPECT_EQ(row.String(0, 9), "false");
  EXPECT_DOUBLE_EQ(row.Double(0, 10), 258.66);
  EXPECT_DOUBLE_EQ(row.Double(0, 11), 258.66 * 3.6);
  EXPECT_DOUBLE_EQ(row.Double(0, 12), 66.19);
  EXPECT_DOUBLE_EQ(row.Double(0, 13), 0);
  EXPECT_EQ(row.String(0, 14), "true");
  EXPECT_DOUBLE_EQ(row.Double(0, 15), 8755.38);
  EXPECT_EQ(row.String(0, 16), "5551");
  EXPECT_EQ(row.String(0, 17), "false");
  EXPECT_EQ(row.Int64(0, 18), 0);
  EXPECT_EQ(row.Int64(0, 19), 0);
  EXPECT_EQ(row.String(0, 20), "4b1816");
  EXPECT_EQ(row.String(0, 21), "SWR1951");
  EXPECT_EQ(row.Int64(0, 22), 0);

  // Every refusal keeps its state vector as received.
  std::int64_t rejected = 0;
  for (const auto& [reason, n] : refused) {
    rejected += n;
  }
  EXPECT_EQ(stats.accepted + rejected, static_cast<std::int64_t>(records));
  auto refusals = Query("SELECT count(*), count(state_vector), min(left(state_vector, 1)) FROM " +
                        Glob("silver/rejected"));
  EXPECT_EQ(refusals.Int64(0, 0), rejected);
  EXPECT_EQ(refusals.Int64(0, 1), rejected);
  EXPECT_EQ(refusals.String(0, 2), "[");

  // Gold: the poll's latest contact is its largest last_contact.
  auto summary = Query(
      "SELECT latest_contact = to_timestamp(1649392659)::TIMESTAMP, "
      "observations FROM " +
      Glob("gold/poll_summary"));
  EXPECT_EQ(summary.String(0, 0), "true");
  EXPECT_EQ(summary.Int64(0, 1), static_cast<std::int64_t>(records));
}

TEST_F(MedallionTest, OtherFeedsHaveNullAircraftColumnsAndShortVectorsKeepTheirRawText) {
  const std::string body =
      R"({"time":1700000000,"states":[["abc123","AZU4000 ","Brazil",1700000000,1700000000,-43.2,-22.9,1000.0,)"
      R"(false,100.0,90.0,0.0,null,1050.0,null,false,0],["def456","X"]]})";
  auto opensky = OpenSkyResponse(body, 1700000001, "bronze/o.json");
  writer_->Add(std::move(opensky));
  PolledResponse bus;
  bus.feed_id = "bus";
  bus.bronze_file = "bronze/b.pb";
  bus.ingest_time = base::FromUnixSeconds(1700000001);
  bus.decoded = true;
  auto& p = bus.batch.positions.emplace_back();
  p.feed_id = "bus";
  p.vehicle_id = "B1";
  p.lat = -22.9;
  p.lon = -43.2;
  p.event_time = base::FromUnixSeconds(1700000000);
  p.ingest_time = bus.ingest_time;
  writer_->Add(std::move(bus));
  ASSERT_TRUE(writer_->Flush(base::FromUnixSeconds(1700000002)).ok());

  auto rows = Query(
      "SELECT feed_id, icao24, origin_country, velocity_kmh, squawk, category, "
      "last_contact_at FROM " +
      Glob("silver/positions") + " ORDER BY feed_id");
  ASSERT_EQ(rows.rows(), 2U);
  EXPECT_EQ(rows.String(0, 0), "bus");
  for (std::size_t c = 1; c < 7; ++c) {
    EXPECT_TRUE(rows.IsNull(0, c)) << c;
  }
  EXPECT_EQ(rows.String(1, 1), "abc123");
  EXPECT_EQ(rows.String(1, 2), "Brazil");
  EXPECT_DOUBLE_EQ(rows.Double(1, 3), 360);
  EXPECT_TRUE(rows.IsNull(1, 4));  // squawk null
  EXPECT_TRUE(rows.IsNull(1, 5));  // 17 fields: no category
  EXPECT_EQ(rows.String(1, 6), "2023-11-14T19:13:20-03:00");

  auto refused = Query("SELECT reason, state_vector FROM " + Glob("silver/rejected"));
  ASSERT_EQ(refused.rows(), 1U);
  EXPECT_EQ(refused.String(0, 0), "state_vector_too_short");
  EXPECT_EQ(refused.String(0, 1), R"(["def456","X"])");

  auto summaries = Query("SELECT feed_id, latest_contact IS NULL FROM " +
                         Glob("gold/poll_summary") + " ORDER BY feed_id");
  ASSERT_EQ(summaries.rows(), 2U);
  EXPECT_EQ(summaries.String(0, 1), "true");   // bus: no contact time
  EXPECT_EQ(summaries.String(1, 1), "false");  // opensky
}

// semantics.md section 8: the latest state of an aircraft is its largest last_contact,
// even when that state's position is older than another state's.
TEST_F(MedallionTest, LatestAircraftStateIsTheLargestLastContact) {
  const std::string first =
      R"({"time":1700000000,"states":[["abc123","A","Brazil",1700000000,1700000000,-43.2,-22.9,1000.0,)"
      R"(false,100.0,90.0,0.0,null,1050.0,null,false,0]]})";
  const std::string second =
      R"({"time":1700000010,"states":[["abc123","A","Brazil",1699999990,1700000010,-43.3,-22.9,1000.0,)"
      R"(false,100.0,90.0,0.0,null,1050.0,null,false,0]]})";
  writer_->Add(OpenSkyResponse(first, 1700000001, "bronze/1.json"));
  writer_->Add(OpenSkyResponse(second, 1700000011, "bronze/2.json"));
  ASSERT_TRUE(writer_->Flush(base::FromUnixSeconds(1700000012)).ok());
  auto latest = Query("SELECT count(*), max(last_contact), max(bronze_file) FROM " +
                      Glob("gold/latest_state"));
  EXPECT_EQ(latest.Int64(0, 0), 1);
  EXPECT_EQ(latest.Int64(0, 1), 1700000010);
  EXPECT_EQ(latest.String(0, 2), "bronze/2.json");
}

}  // namespace
}  // namespace frota::collect
