#include "frota/model/tables.h"

namespace frota::model {

const std::vector<const TableSpec*>& CatalogTables() {
  static const std::vector<const TableSpec*> kTables = {&Table<StopRow>::kSpec};
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
    if (!column.derived) {
      out.push_back(column);
    }
  }
  return out;
}

}  // namespace frota::model
