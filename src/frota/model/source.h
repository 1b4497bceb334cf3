// Provenance: which input a record came from and where in it.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace frota::model {

/// Index of a source name in a SourceCatalog (an archive file, a Kafka partition, ...).
using SourceId = std::uint32_t;

/// Where a record came from: the source and the record's ordinal position in it.
struct SourceRef {
  SourceId source = 0;
  std::int64_t offset = 0;
};

/// Interns source names so that records carry a 4-byte id instead of a path.
///
/// Thread-safe; names are never removed, and a name keeps its id for the catalog's life.
class SourceCatalog {
 public:
  SourceId Intern(std::string_view name);
  /// The name of `id`; the reference stays valid for the catalog's life.
  [[nodiscard]] const std::string& Name(SourceId id) const;
  [[nodiscard]] std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::deque<std::string> names_;  // deque: stable references
  std::unordered_map<std::string_view, SourceId> ids_;
};

}  // namespace frota::model
