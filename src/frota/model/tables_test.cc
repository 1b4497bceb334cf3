#include "frota/model/tables.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

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

}  // namespace
}  // namespace frota::model
