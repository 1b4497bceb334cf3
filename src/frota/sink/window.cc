#include "frota/sink/window.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <map>

#include "frota/sink/duckdb_sink.h"

namespace frota::sink {

namespace {

constexpr std::string_view kSourceName = "frota_window_source";

// `TIMESTAMP '2026-03-02 03:00:00.000000'`: a UTC instant both dialects read.
std::string TimestampLiteral(base::Timestamp t) {
  constexpr std::int64_t kDayMicros = 86'400'000'000;
  const std::int64_t micros = base::ToUnixMicros(t);
  std::int64_t days = micros / kDayMicros;
  std::int64_t rest = micros % kDayMicros;
  if (rest < 0) {
    --days;
    rest += kDayMicros;
  }
  const std::int64_t seconds = rest / 1'000'000;
  return fmt::format("TIMESTAMP '{} {:02}:{:02}:{:02}.{:06}'",
                     base::FormatDate(base::LocalDateFromDays(static_cast<std::int32_t>(days))),
                     seconds / 3600, seconds / 60 % 60, seconds % 60, rest % 1'000'000);
}

base::Timestamp LocalMidnight(base::LocalDate date, const base::TimeZone& zone) {
  return zone.FromLocal(std::chrono::local_time<base::Micros>(date));
}

// The first and last local date of `column` over `from` (a table), none when it is empty.
base::Result<std::pair<std::optional<base::LocalDate>, std::optional<base::LocalDate>>> DateSpan(
    DuckDbConnection& db, const std::string& from, const DateColumn& column,
    const base::TimeZone& zone) {
  const bool date = column.type == model::ColumnType::kDate;
  const std::string value = date ? fmt::format("({} - DATE '1970-01-01')", column.expression)
                                 : fmt::format("epoch_us({})", column.expression);
  FROTA_ASSIGN_OR_RETURN(auto span,
                         db.Query(fmt::format("SELECT min({0})::BIGINT, max({0})::BIGINT "
                                              "FROM {1}",
                                              value, from)));
  const auto at = [&](std::size_t c) -> std::optional<base::LocalDate> {
    if (span.rows() == 0 || span.IsNull(0, c)) {
      return std::nullopt;
    }
    const std::int64_t v = span.Int64(0, c);
    return date ? base::LocalDateFromDays(static_cast<std::int32_t>(v))
                : zone.ToLocalHour(base::FromUnixMicros(v)).date;
  };
  return std::make_pair(at(0), at(1));
}

void Widen(std::optional<base::LocalDate>& first, std::optional<base::LocalDate>& last,
           const std::pair<std::optional<base::LocalDate>, std::optional<base::LocalDate>>& span) {
  if (span.first && (!first || *span.first < *first)) {
    first = span.first;
  }
  if (span.second && (!last || *span.second > *last)) {
    last = span.second;
  }
}

std::string Span(std::optional<base::LocalDate> first, std::optional<base::LocalDate> last) {
  return *first == *last
             ? base::FormatDate(*first)
             : fmt::format("{} to {}", base::FormatDate(*first), base::FormatDate(*last));
}

// The base tables of `database` with their columns, in order.
base::Result<std::map<std::string, std::vector<std::string>>> BaseTables(
    DuckDbConnection& db, std::string_view database) {
  FROTA_ASSIGN_OR_RETURN(
      auto rows, db.Query(fmt::format("SELECT t.table_name, c.column_name FROM duckdb_tables() t "
                                      "JOIN duckdb_columns() c USING (database_name, schema_name, "
                                      "table_name) WHERE t.database_name = {} AND "
                                      "t.schema_name = 'main' ORDER BY t.table_name, "
                                      "c.column_index",
                                      SqlStringLiteral(database))));
  std::map<std::string, std::vector<std::string>> tables;
  for (std::size_t r = 0; r < rows.rows(); ++r) {
    tables[rows.String(r, 0)].push_back(rows.String(r, 1));
  }
  return tables;
}

// Copies every table of the attached source into `db`, window-filtered where dated.
base::Status CopyTables(DuckDbConnection& db, const DateWindow& window,
                        const base::TimeZone& zone) {
  FROTA_ASSIGN_OR_RETURN(const auto source, BaseTables(db, kSourceName));
  FROTA_ASSIGN_OR_RETURN(auto current, db.Query("SELECT current_database()"));
  FROTA_ASSIGN_OR_RETURN(const auto target, BaseTables(db, current.String(0, 0)));
  for (const auto& [table, columns] : source) {
    if (table == "frota_schema") {
      continue;  // the new database's own, the same version (checked)
    }
    const auto date = TableDateColumn(table, columns);
    const std::string condition = date ? WindowCondition(*date, window, zone) : "TRUE";
    const std::string from =
        fmt::format("SELECT * FROM {}.main.\"{}\" WHERE {}", kSourceName, table, condition);
    FROTA_RETURN_IF_ERROR(db.Execute(
        target.contains(table)
            ? fmt::format("DELETE FROM main.\"{0}\"; INSERT INTO main.\"{0}\" {1}", table, from)
            : fmt::format("CREATE TABLE main.\"{}\" AS {}", table, from)));
  }
  return base::Status::Ok();
}

// Whether the raw input or the results begin after `date`.
bool StartsAfter(const HeldDates& held, base::LocalDate date) {
  return (held.first_raw && *held.first_raw > date) ||
         (held.first_result && *held.first_result > date);
}

}  // namespace

std::string DateWindow::Describe() const {
  if (from && to) {
    return *from == *to ? base::FormatDate(*from)
                        : fmt::format("{} to {}", base::FormatDate(*from), base::FormatDate(*to));
  }
  if (from) {
    return fmt::format("from {}", base::FormatDate(*from));
  }
  if (to) {
    return fmt::format("up to {}", base::FormatDate(*to));
  }
  return "every date";
}

base::Result<DateWindow> ParseDateWindow(std::string_view from, std::string_view to) {
  DateWindow window;
  const auto parse = [](std::string_view flag, std::string_view text,
                        std::optional<base::LocalDate>& out) -> base::Status {
    if (text.empty()) {
      return base::Status::Ok();
    }
    out = text.size() == 10 ? base::ParseDate(text) : std::nullopt;
    if (!out) {
      return base::InvalidInput("{} {}: not a date YYYY-MM-DD", flag, text);
    }
    return base::Status::Ok();
  };
  FROTA_RETURN_IF_ERROR(parse("--from", from, window.from));
  FROTA_RETURN_IF_ERROR(parse("--to", to, window.to));
  if (window.from && window.to && *window.from > *window.to) {
    return base::InvalidInput("--from {} is after --to {}", from, to);
  }
  return window;
}

std::optional<DateColumn> TableDateColumn(std::string_view table,
                                          const std::vector<std::string>& columns) {
  if (const model::TableSpec* spec = model::FindCatalogTable(table)) {
    for (const model::Column& column : spec->columns) {
      if (column.name == spec->date_column) {
        return DateColumn{std::string(column.name), column.type};
      }
    }
    return std::nullopt;
  }
  static constexpr std::array<std::string_view, 4> kPositions = {
      "positions", "positions_data", "duplicates_data", "positions_text"};
  if (std::find(kPositions.begin(), kPositions.end(), table) != kPositions.end()) {
    return DateColumn{"event_time", model::ColumnType::kTimestamp};
  }
  if (table == "rejected" || table == "rejected_data" || table == "rejected_text") {
    // PostgreSQL partitions `rejected` by this very expression: the condition prunes.
    return DateColumn{"coalesce(event_time, ingest_time, TIMESTAMP '1970-01-01')",
                      model::ColumnType::kTimestamp};
  }
  static constexpr std::array<std::pair<std::string_view, model::ColumnType>, 3> kByName = {{
      {"service_date", model::ColumnType::kDate},
      {"local_date", model::ColumnType::kDate},
      {"start_time", model::ColumnType::kTimestamp},
  }};
  for (const auto& [name, type] : kByName) {
    if (std::find(columns.begin(), columns.end(), name) != columns.end()) {
      return DateColumn{std::string(name), type};
    }
  }
  return std::nullopt;
}

std::string WindowCondition(const DateColumn& column, const DateWindow& window,
                            const base::TimeZone& zone) {
  std::vector<std::string> parts;
  if (column.type == model::ColumnType::kDate) {
    if (window.from) {
      parts.push_back(
          fmt::format("{} >= DATE '{}'", column.expression, base::FormatDate(*window.from)));
    }
    if (window.to) {
      parts.push_back(
          fmt::format("{} <= DATE '{}'", column.expression, base::FormatDate(*window.to)));
    }
  } else {
    if (window.from) {
      parts.push_back(fmt::format("{} >= {}", column.expression,
                                  TimestampLiteral(LocalMidnight(*window.from, zone))));
    }
    if (window.to) {
      parts.push_back(
          fmt::format("{} < {}", column.expression,
                      TimestampLiteral(LocalMidnight(*window.to + std::chrono::days(1), zone))));
    }
  }
  return parts.empty() ? "TRUE" : fmt::format("({})", fmt::join(parts, " AND "));
}

base::Result<HeldDates> FindHeldDates(DuckDbConnection& db, std::string_view database,
                                      const base::TimeZone& zone) {
  HeldDates held;
  const auto table = [&](std::string_view name) {
    return fmt::format("{}.main.\"{}\"", database, name);
  };
  for (const std::string_view raw : {"positions_data", "rejected_data"}) {
    FROTA_ASSIGN_OR_RETURN(const auto span,
                           DateSpan(db, table(raw), *TableDateColumn(raw, {}), zone));
    Widen(held.first_raw, held.last_raw, span);
  }
  for (const model::TableSpec* spec : model::CatalogTables()) {
    if (spec->layer != model::Layer::kGold) {
      continue;
    }
    FROTA_ASSIGN_OR_RETURN(const auto span,
                           DateSpan(db, table(spec->name), *TableDateColumn(spec->name, {}), zone));
    Widen(held.first_result, held.last_result, span);
  }
  return held;
}

base::Result<WindowCopy> CopyDuckDbWindow(const std::filesystem::path& source,
                                          const std::filesystem::path& path,
                                          const DateWindow& window, const base::TimeZone& zone) {
  if (!std::filesystem::exists(source)) {
    return base::NotFound("{}: no such database", source.string());
  }
  if (!path.empty() && std::filesystem::exists(path)) {
    return base::InvalidInput("{}: exists; the window's copy needs a new file", path.string());
  }
  FROTA_ASSIGN_OR_RETURN(auto db, OpenFrotaDuckDb(path, /*must_exist=*/false));
  if (const auto attached = db->Execute(fmt::format(
          "ATTACH {} AS {} (READ_ONLY)", SqlStringLiteral(source.string()), kSourceName));
      !attached.ok()) {
    return base::InvalidInput("{}: cannot open as a DuckDB database: {}", source.string(),
                              attached.error().message());
  }
  {
    auto version =
        db->Query(fmt::format("SELECT max(version) FROM {}.main.frota_schema", kSourceName));
    if (!version.ok() || version->IsNull(0, 0) || version->Int64(0, 0) != kDuckDbSchemaVersion) {
      return base::InvalidInput("{}: not a frota database of schema version {}", source.string(),
                                kDuckDbSchemaVersion);
    }
  }
  FROTA_RETURN_IF_ERROR(CopyTables(*db, window, zone));
  WindowCopy copy;
  FROTA_ASSIGN_OR_RETURN(auto current, db->Query("SELECT current_database()"));
  FROTA_ASSIGN_OR_RETURN(copy.held, FindHeldDates(*db, current.String(0, 0), zone));
  HeldDates all = copy.held;
  if (window.from && (copy.held.empty() || StartsAfter(copy.held, *window.from))) {
    // Only then is the whole database read: to say which of the window's dates it lacks.
    FROTA_ASSIGN_OR_RETURN(all, FindHeldDates(*db, kSourceName, zone));
  }
  copy.description = DescribeWindow(window, copy.held, all);
  FROTA_RETURN_IF_ERROR(db->Execute(fmt::format("DETACH {}", kSourceName)));
  copy.db = std::move(db);
  return copy;
}

base::Status ReplaceDuckDbWindowRows(DuckDbConnection& copy, const std::filesystem::path& target,
                                     const std::vector<std::string>& tables,
                                     const DateWindow& window, const base::TimeZone& zone) {
  constexpr std::string_view kTarget = "frota_window_target";
  FROTA_ASSIGN_OR_RETURN(auto current, copy.Query("SELECT current_database()"));
  FROTA_ASSIGN_OR_RETURN(const auto computed, BaseTables(copy, current.String(0, 0)));
  FROTA_RETURN_IF_ERROR(
      copy.Execute(fmt::format("ATTACH {} AS {}", SqlStringLiteral(target.string()), kTarget)));
  const auto replace = [&]() -> base::Status {
    FROTA_ASSIGN_OR_RETURN(const auto stored, BaseTables(copy, kTarget));
    FROTA_RETURN_IF_ERROR(copy.Execute("BEGIN TRANSACTION"));
    for (const std::string& table : tables) {
      const auto columns = computed.find(table);
      if (columns == computed.end()) {
        return base::Internal("{}: no table {} to write back", copy.path(), table);
      }
      std::string sql;
      if (stored.contains(table)) {
        const auto date = TableDateColumn(table, columns->second);
        sql = fmt::format(
            "DELETE FROM {0}.main.\"{1}\" WHERE {2}; "
            "INSERT INTO {0}.main.\"{1}\" BY NAME SELECT * FROM main.\"{1}\"",
            kTarget, table, date ? WindowCondition(*date, window, zone) : "TRUE");
      } else {
        sql = fmt::format("CREATE TABLE {0}.main.\"{1}\" AS SELECT * FROM main.\"{1}\"", kTarget,
                          table);
      }
      if (const auto status = copy.Execute(sql); !status.ok()) {
        (void)copy.Execute("ROLLBACK");
        return status.error().WithContext(
            fmt::format("writing {} into {}", table, target.string()));
      }
    }
    return copy.Execute("COMMIT");
  };
  const auto replaced = replace();
  const auto detached = copy.Execute(fmt::format("DETACH {}", kTarget));
  FROTA_RETURN_IF_ERROR(replaced);
  return detached;
}

std::string DescribeWindow(const DateWindow& window, const HeldDates& in_window,
                           const HeldDates& all) {
  if (!window.bounded()) {
    return {};
  }
  std::string out;
  if (in_window.empty()) {
    out = fmt::format("no data {}{}",
                      window.from && window.to && *window.from == *window.to ? "on " : "",
                      window.Describe());
    if (!all.empty()) {
      const auto first = all.first_raw && (!all.first_result || *all.first_raw < *all.first_result)
                             ? all.first_raw
                             : all.first_result;
      const auto last = all.last_raw && (!all.last_result || *all.last_raw > *all.last_result)
                            ? all.last_raw
                            : all.last_result;
      out += fmt::format(" (the database holds {})", Span(first, last));
    }
    out += '\n';
  } else {
    out = fmt::format("window {}:", window.Describe());
    if (in_window.first_raw) {
      out += fmt::format(" input {}", Span(in_window.first_raw, in_window.last_raw));
    }
    if (in_window.first_result) {
      out += fmt::format("{} results {}", in_window.first_raw ? "," : "",
                         Span(in_window.first_result, in_window.last_result));
    }
    out += '\n';
  }
  // Dates of the window before everything the database holds: gone, or never loaded.
  const auto gone = [&](std::string_view what, std::optional<base::LocalDate> first) {
    if (window.from && first && *window.from < *first &&
        !(window.to && *window.to < *window.from)) {
      const base::LocalDate last_gone =
          window.to && *window.to < *first ? *window.to : *first - std::chrono::days(1);
      out += fmt::format(
          "{} of {} are gone: the database holds them from {} on (removed by "
          "retention, or never loaded)\n",
          what, Span(window.from, last_gone), base::FormatDate(*first));
    }
  };
  gone("input (positions, rejections)", all.first_raw);
  gone("results", all.first_result);
  return out;
}

}  // namespace frota::sink
