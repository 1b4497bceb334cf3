#include "frota/model/tables.h"

namespace frota::model {

const std::vector<const TableSpec*>& CatalogTables() {
  static const std::vector<const TableSpec*> kTables = [] {
    std::vector<const TableSpec*> tables;
    ForEachRowType(CatalogRowTypes{},
                   [&]<typename Row>() { tables.push_back(&Table<Row>::kSpec); });
    return tables;
  }();
  return kTables;
}

const TableSpec* FindCatalogTable(std::string_view name) {
  for (const TableSpec* table : CatalogTables()) {
    if (table->name == name) {
      return table;
    }
  }
  return nullptr;
}

std::vector<Column> StoredColumns(const TableSpec& table) {
  std::vector<Column> out;
  for (const Column& column : table.columns) {
    if (column.stored()) {
      out.push_back(column);
    }
  }
  return out;
}

std::vector<Column> ViewColumns(const TableSpec& table) {
  std::vector<Column> out;
  for (const Column& column : table.columns) {
    if (column.in_view()) {
      out.push_back(column);
    }
  }
  return out;
}

}  // namespace frota::model
