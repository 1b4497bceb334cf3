#include "frota/gtfs/static_feed.h"

#include <gtest/gtest.h>
#include <zip.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "frota/base/file.h"
#include "frota/testing/shared_data.h"

namespace frota::gtfs {
namespace {

constexpr char kBrt2022[] = "rio-brt-2022/gtfs";
constexpr char kBrt2021[] = "rio-brt-gtfs-2021";
constexpr char kBrt2021Zip[] = "rio-brt-gtfs-2021/original_gtfs_2021-04-07.zip";
constexpr char kCaltrain[] = "gtfs-rt/caltrain/ct.zip";
constexpr char kBullrunner[] = "gtfs-rt/bullrunner/bullrunner-gtfs.zip";
constexpr char kAngra[] = "gtfs-rt/angra-malformed/gtfs.zip";

std::filesystem::path Fixture(std::string_view relative) {
  return std::filesystem::path(FROTA_GTFS_FIXTURES) / relative;
}

base::LocalDate Day(std::string_view text) { return *base::ParseDate(text); }

StaticFeed MustLoad(const std::filesystem::path& path) {
  auto feed = StaticFeed::Load(path);
  EXPECT_TRUE(feed.ok()) << (feed.ok() ? "" : feed.error().message());
  return std::move(feed).value();
}

std::string LoadError(const std::filesystem::path& path) {
  const auto feed = StaticFeed::Load(path);
  return feed.ok() ? std::string("(loaded)") : feed.error().message();
}

// --- An independent reading of a table, for cross-checking the loader on real
// feeds: plain line splitting, valid for tables without quoted commas or line breaks
// in the columns it looks at (true of every table it is used on here).

std::string ReadMember(const std::filesystem::path& feed, const std::string& table) {
  if (std::filesystem::is_directory(feed)) {
    for (const char* extension : {".txt", ".csv"}) {
      if (auto bytes = base::ReadFile(feed / (table + extension)); bytes.ok()) {
        return *bytes;
      }
    }
    return {};
  }
  int error = 0;
  zip_t* zip = zip_open(feed.c_str(), ZIP_RDONLY, &error);
  if (zip == nullptr) {
    return {};
  }
  std::string bytes;
  for (const char* extension : {".txt", ".csv"}) {
    zip_stat_t stat;
    if (zip_stat(zip, (table + extension).c_str(), 0, &stat) == 0) {
      zip_file_t* file = zip_fopen_index(zip, stat.index, 0);
      bytes.resize(stat.size);
      zip_fread(file, bytes.data(), stat.size);
      zip_fclose(file);
      break;
    }
  }
  zip_discard(zip);
  return bytes;
}

std::vector<std::vector<std::string>> SplitLines(const std::string& bytes) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(bytes.starts_with("\xEF\xBB\xBF") ? bytes.substr(3) : bytes);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    if (line.empty()) {
      continue;
    }
    std::vector<std::string> fields;
    std::stringstream fields_in(line);
    std::string field;
    while (std::getline(fields_in, field, ',')) {
      fields.push_back(field);
    }
    rows.push_back(fields);
  }
  return rows;
}

std::int64_t DataLines(const std::filesystem::path& feed, const std::string& table) {
  const auto rows = SplitLines(ReadMember(feed, table));
  return rows.empty() ? 0 : static_cast<std::int64_t>(rows.size()) - 1;
}

std::set<std::string> Distinct(const std::filesystem::path& feed, const std::string& table,
                               const std::string& column) {
  const auto rows = SplitLines(ReadMember(feed, table));
  std::set<std::string> values;
  if (rows.empty()) {
    return values;
  }
  const auto at = std::find(rows[0].begin(), rows[0].end(), column) - rows[0].begin();
  for (std::size_t i = 1; i < rows.size(); ++i) {
    values.insert(rows[i][static_cast<std::size_t>(at)]);
  }
  return values;
}

void ExpectCountsMatchAnIndependentReading(const std::filesystem::path& path,
                                           const StaticFeed& feed) {
  const FeedCounts counts = feed.counts();
  EXPECT_EQ(counts.agencies, DataLines(path, "agency"));
  EXPECT_EQ(counts.routes, DataLines(path, "routes"));
  EXPECT_EQ(counts.trips, DataLines(path, "trips"));
  EXPECT_EQ(counts.stops, DataLines(path, "stops"));
  EXPECT_EQ(counts.stop_times, DataLines(path, "stop_times"));
  EXPECT_EQ(counts.frequencies, DataLines(path, "frequencies"));
  EXPECT_EQ(counts.shapes, static_cast<std::int64_t>(Distinct(path, "shapes", "shape_id").size()));
  std::set<std::string> services = Distinct(path, "calendar", "service_id");
  services.merge(Distinct(path, "calendar_dates", "service_id"));
  EXPECT_EQ(counts.services, static_cast<std::int64_t>(services.size()));
  EXPECT_EQ(feed.first_stop_departures().size(), Distinct(path, "stop_times", "trip_id").size());
  std::int64_t points = 0;
  for (const Shape& shape : feed.shapes()) {
    points += static_cast<std::int64_t>(shape.points.size());
  }
  EXPECT_EQ(points, DataLines(path, "shapes"));
}

// --- Real feeds.

TEST(StaticFeedBrt2022, LoadsTheCsvFolderWithItsOutOfOrderCalendar) {
  FROTA_REQUIRE_SHARED(path, kBrt2022);
  const StaticFeed feed = MustLoad(path);
  const FeedCounts c = feed.counts();
  EXPECT_EQ(c.agencies, 1);
  EXPECT_EQ(c.routes, 24);
  EXPECT_EQ(c.trips, 48);
  EXPECT_EQ(c.shapes, 48);
  EXPECT_EQ(c.stops, 328);
  EXPECT_EQ(c.stop_times, 796);
  EXPECT_EQ(c.frequencies, 230);
  EXPECT_EQ(c.services, 1);
  ExpectCountsMatchAnIndependentReading(path, feed);
  EXPECT_EQ(feed.time_zone(), "America/Sao_Paulo");

  ASSERT_EQ(feed.calendars().size(), 1u);
  const Calendar& u = feed.calendars()[0];
  EXPECT_EQ(u.service_id, "U");
  // Columns monday,tuesday,wednesday,thursday,saturday,friday,start_date,sunday,end_date.
  EXPECT_EQ(u.weekdays, (std::array<bool, 7>{true, true, true, true, true, false, false}));
  EXPECT_EQ(u.start, Day("2022-07-16"));
  EXPECT_EQ(u.end, Day("2022-12-31"));
  EXPECT_EQ(feed.calendar_dates().size(), 7u);
}

TEST(StaticFeedBrt2022, KnowsRoutesTripsShapesAndFirstStops) {
  FROTA_REQUIRE_SHARED(path, kBrt2022);
  const StaticFeed feed = MustLoad(path);
  const Route* route = feed.FindRoute("B0053AABBA");
  ASSERT_NE(route, nullptr);
  EXPECT_EQ(route->short_name, "B53");
  EXPECT_EQ(route->long_name, "Sulacap - Jardim Oceânico");
  EXPECT_EQ(route->type, 3);
  EXPECT_EQ(feed.FindRoute("nope"), nullptr);
  const Stop* platform = feed.FindStop("3041BC0001U1");
  ASSERT_NE(platform, nullptr);
  EXPECT_EQ(platform->location_type, 0);

  const Trip* trip = feed.FindTrip("B0013AAF0AIDU01");
  ASSERT_NE(trip, nullptr);
  EXPECT_EQ(trip->route_id, "B0013AAF0A");
  EXPECT_EQ(trip->headsign, "Terminal Alvorada");
  EXPECT_EQ(trip->direction_id, 0);
  EXPECT_EQ(trip->service_id, "U");

  const Shape* shape = feed.FindShape("B0013AAF0AIDU01");
  ASSERT_NE(shape, nullptr);
  ASSERT_EQ(shape->points.size(), 520u);
  EXPECT_DOUBLE_EQ(shape->points.front().lat, -22.9941058221492);
  EXPECT_DOUBLE_EQ(shape->points.front().lon, -43.5965531841024);
  EXPECT_EQ(shape->points.front().dist_traveled, 0);
  EXPECT_DOUBLE_EQ(shape->points.back().lat, -23.0009916692882);
  EXPECT_EQ(shape->points.back().dist_traveled, 24898);

  const FirstStopDeparture* first = feed.FindFirstStop("B0013AAF0AIDU01");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->stop_id, "5151BO0003X1");
  EXPECT_EQ(first->departure_s, 0);
  const LastStopArrival* last = feed.FindLastStop("B0013AAF0AIDU01");
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->stop_id, "4128B00225P0");
  EXPECT_EQ(last->arrival_s, 1 * 3600 + 9 * 60 + 9);

  const Stop* stop = feed.FindStop("3041BC0001U1");
  ASSERT_NE(stop, nullptr);
  EXPECT_EQ(stop->name, "Cardoso de Moraes");
  EXPECT_DOUBLE_EQ(stop->lat, -22.85749);

  const Frequency& frequency = feed.frequencies().front();
  EXPECT_EQ(frequency.trip_id, "B0010AAF0AVDU01");
  EXPECT_EQ(frequency.start_s, 7 * 3600);
  EXPECT_EQ(frequency.end_s, 8 * 3600 + 50 * 60);
  EXPECT_EQ(frequency.headway_s, 600);
  EXPECT_FALSE(frequency.exact_times);
}

TEST(StaticFeedBrt2022, ActiveServicesFollowCalendarAndItsRemovals) {
  FROTA_REQUIRE_SHARED(path, kBrt2022);
  const StaticFeed feed = MustLoad(path);
  using Services = std::vector<std::string>;
  EXPECT_EQ(feed.ActiveServices(Day("2022-07-15")), Services{}) << "Friday before the start";
  EXPECT_EQ(feed.ActiveServices(Day("2022-07-18")), Services{"U"}) << "a Monday";
  EXPECT_EQ(feed.ActiveServices(Day("2022-09-06")), Services{"U"}) << "a Tuesday";
  EXPECT_EQ(feed.ActiveServices(Day("2022-09-07")), Services{}) << "Independence Day, removed";
  EXPECT_EQ(feed.ActiveServices(Day("2022-07-23")), Services{}) << "a Saturday";
  EXPECT_EQ(feed.ActiveServices(Day("2022-07-24")), Services{}) << "a Sunday";
  EXPECT_EQ(feed.ActiveServices(Day("2022-12-30")), Services{"U"}) << "last Friday";
  EXPECT_EQ(feed.ActiveServices(Day("2022-12-31")), Services{}) << "a Saturday, also removed";
  EXPECT_EQ(feed.ActiveServices(Day("2023-01-02")), Services{}) << "after the end";
}

TEST(StaticFeedBrt2021, LoadsTheTxtFolderIgnoringNonStandardColumnsAndFiles) {
  FROTA_REQUIRE_SHARED(path, kBrt2021);
  const StaticFeed feed = MustLoad(path);
  const FeedCounts c = feed.counts();
  EXPECT_EQ(c.agencies, 1);
  EXPECT_EQ(c.routes, 22);
  EXPECT_EQ(c.trips, 90);
  EXPECT_EQ(c.shapes, 54);
  EXPECT_EQ(c.stops, 424);
  EXPECT_EQ(c.stop_times, 1526);
  EXPECT_EQ(c.frequencies, 1372);
  EXPECT_EQ(c.services, 3);
  ExpectCountsMatchAnIndependentReading(path, feed);
  EXPECT_EQ(feed.first_stop_departures().size(), 89u) << "one trip has no stop_times";
  // route_id is the second column, after old_route_id.
  ASSERT_NE(feed.FindRoute("20000101130"), nullptr);
  EXPECT_EQ(feed.FindRoute("20000101130")->short_name, "BRT_10");
  EXPECT_EQ(feed.FindRoute("2000010130"), nullptr) << "old_route_id is not an id";
  using Services = std::vector<std::string>;
  EXPECT_EQ(feed.ActiveServices(Day("2021-04-07")), Services{"U"});
  EXPECT_EQ(feed.ActiveServices(Day("2021-04-10")), Services{"S"});
  EXPECT_EQ(feed.ActiveServices(Day("2021-04-11")), Services{"D"});
  EXPECT_EQ(feed.ActiveServices(Day("2021-08-31")), Services{});
}

TEST(StaticFeedBrt2021, TheOriginalZipIsRejectedBecauseItsTablesAreMalformed) {
  // The untouched export does NOT load to the folder's counts: its stops.csv has two
  // rows with an unquoted comma in stop_desc ("Av. Embaixador Abelardo Bueno, 73-141"),
  // its shapes.csv writes decimal commas unquoted (-23,001025), its frequencies.csv
  // has JavaScript dates as times, and its stop_times.csv is empty. The first problem
  // in load order is the one reported.
  FROTA_REQUIRE_SHARED(path, kBrt2021Zip);
  const std::string error = LoadError(path);
  EXPECT_NE(error.find("original_gtfs_2021-04-07.zip/stops.csv: line 384: 15 fields, but the "
                       "header has 14"),
            std::string::npos)
      << error;
}

TEST(StaticFeedCaltrain, LoadsTheZipWithCrlfAndShortHourTimes) {
  FROTA_REQUIRE_SHARED(path, kCaltrain);
  const StaticFeed feed = MustLoad(path);
  const FeedCounts c = feed.counts();
  EXPECT_EQ(c.agencies, 1);
  EXPECT_EQ(c.routes, 9);
  EXPECT_EQ(c.trips, 176);
  EXPECT_EQ(c.shapes, 33);
  EXPECT_EQ(c.stops, 109);
  EXPECT_EQ(c.stop_times, 3498);
  EXPECT_EQ(c.frequencies, 0);
  EXPECT_EQ(c.services, 3);
  ExpectCountsMatchAnIndependentReading(path, feed);
  EXPECT_EQ(feed.time_zone(), "America/Los_Angeles");
  const FirstStopDeparture* first = feed.FindFirstStop("501");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->stop_id, "70271");
  EXPECT_EQ(first->departure_s, 5 * 3600);  // written 5:00:00
  using Services = std::vector<std::string>;
  EXPECT_EQ(feed.ActiveServices(Day("2023-11-20")), Services{"72982"}) << "a Monday";
  EXPECT_EQ(feed.ActiveServices(Day("2023-11-04")), Services{"72981"}) << "a Saturday";
  EXPECT_EQ(feed.ActiveServices(Day("2023-10-07")), Services{}) << "a Saturday removed";
  EXPECT_EQ(feed.ActiveServices(Day("2023-11-23")), Services{"72981"})
      << "Thanksgiving: weekday service removed, weekend service added";
  EXPECT_EQ(feed.ActiveServices(Day("2023-11-24")), Services{"79159"})
      << "the day after: a service that exists only in calendar_dates";
}

TEST(StaticFeedBullrunner, LoadsAZipWithoutAgencyIdAndWithAPaddedHeader) {
  FROTA_REQUIRE_SHARED(path, kBullrunner);
  const StaticFeed feed = MustLoad(path);
  const FeedCounts c = feed.counts();
  EXPECT_EQ(c.agencies, 1);
  EXPECT_EQ(c.routes, 6);
  EXPECT_EQ(c.trips, 15);
  EXPECT_EQ(c.shapes, 6);
  EXPECT_EQ(c.stops, 125);
  EXPECT_EQ(c.stop_times, 473);
  EXPECT_EQ(c.frequencies, 15);
  EXPECT_EQ(c.services, 3);
  ExpectCountsMatchAnIndependentReading(path, feed);
  EXPECT_EQ(feed.agencies()[0].id, "");
  EXPECT_EQ(feed.time_zone(), "America/New_York");
  // frequencies.txt's header says " exact_times"; end_time 24:00:00 passes midnight.
  EXPECT_EQ(feed.frequencies()[0].end_s, 24 * 3600);
  EXPECT_FALSE(feed.frequencies()[0].exact_times);
}

TEST(StaticFeedAngra, LoadsTheCompleteFeedWithByteOrderMarks) {
  FROTA_REQUIRE_SHARED(path, kAngra);
  const StaticFeed feed = MustLoad(path);
  const FeedCounts c = feed.counts();
  EXPECT_EQ(c.agencies, 1);
  EXPECT_EQ(c.routes, 47);
  EXPECT_EQ(c.trips, 3024);
  EXPECT_EQ(c.shapes, 88);
  EXPECT_EQ(c.stops, 784);
  EXPECT_EQ(c.stop_times, 135007);
  EXPECT_EQ(c.frequencies, 0);
  EXPECT_EQ(c.services, 7);
  ExpectCountsMatchAnIndependentReading(path, feed);
  EXPECT_EQ(feed.time_zone(), "America/Sao_Paulo");
  const FirstStopDeparture* first = feed.FindFirstStop("101_00_S1_T01");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->stop_id, "CJA001BR");
  EXPECT_EQ(first->departure_s, 7 * 3600);
}

// --- Self-made fixtures (tests/data/gtfs, see its README.md).

TEST(StaticFeedQuirks, ReadsQuotesBomCrlfLoneCrShuffledColumnsAndBothDateForms) {
  const StaticFeed feed = MustLoad(Fixture("quirks"));
  const FeedCounts c = feed.counts();
  EXPECT_EQ(c.agencies, 1);
  EXPECT_EQ(c.routes, 2);
  EXPECT_EQ(c.trips, 3);
  EXPECT_EQ(c.shapes, 1);
  EXPECT_EQ(c.stops, 5);
  EXPECT_EQ(c.stop_times, 7);
  EXPECT_EQ(c.frequencies, 2);
  EXPECT_EQ(c.services, 3);

  EXPECT_EQ(feed.agencies()[0].name, "Viação \"Teste\", Ltda");
  EXPECT_EQ(feed.agencies()[0].id, "T");
  const Route* r1 = feed.FindRoute("R1");
  ASSERT_NE(r1, nullptr);
  EXPECT_EQ(r1->long_name, "Centro - Barra\n(via Túnel)");
  EXPECT_EQ(r1->short_name, "53B");
  EXPECT_EQ(r1->type, 700);
  EXPECT_EQ(r1->agency_id, "T");
  EXPECT_EQ(feed.FindTrip("T2")->headsign, "Centro \"Norte\"");
  EXPECT_EQ(feed.FindTrip("T2")->direction_id, 1);
  EXPECT_EQ(feed.FindTrip("T3")->direction_id, -1);
  EXPECT_EQ(feed.FindStop("B")->name, "Beta, the second");
  EXPECT_TRUE(std::isnan(feed.FindStop("N")->lat)) << "a generic node without coordinates";

  // Shape points sorted by sequence although the file lists 3, 1, 2.
  const Shape* shape = feed.FindShape("S1");
  ASSERT_NE(shape, nullptr);
  ASSERT_EQ(shape->points.size(), 3u);
  EXPECT_EQ(shape->points[0].lat, -22.94);
  EXPECT_TRUE(std::isnan(shape->points[0].dist_traveled));
  EXPECT_EQ(shape->points[1].dist_traveled, 1000.5);
  EXPECT_EQ(shape->points[2].lon, -43.25);

  // T2's stop_times come as sequences 5, 2, 9; the lowest has no arrival_time.
  const FirstStopDeparture* first = feed.FindFirstStop("T2");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->stop_id, "B");
  EXPECT_EQ(first->departure_s, 25 * 3600 + 10 * 60);
  EXPECT_EQ(feed.FindLastStop("T2")->stop_id, "C");
  EXPECT_EQ(feed.FindLastStop("T2")->arrival_s, 25 * 3600 + 40 * 60);
  EXPECT_EQ(feed.FindLastStop("T1")->arrival_s, 6 * 3600 + 30 * 60);
  EXPECT_EQ(feed.FindFirstStop("T3")->departure_s, 7 * 3600 + 5 * 60);

  // frequencies.txt ends its lines with a lone CR.
  ASSERT_EQ(feed.frequencies().size(), 2u);
  EXPECT_EQ(feed.frequencies()[1].end_s, 24 * 3600 + 30 * 60);
  EXPECT_TRUE(feed.frequencies()[1].exact_times);

  using Services = std::vector<std::string>;
  EXPECT_EQ(feed.ActiveServices(Day("2024-04-30")), Services{"WK"});
  EXPECT_EQ(feed.ActiveServices(Day("2024-05-01")), Services{"WE"}) << "holiday swap";
  EXPECT_EQ(feed.ActiveServices(Day("2024-06-15")), (Services{"EXTRA", "WE"}));
}

TEST(StaticFeedQuirks, AZipWithTheFeedInASubfolderLoadsLikeTheFolder) {
  const StaticFeed folder = MustLoad(Fixture("quirks"));
  const StaticFeed zip = MustLoad(Fixture("quirks_nested.zip"));
  const FeedCounts a = folder.counts();
  const FeedCounts b = zip.counts();
  EXPECT_EQ(std::tie(a.agencies, a.routes, a.trips, a.shapes, a.stops, a.stop_times, a.frequencies,
                     a.services),
            std::tie(b.agencies, b.routes, b.trips, b.shapes, b.stops, b.stop_times, b.frequencies,
                     b.services));
  EXPECT_EQ(zip.FindRoute("R1")->long_name, "Centro - Barra\n(via Túnel)");
}

TEST(StaticFeedQuirks, LoadsAZipFromMemory) {
  auto bytes = base::ReadFile(Fixture("quirks_nested.zip"));
  ASSERT_TRUE(bytes.ok());
  auto feed = StaticFeed::LoadZipBytes(std::move(*bytes), "download.zip");
  ASSERT_TRUE(feed.ok()) << feed.error().message();
  EXPECT_EQ(feed->counts().stop_times, 7);
}

// --- Errors.

class TempFeed {
 public:
  explicit TempFeed(const std::map<std::string, std::string>& files) {
    dir_ = std::filesystem::temp_directory_path() /
           ("frota_gtfs_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    for (const auto& [name, text] : files) {
      std::ofstream(dir_ / name, std::ios::binary) << text;
    }
  }
  ~TempFeed() { std::filesystem::remove_all(dir_); }
  TempFeed(const TempFeed&) = delete;
  TempFeed& operator=(const TempFeed&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

std::map<std::string, std::string> MinimalFeed() {
  return {{"agency.txt", "agency_name,agency_url,agency_timezone\nA,http://a.invalid,UTC\n"},
          {"routes.txt", "route_id,route_type\nr,3\n"},
          {"trips.txt", "route_id,service_id,trip_id\nr,s,t\n"},
          {"stops.txt", "stop_id,stop_lat,stop_lon\nx,1.5,2.5\n"}};
}

std::string ErrorWith(const std::string& table, const std::string& text) {
  auto files = MinimalFeed();
  files[table] = text;
  const TempFeed feed(files);
  return LoadError(feed.path());
}

TEST(StaticFeedErrors, AMissingRequiredColumnNamesFileLineAndColumn) {
  EXPECT_EQ(LoadError(Fixture("missing_column")),
            (Fixture("missing_column") / "routes.csv").string() +
                ": line 1: missing required column route_id");
}

TEST(StaticFeedErrors, ABadValueNamesFileLineAndColumn) {
  EXPECT_TRUE(ErrorWith("stops.txt", "stop_id,stop_lat,stop_lon\nx,1,2\ny,abc,2\n")
                  .ends_with("stops.txt: line 3: column stop_lat: not a number: 'abc'"));
  EXPECT_TRUE(ErrorWith("stops.txt", "stop_id,stop_lat,stop_lon,location_type\nx,1,2,7\n")
                  .ends_with("stops.txt: line 2: column location_type: outside [0, 4]: '7'"));
  EXPECT_TRUE(ErrorWith("stops.txt", "stop_id,stop_lat,stop_lon\nx,91,2\n")
                  .ends_with("stops.txt: line 2: column stop_lat: outside [-90, 90]: '91'"));
  EXPECT_TRUE(ErrorWith("routes.txt", "route_id,route_type\nr,bus\n")
                  .ends_with("routes.txt: line 2: column route_type: not an integer: 'bus'"));
  EXPECT_TRUE(ErrorWith("trips.txt", "route_id,service_id,trip_id,direction_id\nr,s,t,2\n")
                  .ends_with("trips.txt: line 2: column direction_id: outside [0, 1]: '2'"));
  EXPECT_TRUE(ErrorWith("calendar.txt",
                        "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,"
                        "start_date,end_date\ns,1,1,1,1,1,0,0,2024-02-30,20241231\n")
                  .ends_with("calendar.txt: line 2: column start_date: not a date YYYYMMDD or "
                             "YYYY-MM-DD: '2024-02-30'"));
  EXPECT_TRUE(
      ErrorWith("calendar_dates.txt", "service_id,date,exception_type\ns,20240101,3\n")
          .ends_with("calendar_dates.txt: line 2: column exception_type: outside [1, 2]: '3'"));
  EXPECT_TRUE(
      ErrorWith("stop_times.txt",
                "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
                "t,07:00:00,07:00:00,x,1\nt,7:61:00,7:61:00,x,2\n")
          .ends_with("stop_times.txt: line 3: column arrival_time: not a time H:MM:SS: '7:61:00'"));
  EXPECT_TRUE(ErrorWith("frequencies.txt",
                        "trip_id,start_time,end_time,headway_secs\n"
                        "t,Sat Dec 30 1899 04:00:00 GMT-0306,05:00:00,900\n")
                  .ends_with("frequencies.txt: line 2: column start_time: not a time H:MM:SS: "
                             "'Sat Dec 30 1899 04:00:00 GMT-0306'"));
  EXPECT_TRUE(ErrorWith("shapes.txt",
                        "shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence\n"
                        "s,-23,001025,-43,367562\n")
                  .ends_with("shapes.txt: line 2: 5 fields, but the header has 4"));
}

TEST(StaticFeedErrors, EmptyIdsAndDuplicateIdsAreErrors) {
  EXPECT_TRUE(ErrorWith("routes.txt", "route_id,route_type\n,3\n")
                  .ends_with("routes.txt: line 2: column route_id: empty value"));
  EXPECT_TRUE(ErrorWith("stops.txt", "stop_id,stop_lat,stop_lon\nx,1,2\nx,1,2\n")
                  .ends_with("stops.txt: line 3: column stop_id: duplicate id 'x'"));
  EXPECT_TRUE(ErrorWith("routes.txt", "route_id,route_type,route_id\nr,3,q\n")
                  .ends_with("routes.txt: line 1: column route_id appears 2 times"));
}

TEST(StaticFeedErrors, MissingOrEmptyRequiredTablesAreErrors) {
  auto files = MinimalFeed();
  files.erase("stops.txt");
  const TempFeed no_stops(files);
  EXPECT_EQ(LoadError(no_stops.path()),
            no_stops.path().string() + ": missing required table stops.txt (or stops.csv)");
  EXPECT_TRUE(ErrorWith("trips.txt", "route_id,service_id,trip_id\n")
                  .ends_with("trips.txt: no rows after the header"));
  EXPECT_TRUE(
      ErrorWith("shapes.txt", "").ends_with("shapes.txt: empty file (expected a header line)"));
  // An optional table with a header and no rows is fine.
  auto with_empty_stop_times = MinimalFeed();
  with_empty_stop_times["stop_times.txt"] = "trip_id,stop_id,stop_sequence\n";
  const TempFeed ok(with_empty_stop_times);
  EXPECT_EQ(LoadError(ok.path()), "(loaded)");
}

TEST(StaticFeedErrors, TxtWinsOverCsvWhenBothExist) {
  auto files = MinimalFeed();
  files["routes.csv"] = "route_id\nbroken-and-ignored\n";
  const TempFeed feed(files);
  EXPECT_EQ(LoadError(feed.path()), "(loaded)");
}

TEST(StaticFeedErrors, BrokenZipsGiveAClearError) {
  EXPECT_NE(LoadError(Fixture("not_a_zip.zip")).find("not_a_zip.zip: not a readable zip archive"),
            std::string::npos);
  EXPECT_NE(LoadError(Fixture("truncated.zip")).find("truncated.zip: not a readable zip archive"),
            std::string::npos);
  const std::string corrupt = LoadError(Fixture("corrupt_member.zip"));
  EXPECT_NE(corrupt.find("corrupt_member.zip/feed_2024/stops.txt: cannot decompress"),
            std::string::npos)
      << corrupt;
  EXPECT_NE(
      LoadError("/nonexistent/gtfs.zip").find("/nonexistent/gtfs.zip: no such file or folder"),
      std::string::npos);
  EXPECT_FALSE(StaticFeed::LoadZipBytes("PK\x03\x04 garbage", "mem.zip").ok());
}

TEST(StaticFeedErrors, AFolderWithoutGtfsTablesSaysSo) {
  const TempFeed empty(std::map<std::string, std::string>{{"readme.md", "nothing here"}});
  EXPECT_EQ(
      LoadError(empty.path()),
      empty.path().string() +
          ": no GTFS tables found (expected agency, routes, trips and stops as .txt or .csv)");
}

}  // namespace
}  // namespace frota::gtfs
