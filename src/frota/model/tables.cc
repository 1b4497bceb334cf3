#include "frota/model/tables.h"

namespace frota::model {

const std::vector<const TableSpec*>& CatalogTables() {
  static const std::vector<const TableSpec*> kTables = {
      &Table<SpeedCellRow>::kSpec,      &Table<SpeedLineRow>::kSpec,
      &Table<FleetHourRow>::kSpec,      &Table<StopRow>::kSpec,
      &Table<TripRow>::kSpec,           &Table<QualityRow>::kSpec,
      &Table<QualityLatencyRow>::kSpec, &Table<PollRow>::kSpec,
      &Table<DepartureRow>::kSpec,      &Table<HeadwayRow>::kSpec,
      &Table<AlertRow>::kSpec,          &Table<AircraftPositionRow>::kSpec,
  };
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
