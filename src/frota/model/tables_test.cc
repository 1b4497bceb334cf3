#include "frota/model/tables.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "frota/model/rows.h"

namespace frota::model {
namespace {

// Records the type of each value Write hands out; a null is recorded as nullopt.
struct RecordingOut {
  std::vector<std::optional<ColumnType>> values;
  void Text(std::string_view) { values.emplace_back(ColumnType::kText); }
  void Int64(std::int64_t) { values.emplace_back(ColumnType::kBigint); }
  void Int32(std::int32_t) { values.emplace_back(ColumnType::kInteger); }
  void Int16(std::int16_t) { values.emplace_back(ColumnType::kSmallint); }
  void Int8(std::int8_t) { values.emplace_back(ColumnType::kTinyint); }
  void Double(double) { values.emplace_back(ColumnType::kDouble); }
  void Bool(bool) { values.emplace_back(ColumnType::kBoolean); }
  void Date(base::LocalDate) { values.emplace_back(ColumnType::kDate); }
  void Timestamp(base::Timestamp) { values.emplace_back(ColumnType::kTimestamp); }
  void Null() { values.emplace_back(std::nullopt); }
};

// Write hands out one value per stored column, of the column's type, a null only where
// the column is nullable.
template <typename Row>
void ExpectWriteMatchesColumns(const Row& row) {
  RecordingOut out;
  Table<Row>::Write(row, out);
  const auto stored = StoredColumns(Table<Row>::kSpec);
  ASSERT_EQ(out.values.size(), stored.size()) << Table<Row>::kSpec.name;
  for (std::size_t i = 0; i < stored.size(); ++i) {
    if (out.values[i]) {
      EXPECT_EQ(*out.values[i], stored[i].type) << Table<Row>::kSpec.name << "." << stored[i].name;
    } else {
      EXPECT_TRUE(stored[i].nullable) << Table<Row>::kSpec.name << "." << stored[i].name;
    }
  }
}

TEST(TableCatalog, StopsWriteGivesEachStoredColumnItsType) {
  StopRow row;
  row.near_terminal = true;
  ExpectWriteMatchesColumns(row);
  ExpectWriteMatchesColumns(StopRow{});  // near_terminal null
}

TEST(TableCatalog, AggregatesWriteGiveEachStoredColumnItsType) {
  ExpectWriteMatchesColumns(SpeedCellRow{});
  ExpectWriteMatchesColumns(SpeedLineRow{});
  ExpectWriteMatchesColumns(FleetHourRow{});
}

TEST(TableCatalog, TripsWriteGivesEachStoredColumnItsType) {
  TripRow row;
  row.direction_id = 1;
  ExpectWriteMatchesColumns(row);
  ExpectWriteMatchesColumns(TripRow{});  // direction_id null
}

TEST(TableCatalog, PollsWriteGivesEachStoredColumnItsType) {
  PollRow row;
  row.failure = "timeout";
  row.records = 3;
  row.body = "bronze/x.json.zst";
  ExpectWriteMatchesColumns(row);
  ExpectWriteMatchesColumns(PollRow{});  // failure, records and body null
}

TEST(TableCatalog, AircraftWriteGivesEachStoredColumnItsType) {
  AircraftPositionRow row;
  row.origin_country = "Brazil";
  row.last_contact = 1717600000;
  ExpectWriteMatchesColumns(row);
  ExpectWriteMatchesColumns(AircraftPositionRow{});  // origin_country, last_contact null
}

TEST(TableCatalog, RegularityWritesGiveEachStoredColumnItsType) {
  DepartureRow departure;
  departure.direction_id = 0;
  ExpectWriteMatchesColumns(departure);
  ExpectWriteMatchesColumns(DepartureRow{});  // direction_id null
  HeadwayRow headway;
  headway.direction_id = 1;
  headway.headway_s = 600;
  headway.planned_headway_s = 600;
  headway.exclusion = "service_break";
  ExpectWriteMatchesColumns(headway);
  ExpectWriteMatchesColumns(HeadwayRow{});
  AlertRow alert;
  alert.direction_id = 0;
  alert.service_date = base::LocalDate{};
  alert.end_time = base::Timestamp{};
  alert.closed_at = base::Timestamp{};
  alert.planned_headway_s = 600;
  alert.actual_headway_s = 1800;
  ExpectWriteMatchesColumns(alert);
  ExpectWriteMatchesColumns(AlertRow{});
}

TEST(TableCatalog, QualityWritesGiveEachStoredColumnItsType) {
  ExpectWriteMatchesColumns(QualityRow{});
  ExpectWriteMatchesColumns(QualityLatencyRow{});
  ExpectWriteMatchesColumns(DuplicateCountRow{});
}

// quality's stored counts after `vehicles` are RejectReason's, in its order.
TEST(TableCatalog, QualityCountsFollowTheRejectReasons) {
  const auto stored = StoredColumns(Table<QualityRow>::kSpec);
  ASSERT_EQ(stored.size(), 6 + kRejectReasonCount);
  for (std::size_t i = 0; i < kRejectReasonCount; ++i) {
    EXPECT_EQ(stored[6 + i].name, RejectReasonName(static_cast<RejectReason>(i)));
  }
}

TEST(TableCatalog, EveryTableHasAKeyUniqueNamesAndIsFoundByName) {
  ASSERT_FALSE(CatalogTables().empty());
  for (const TableSpec* table : CatalogTables()) {
    std::set<std::string_view> names;
    bool has_key = false;
    for (const Column& column : table->columns) {
      EXPECT_TRUE(names.insert(column.name).second) << table->name << "." << column.name;
      has_key = has_key || column.role == Role::kKey;
      EXPECT_FALSE(column.stored_key() && column.nullable) << table->name << "." << column.name;
      EXPECT_FALSE(column.role == Role::kDerived && column.hidden)
          << table->name << "." << column.name;
    }
    EXPECT_TRUE(has_key) << table->name;
    EXPECT_FALSE(table->semantics.empty()) << table->name;
    EXPECT_EQ(FindCatalogTable(table->name), table);
  }
  EXPECT_EQ(FindCatalogTable("no_such_table"), nullptr);
}

// A PostgreSQL upsert either adds (aggregates: every non-key column a sum) or rewrites:
// a table mixing sums and values would add its values too.
TEST(TableCatalog, SumsAreNotMixedWithValues) {
  for (const TableSpec* table : CatalogTables()) {
    bool sums = false;
    bool values = false;
    for (const Column& column : table->columns) {
      sums = sums || column.role == Role::kSum;
      values = values || column.role == Role::kValue;
    }
    EXPECT_FALSE(sums && values) << table->name;
  }
}

// The epoch's rows follow the catalog: every table the jobs emit is stored in EpochRows,
// every derived one is made from them, and ForEachTableRows hands each table's rows to a
// sink once, in the catalog's order. A table added to the catalog is therefore written
// by every sink without touching them.
TEST(EpochRows, HoldRowsPerCatalogTableAndVisitEachTableOnceInCatalogOrder) {
  EpochRows rows;
  rows.of<StopRow>().emplace_back();
  rows.of<StopRow>().emplace_back();
  rows.of<DuplicateCountRow>().push_back({0, "rio-brt", "B1", base::LocalDate{}, 6, 3});
  QualityRow quality;
  quality.latency = {{30, 5}, {31, 2}};
  rows.of<QualityRow>().push_back(quality);
  EXPECT_EQ(rows.RowCount(), 4U);

  std::vector<std::string_view> visited;
  std::size_t latency_rows = 0;
  const auto status = ForEachTableRows(rows, [&]<typename Row>(const std::vector<Row>& table) {
    visited.push_back(Table<Row>::kSpec.name);
    if constexpr (std::is_same_v<Row, QualityLatencyRow>) {
      latency_rows = table.size();  // derived: one row per histogram bucket
    }
    return base::Status::Ok();
  });
  ASSERT_TRUE(status.ok());
  std::vector<std::string_view> catalog;
  for (const TableSpec* table : CatalogTables()) {
    catalog.push_back(table->name);
  }
  EXPECT_EQ(visited, catalog);
  EXPECT_EQ(latency_rows, 2U);

  EpochRows more;
  more.of<StopRow>().emplace_back();
  more.of<AlertRow>().emplace_back();
  rows.Append(std::move(more));
  EXPECT_EQ(rows.of<StopRow>().size(), 3U);
  EXPECT_EQ(rows.of<AlertRow>().size(), 1U);
  EXPECT_EQ(rows.RowCount(), 6U);
  std::size_t counted = 0;
  ForEachTableCount(rows, [&](const TableSpec& table, std::size_t n) {
    EXPECT_TRUE(table.derived_from.empty()) << table.name;
    counted += n;
  });
  EXPECT_EQ(counted, 6U);
}

TEST(EpochRows, VisitingStopsAtTheFirstError) {
  EpochRows rows;
  std::size_t visits = 0;
  const auto status = ForEachTableRows(rows, [&]<typename Row>(const std::vector<Row>&) {
    ++visits;
    return base::Internal("sink gone");
  });
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(visits, 1U);
}

// A derived table names the table it is made from; an upserted one has one key column
// (the sinks delete and match by it).
TEST(TableCatalog, DerivedTablesNameTheirSourceAndUpsertedOnesHaveOneKey) {
  for (const TableSpec* table : CatalogTables()) {
    if (!table->derived_from.empty()) {
      EXPECT_TRUE(table->derived_from == "positions" ||
                  FindCatalogTable(table->derived_from) != nullptr)
          << table->name;
    }
  }
  std::size_t keys = 0;
  for (const Column& column : Table<AlertRow>::kSpec.columns) {
    keys += column.role == Role::kKey ? 1 : 0;
  }
  EXPECT_TRUE(UpsertedTable<AlertRow>);
  EXPECT_FALSE(UpsertedTable<StopRow>);
  EXPECT_EQ(keys, 1U);
}

// Every table says which column places its rows on a local date (readers' windows and
// retention): a stored DATE or TIMESTAMP column.
TEST(TableCatalog, EveryTableHasADateColumn) {
  for (const TableSpec* table : CatalogTables()) {
    const Column* found = nullptr;
    for (const Column& column : table->columns) {
      if (column.name == table->date_column) {
        found = &column;
      }
    }
    ASSERT_NE(found, nullptr) << table->name << ": no column " << table->date_column;
    EXPECT_TRUE(found->stored()) << table->name;
    EXPECT_FALSE(found->nullable) << table->name;
    EXPECT_TRUE(found->type == ColumnType::kDate || found->type == ColumnType::kTimestamp)
        << table->name;
  }
}

}  // namespace
}  // namespace frota::model
