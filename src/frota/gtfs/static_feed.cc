#include "frota/gtfs/static_feed.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <optional>
#include <set>
#include <utility>

#include "frota/gtfs/csv_reader.h"
#include "frota/gtfs/feed_files_internal.h"

namespace frota::gtfs {
namespace {

std::string_view TrimSpaces(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return text;
}

// A value as it appears in an error message: quoted, printable, at most 40 bytes.
std::string Quote(std::string_view value) {
  std::string out = "'";
  for (std::size_t i = 0; i < value.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  if (value.size() > 40) {
    out += "...";
  }
  return out + "'";
}

struct Column {
  std::size_t index;
  std::string_view name;
};

// One GTFS table: a CsvReader plus named columns and typed values whose errors name
// the file, the line and the column.
class Table {
 public:
  static base::Result<Table> Open(const internal::FeedFiles& files, std::string_view table) {
    const auto display_name = files.Find(table);
    FROTA_ASSIGN_OR_RETURN(auto source, files.OpenTable(table));
    FROTA_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open(std::move(source), *display_name));
    return Table(std::move(reader));
  }

  base::Result<Column> Require(std::string_view column) const {
    FROTA_ASSIGN_OR_RETURN(const auto found, Optional(column));
    if (!found) {
      return base::InvalidInput("{}: line 1: missing required column {}", reader_.name(), column);
    }
    return *found;
  }

  base::Result<std::optional<Column>> Optional(std::string_view column) const {
    if (const std::size_t n = reader_.CountColumn(column); n > 1) {
      return base::InvalidInput("{}: line 1: column {} appears {} times", reader_.name(), column,
                                n);
    }
    const auto index = reader_.FindColumn(column);
    if (!index) {
      return std::optional<Column>();
    }
    return std::optional<Column>(Column{*index, column});
  }

  base::Result<bool> Next() { return reader_.Next(); }
  [[nodiscard]] std::int64_t line() const { return reader_.line(); }
  [[nodiscard]] const std::string& name() const { return reader_.name(); }

  [[nodiscard]] std::string_view Text(const Column& column) const {
    return reader_.field(column.index);
  }
  [[nodiscard]] std::string_view Text(const std::optional<Column>& column) const {
    return column ? reader_.field(column->index) : std::string_view();
  }

  [[nodiscard]] base::Error Bad(const Column& column, std::string_view problem) const {
    return reader_.ErrorAt(column.name, fmt::format("{} {}", problem, Quote(Text(column))));
  }
  [[nodiscard]] base::Error ErrorAt(const Column& column, std::string_view message) const {
    return reader_.ErrorAt(column.name, message);
  }
  [[nodiscard]] base::Error ErrorHere(std::string_view message) const {
    return reader_.ErrorHere(message);
  }

  base::Result<std::string_view> NonEmpty(const Column& column) const {
    const std::string_view text = Text(column);
    if (text.empty()) {
      return ErrorAt(column, "empty value");
    }
    return text;
  }

  base::Result<double> Double(const Column& column) const {
    std::string_view text = TrimSpaces(Text(column));
    if (!text.empty() && text.front() == '+') {
      text.remove_prefix(1);
    }
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
        !std::isfinite(value)) {
      return Bad(column, "not a number:");
    }
    return value;
  }

  base::Result<double> Coordinate(const Column& column, double limit) const {
    FROTA_ASSIGN_OR_RETURN(const double value, Double(column));
    if (value < -limit || value > limit) {
      return Bad(column, fmt::format("outside [-{}, {}]:", limit, limit));
    }
    return value;
  }

  base::Result<std::int64_t> Integer(const Column& column, std::int64_t min,
                                     std::int64_t max) const {
    const std::string_view text = TrimSpaces(Text(column));
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
      return Bad(column, "not an integer:");
    }
    if (value < min || value > max) {
      return Bad(column, fmt::format("outside [{}, {}]:", min, max));
    }
    return value;
  }

  /// A 0/1 flag; `if_empty` when the value is empty.
  base::Result<bool> Flag(const std::optional<Column>& column, bool if_empty) const {
    if (!column) {
      return if_empty;
    }
    const std::string_view text = TrimSpaces(Text(*column));
    if (text.empty()) {
      return if_empty;
    }
    if (text == "0" || text == "1") {
      return text == "1";
    }
    return Bad(*column, "expected 0 or 1, not");
  }

  /// Seconds after midnight; nullopt when the value is empty.
  base::Result<std::optional<std::int32_t>> Time(const std::optional<Column>& column) const {
    const std::string_view text = TrimSpaces(Text(column));
    if (text.empty()) {
      return std::optional<std::int32_t>();
    }
    const auto seconds = base::ParseGtfsTime(text);
    if (!seconds) {
      return Bad(*column, "not a time H:MM:SS:");
    }
    return std::optional<std::int32_t>(*seconds);
  }

  base::Result<std::int32_t> RequiredTime(const Column& column) const {
    FROTA_ASSIGN_OR_RETURN(const auto seconds, Time(column));
    if (!seconds) {
      return ErrorAt(column, "empty value");
    }
    return *seconds;
  }

  base::Result<base::LocalDate> Date(const Column& column) const {
    const auto date = base::ParseDate(TrimSpaces(Text(column)));
    if (!date) {
      return Bad(column, "not a date YYYYMMDD or YYYY-MM-DD:");
    }
    return *date;
  }

 private:
  explicit Table(CsvReader reader) : reader_(std::move(reader)) {}
  CsvReader reader_;
};

}  // namespace

/// Reads the tables of a feed into a StaticFeed, one table at a time.
class FeedLoader {
 public:
  explicit FeedLoader(const internal::FeedFiles& files) : files_(files) {}

  base::Result<StaticFeed> Load() {
    for (const std::string_view table : {"agency", "routes", "trips", "stops"}) {
      if (!files_.Find(table)) {
        return base::InvalidInput("{}: missing required table {}.txt (or {}.csv)", files_.name(),
                                  table, table);
      }
    }
    FROTA_RETURN_IF_ERROR(Agencies());
    FROTA_RETURN_IF_ERROR(Routes());
    FROTA_RETURN_IF_ERROR(Trips());
    FROTA_RETURN_IF_ERROR(Stops());
    if (files_.Find("calendar")) {
      FROTA_RETURN_IF_ERROR(Calendars());
    }
    if (files_.Find("calendar_dates")) {
      FROTA_RETURN_IF_ERROR(CalendarDates());
    }
    if (files_.Find("frequencies")) {
      FROTA_RETURN_IF_ERROR(Frequencies());
    }
    if (files_.Find("shapes")) {
      FROTA_RETURN_IF_ERROR(Shapes());
    }
    if (files_.Find("stop_times")) {
      FROTA_RETURN_IF_ERROR(StopTimes());
    }
    feed_.BuildIndexes();
    return std::move(feed_);
  }

 private:
  // Fails when a required table holds a header and no rows.
  static base::Status RequireRows(const Table& table, std::size_t rows) {
    if (rows == 0) {
      return base::InvalidInput("{}: no rows after the header", table.name());
    }
    return base::Status::Ok();
  }

  // Records `id` of `table` at the current line; a second occurrence is an error.
  base::Status Unique(StaticFeed::Index& index, const Table& table, const Column& column,
                      std::string_view id, std::size_t position) {
    const auto [it, inserted] =
        index.try_emplace(std::string(id), static_cast<std::uint32_t>(position));
    if (!inserted) {
      return table.ErrorAt(column, fmt::format("duplicate id {}", Quote(id)));
    }
    return base::Status::Ok();
  }

  base::Status Agencies() {
    FROTA_ASSIGN_OR_RETURN(Table table, Table::Open(files_, "agency"));
    FROTA_ASSIGN_OR_RETURN(const auto id, table.Optional("agency_id"));
    FROTA_ASSIGN_OR_RETURN(const auto name, table.Require("agency_name"));
    FROTA_ASSIGN_OR_RETURN(const auto timezone, table.Require("agency_timezone"));
    while (true) {
      FROTA_ASSIGN_OR_RETURN(const bool more, table.Next());
      if (!more) {
        break;
      }
      FROTA_ASSIGN_OR_RETURN(const std::string_view zone, table.NonEmpty(timezone));
      feed_.agencies_.push_back({std::string(table.Text(id)), std::string(table.Text(name)),
                                 std::string(TrimSpaces(zone))});
    }
    return RequireRows(table, feed_.agencies_.size());
  }

  base::Status Routes() {
    FROTA_ASSIGN_OR_RETURN(Table table, Table::Open(files_, "routes"));
    FROTA_ASSIGN_OR_RETURN(const auto id, table.Require("route_id"));
    FROTA_ASSIGN_OR_RETURN(const auto type, table.Require("route_type"));
    FROTA_ASSIGN_OR_RETURN(const auto agency, table.Optional("agency_id"));
    FROTA_ASSIGN_OR_RETURN(const auto short_name, table.Optional("route_short_name"));
    FROTA_ASSIGN_OR_RETURN(const auto long_name, table.Optional("route_long_name"));
    while (true) {
      FROTA_ASSIGN_OR_RETURN(const bool more, table.Next());
      if (!more) {
        break;
      }
      FROTA_ASSIGN_OR_RETURN(const std::string_view route_id, table.NonEmpty(id));
      FROTA_RETURN_IF_ERROR(Unique(feed_.route_index_, table, id, route_id, feed_.routes_.size()));
      FROTA_ASSIGN_OR_RETURN(const std::int64_t route_type, table.Integer(type, 0, 9999));
      feed_.routes_.push_back({std::string(route_id), std::string(table.Text(agency)),
                               std::string(table.Text(short_name)),
                               std::string(table.Text(long_name)), static_cast<int>(route_type)});
    }
    return RequireRows(table, feed_.routes_.size());
  }

  base::Status Trips() {
    FROTA_ASSIGN_OR_RETURN(Table table, Table::Open(files_, "trips"));
    FROTA_ASSIGN_OR_RETURN(const auto route, table.Require("route_id"));
    FROTA_ASSIGN_OR_RETURN(const auto service, table.Require("service_id"));
    FROTA_ASSIGN_OR_RETURN(const auto id, table.Require("trip_id"));
    FROTA_ASSIGN_OR_RETURN(const auto shape, table.Optional("shape_id"));
    FROTA_ASSIGN_OR_RETURN(const auto headsign, table.Optional("trip_headsign"));
    FROTA_ASSIGN_OR_RETURN(const auto short_name, table.Optional("trip_short_name"));
    FROTA_ASSIGN_OR_RETURN(const auto direction, table.Optional("direction_id"));
    while (true) {
      FROTA_ASSIGN_OR_RETURN(const bool more, table.Next());
      if (!more) {
        break;
      }
      FROTA_ASSIGN_OR_RETURN(const std::string_view trip_id, table.NonEmpty(id));
      FROTA_RETURN_IF_ERROR(Unique(feed_.trip_index_, table, id, trip_id, feed_.trips_.size()));
      FROTA_ASSIGN_OR_RETURN(const std::string_view route_id, table.NonEmpty(route));
      FROTA_ASSIGN_OR_RETURN(const std::string_view service_id, table.NonEmpty(service));
      std::int8_t direction_id = -1;
      if (direction && !TrimSpaces(table.Text(direction)).empty()) {
        FROTA_ASSIGN_OR_RETURN(const std::int64_t value, table.Integer(*direction, 0, 1));
        direction_id = static_cast<std::int8_t>(value);
      }
      feed_.trips_.push_back({std::string(trip_id), std::string(route_id), std::string(service_id),
                              std::string(table.Text(shape)), std::string(table.Text(headsign)),
                              std::string(table.Text(short_name)), direction_id});
    }
    return RequireRows(table, feed_.trips_.size());
  }

  base::Status Stops() {
    FROTA_ASSIGN_OR_RETURN(Table table, Table::Open(files_, "stops"));
    FROTA_ASSIGN_OR_RETURN(const auto id, table.Require("stop_id"));
    FROTA_ASSIGN_OR_RETURN(const auto lat, table.Require("stop_lat"));
    FROTA_ASSIGN_OR_RETURN(const auto lon, table.Require("stop_lon"));
    FROTA_ASSIGN_OR_RETURN(const auto name, table.Optional("stop_name"));
    FROTA_ASSIGN_OR_RETURN(const auto location_type, table.Optional("location_type"));
    while (true) {
      FROTA_ASSIGN_OR_RETURN(const bool more, table.Next());
      if (!more) {
        break;
      }
      FROTA_ASSIGN_OR_RETURN(const std::string_view stop_id, table.NonEmpty(id));
      FROTA_RETURN_IF_ERROR(Unique(feed_.stop_index_, table, id, stop_id, feed_.stops_.size()));
      Stop stop{std::string(stop_id), std::string(table.Text(name)), NAN, NAN};
      const std::string_view type = TrimSpaces(table.Text(location_type));
      if (!type.empty()) {
        FROTA_ASSIGN_OR_RETURN(const std::int64_t kind, table.Integer(*location_type, 0, 4));
        stop.location_type = static_cast<std::int8_t>(kind);
      }
      // Generic nodes (3) and boarding areas (4) may omit their coordinates.
      const bool may_omit = type == "3" || type == "4";
      if (!may_omit || !TrimSpaces(table.Text(lat)).empty()) {
        FROTA_ASSIGN_OR_RETURN(stop.lat, table.Coordinate(lat, 90));
      }
      if (!may_omit || !TrimSpaces(table.Text(lon)).empty()) {
        FROTA_ASSIGN_OR_RETURN(stop.lon, table.Coordinate(lon, 180));
      }
      feed_.stops_.push_back(std::move(stop));
    }
    return RequireRows(table, feed_.stops_.size());
  }

  base::Status Calendars() {
    FROTA_ASSIGN_OR_RETURN(Table table, Table::Open(files_, "calendar"));
    FROTA_ASSIGN_OR_RETURN(const auto service, table.Require("service_id"));
    constexpr std::string_view kDays[] = {"monday", "tuesday",  "wednesday", "thursday",
                                          "friday", "saturday", "sunday"};
    std::array<std::optional<Column>, 7> days;
    for (std::size_t d = 0; d < 7; ++d) {
      FROTA_ASSIGN_OR_RETURN(const Column column, table.Require(kDays[d]));
      days[d] = column;
    }
    FROTA_ASSIGN_OR_RETURN(const auto start, table.Require("start_date"));
    FROTA_ASSIGN_OR_RETURN(const auto end, table.Require("end_date"));
    while (true) {
      FROTA_ASSIGN_OR_RETURN(const bool more, table.Next());
      if (!more) {
        break;
      }
      Calendar calendar;
      FROTA_ASSIGN_OR_RETURN(const std::string_view service_id, table.NonEmpty(service));
      calendar.service_id = std::string(service_id);
      for (std::size_t d = 0; d < 7; ++d) {
        if (TrimSpaces(table.Text(days[d])).empty()) {
          return table.ErrorAt(*days[d], "empty value");
        }
        FROTA_ASSIGN_OR_RETURN(calendar.weekdays[d], table.Flag(days[d], false));
      }
      FROTA_ASSIGN_OR_RETURN(calendar.start, table.Date(start));
      FROTA_ASSIGN_OR_RETURN(calendar.end, table.Date(end));
      feed_.calendars_.push_back(std::move(calendar));
    }
    return base::Status::Ok();
  }

  base::Status CalendarDates() {
    FROTA_ASSIGN_OR_RETURN(Table table, Table::Open(files_, "calendar_dates"));
    FROTA_ASSIGN_OR_RETURN(const auto service, table.Require("service_id"));
    FROTA_ASSIGN_OR_RETURN(const auto date, table.Require("date"));
    FROTA_ASSIGN_OR_RETURN(const auto exception, table.Require("exception_type"));
    while (true) {
      FROTA_ASSIGN_OR_RETURN(const bool more, table.Next());
      if (!more) {
        break;
      }
      FROTA_ASSIGN_OR_RETURN(const std::string_view service_id, table.NonEmpty(service));
      FROTA_ASSIGN_OR_RETURN(const base::LocalDate day, table.Date(date));
      FROTA_ASSIGN_OR_RETURN(const std::int64_t type, table.Integer(exception, 1, 2));
      feed_.calendar_dates_.push_back({std::string(service_id), day, static_cast<int>(type)});
    }
    return base::Status::Ok();
  }

  base::Status Frequencies() {
    FROTA_ASSIGN_OR_RETURN(Table table, Table::Open(files_, "frequencies"));
    FROTA_ASSIGN_OR_RETURN(const auto trip, table.Require("trip_id"));
    FROTA_ASSIGN_OR_RETURN(const auto start, table.Require("start_time"));
    FROTA_ASSIGN_OR_RETURN(const auto end, table.Require("end_time"));
    FROTA_ASSIGN_OR_RETURN(const auto headway, table.Require("headway_secs"));
    FROTA_ASSIGN_OR_RETURN(const auto exact, table.Optional("exact_times"));
    while (true) {
      FROTA_ASSIGN_OR_RETURN(const bool more, table.Next());
      if (!more) {
        break;
      }
      Frequency frequency;
      FROTA_ASSIGN_OR_RETURN(const std::string_view trip_id, table.NonEmpty(trip));
      frequency.trip_id = std::string(trip_id);
      FROTA_ASSIGN_OR_RETURN(frequency.start_s, table.RequiredTime(start));
      FROTA_ASSIGN_OR_RETURN(frequency.end_s, table.RequiredTime(end));
      FROTA_ASSIGN_OR_RETURN(const std::int64_t headway_s, table.Integer(headway, 1, 86'400));
      frequency.headway_s = static_cast<std::int32_t>(headway_s);
      FROTA_ASSIGN_OR_RETURN(frequency.exact_times, table.Flag(exact, false));
      feed_.frequencies_.push_back(std::move(frequency));
    }
    return base::Status::Ok();
  }

  base::Status Shapes() {
    FROTA_ASSIGN_OR_RETURN(Table table, Table::Open(files_, "shapes"));
    FROTA_ASSIGN_OR_RETURN(const auto id, table.Require("shape_id"));
    FROTA_ASSIGN_OR_RETURN(const auto lat, table.Require("shape_pt_lat"));
    FROTA_ASSIGN_OR_RETURN(const auto lon, table.Require("shape_pt_lon"));
    FROTA_ASSIGN_OR_RETURN(const auto sequence, table.Require("shape_pt_sequence"));
    FROTA_ASSIGN_OR_RETURN(const auto dist, table.Optional("shape_dist_traveled"));
    // Points with their sequence numbers, per shape, until sorted at the end.
    std::vector<std::vector<std::int64_t>> sequences;
    std::size_t current = 0;  // the previous row's shape: rows usually come grouped
    while (true) {
      FROTA_ASSIGN_OR_RETURN(const bool more, table.Next());
      if (!more) {
        break;
      }
      FROTA_ASSIGN_OR_RETURN(const std::string_view shape_id, table.NonEmpty(id));
      if (feed_.shapes_.empty() || feed_.shapes_[current].id != shape_id) {
        const auto [it, inserted] = feed_.shape_index_.try_emplace(
            std::string(shape_id), static_cast<std::uint32_t>(feed_.shapes_.size()));
        if (inserted) {
          feed_.shapes_.push_back({std::string(shape_id), {}});
          sequences.emplace_back();
        }
        current = it->second;
      }
      ShapePoint point{};
      FROTA_ASSIGN_OR_RETURN(point.lat, table.Coordinate(lat, 90));
      FROTA_ASSIGN_OR_RETURN(point.lon, table.Coordinate(lon, 180));
      FROTA_ASSIGN_OR_RETURN(const std::int64_t seq, table.Integer(sequence, 0, INT64_MAX));
      point.dist_traveled = NAN;
      if (dist && !TrimSpaces(table.Text(dist)).empty()) {
        FROTA_ASSIGN_OR_RETURN(point.dist_traveled, table.Double(*dist));
      }
      feed_.shapes_[current].points.push_back(point);
      sequences[current].push_back(seq);
    }
    for (std::size_t s = 0; s < feed_.shapes_.size(); ++s) {
      const auto& seq = sequences[s];
      if (std::is_sorted(seq.begin(), seq.end())) {
        continue;
      }
      auto& points = feed_.shapes_[s].points;
      std::vector<std::size_t> order(points.size());
      for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
      }
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return seq[a] < seq[b]; });
      std::vector<ShapePoint> sorted;
      sorted.reserve(points.size());
      for (const std::size_t i : order) {
        sorted.push_back(points[i]);
      }
      points = std::move(sorted);
    }
    return base::Status::Ok();
  }

  base::Status StopTimes() {
    FROTA_ASSIGN_OR_RETURN(Table table, Table::Open(files_, "stop_times"));
    FROTA_ASSIGN_OR_RETURN(const auto trip, table.Require("trip_id"));
    FROTA_ASSIGN_OR_RETURN(const auto sequence, table.Require("stop_sequence"));
    FROTA_ASSIGN_OR_RETURN(const auto stop, table.Require("stop_id"));
    FROTA_ASSIGN_OR_RETURN(const auto arrival, table.Optional("arrival_time"));
    FROTA_ASSIGN_OR_RETURN(const auto departure, table.Optional("departure_time"));
    struct Ends {
      std::int64_t first_sequence;
      std::int64_t last_sequence;
    };
    std::vector<Ends> ends;
    std::size_t current = 0;
    auto& firsts = feed_.first_stop_departures_;
    auto& lasts = feed_.last_stop_arrivals_;
    while (true) {
      FROTA_ASSIGN_OR_RETURN(const bool more, table.Next());
      if (!more) {
        break;
      }
      ++feed_.stop_time_count_;
      FROTA_ASSIGN_OR_RETURN(const std::string_view trip_id, table.NonEmpty(trip));
      FROTA_ASSIGN_OR_RETURN(const std::int64_t seq, table.Integer(sequence, 0, INT64_MAX));
      FROTA_ASSIGN_OR_RETURN(const auto arrival_s, table.Time(arrival));
      FROTA_ASSIGN_OR_RETURN(const auto departure_s, table.Time(departure));
      const std::string_view stop_id = table.Text(stop);
      const std::int32_t leave = departure_s.value_or(arrival_s.value_or(-1));
      const std::int32_t reach = arrival_s.value_or(departure_s.value_or(-1));
      if (firsts.empty() || firsts[current].trip_id != trip_id) {
        const auto [it, inserted] = feed_.stop_ends_index_.try_emplace(
            std::string(trip_id), static_cast<std::uint32_t>(firsts.size()));
        current = it->second;
        if (inserted) {
          firsts.push_back({std::string(trip_id), std::string(stop_id), leave});
          lasts.push_back({std::string(trip_id), std::string(stop_id), reach});
          ends.push_back({seq, seq});
          continue;
        }
      }
      if (seq < ends[current].first_sequence) {
        ends[current].first_sequence = seq;
        firsts[current].stop_id = std::string(stop_id);
        firsts[current].departure_s = leave;
      }
      if (seq > ends[current].last_sequence) {
        ends[current].last_sequence = seq;
        lasts[current].stop_id = std::string(stop_id);
        lasts[current].arrival_s = reach;
      }
    }
    return base::Status::Ok();
  }

  const internal::FeedFiles& files_;
  StaticFeed feed_;
};

StaticFeed::~StaticFeed() = default;

base::Result<StaticFeed> StaticFeed::Load(const std::filesystem::path& zip_or_folder) {
  FROTA_ASSIGN_OR_RETURN(const auto files, internal::FeedFiles::Open(zip_or_folder));
  return FeedLoader(files).Load();
}

base::Result<StaticFeed> StaticFeed::LoadZipBytes(std::string bytes,
                                                  std::string_view name_for_errors) {
  FROTA_ASSIGN_OR_RETURN(const auto files, internal::FeedFiles::OpenZipBytes(
                                               std::move(bytes), std::string(name_for_errors)));
  return FeedLoader(files).Load();
}

void StaticFeed::BuildIndexes() {  // the indexes by id are filled while loading
  std::set<std::string, std::less<>> services;
  for (const Calendar& calendar : calendars_) {
    services.insert(calendar.service_id);
  }
  for (const CalendarDate& date : calendar_dates_) {
    services.insert(date.service_id);
  }
  service_ids_.assign(services.begin(), services.end());
}

FeedCounts StaticFeed::counts() const {
  FeedCounts counts;
  counts.agencies = static_cast<std::int64_t>(agencies_.size());
  counts.routes = static_cast<std::int64_t>(routes_.size());
  counts.trips = static_cast<std::int64_t>(trips_.size());
  counts.shapes = static_cast<std::int64_t>(shapes_.size());
  counts.stops = static_cast<std::int64_t>(stops_.size());
  counts.stop_times = stop_time_count_;
  counts.frequencies = static_cast<std::int64_t>(frequencies_.size());
  counts.services = static_cast<std::int64_t>(service_ids_.size());
  return counts;
}

const Route* StaticFeed::FindRoute(std::string_view route_id) const {
  const auto it = route_index_.find(route_id);
  return it == route_index_.end() ? nullptr : &routes_[it->second];
}
const Trip* StaticFeed::FindTrip(std::string_view trip_id) const {
  const auto it = trip_index_.find(trip_id);
  return it == trip_index_.end() ? nullptr : &trips_[it->second];
}
const Shape* StaticFeed::FindShape(std::string_view shape_id) const {
  const auto it = shape_index_.find(shape_id);
  return it == shape_index_.end() ? nullptr : &shapes_[it->second];
}
const Stop* StaticFeed::FindStop(std::string_view stop_id) const {
  const auto it = stop_index_.find(stop_id);
  return it == stop_index_.end() ? nullptr : &stops_[it->second];
}
const FirstStopDeparture* StaticFeed::FindFirstStop(std::string_view trip_id) const {
  const auto it = stop_ends_index_.find(trip_id);
  return it == stop_ends_index_.end() ? nullptr : &first_stop_departures_[it->second];
}
const LastStopArrival* StaticFeed::FindLastStop(std::string_view trip_id) const {
  const auto it = stop_ends_index_.find(trip_id);
  return it == stop_ends_index_.end() ? nullptr : &last_stop_arrivals_[it->second];
}

std::string_view StaticFeed::time_zone() const {
  return agencies_.empty() ? std::string_view() : std::string_view(agencies_.front().timezone);
}

std::vector<std::string> StaticFeed::ActiveServices(base::LocalDate date) const {
  // weekday::iso_encoding(): Monday 1 .. Sunday 7.
  const unsigned weekday = std::chrono::weekday(date).iso_encoding() - 1;
  std::set<std::string, std::less<>> active;
  for (const Calendar& calendar : calendars_) {
    if (calendar.start <= date && date <= calendar.end && calendar.weekdays[weekday]) {
      active.insert(calendar.service_id);
    }
  }
  // Additions first, then removals, so a date both added and removed ends up removed.
  for (const CalendarDate& exception : calendar_dates_) {
    if (exception.date == date && exception.exception_type == 1) {
      active.insert(exception.service_id);
    }
  }
  for (const CalendarDate& exception : calendar_dates_) {
    if (exception.date == date && exception.exception_type == 2) {
      active.erase(exception.service_id);
    }
  }
  return {active.begin(), active.end()};
}

}  // namespace frota::gtfs
