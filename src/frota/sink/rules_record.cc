#include "frota/sink/rules_record.h"

#include <algorithm>

namespace frota::sink {

base::Status CheckRecordedRules(const RuleRecord& stored, const RuleRecord& wanted,
                                std::string_view where) {
  for (const auto& [key, value] : wanted) {
    const auto it = std::find_if(stored.begin(), stored.end(),
                                 [&key = key](const auto& s) { return s.first == key; });
    if (it == stored.end()) {
      return base::InvalidInput(
          "{}: its results were made without rule {} (this run: {}={}); use a new database", where,
          key, key, value);
    }
    if (it->second != value) {
      return base::InvalidInput(
          "{}: its results were made with rule {}={}, this run has {}={}; a database holds "
          "the results of one set of rules: use a new database, or the same rules",
          where, key, it->second, key, value);
    }
  }
  return base::Status::Ok();
}

}  // namespace frota::sink
