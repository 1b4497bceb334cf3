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

TEST(TableCatalog, EveryTableHasAKeyUniqueNamesAndIsFoundByName) {
  ASSERT_FALSE(CatalogTables().empty());
  for (const TableSpec* table : CatalogTables()) {
    std::set<std::string_view> names;
    bool has_key = false;
    for (const Column& column : table->columns) {
      EXPECT_TRUE(names.insert(column.name).second) << table->name << "." << column.name;
      has_key = has_key || column.key;
      EXPECT_FALSE(column.key && (column.nullable || column.derived))
          << table->name << "." << column.name;
    }
    EXPECT_TRUE(has_key) << table->name;
    EXPECT_FALSE(table->semantics.empty()) << table->name;
    EXPECT_EQ(FindCatalogTable(table->name), table);
  }
  EXPECT_EQ(FindCatalogTable("no_such_table"), nullptr);
}

}  // namespace
}  // namespace frota::model
