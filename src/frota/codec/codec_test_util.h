// Helpers for the codec tests: reading captures and tallying what a decoder produced.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "frota/base/file.h"
#include "frota/base/time.h"
#include "frota/codec/decode.h"
#include "frota/model/rejection.h"

namespace frota::codec::testing_util {

inline std::string ReadBytes(const std::filesystem::path& path) {
  auto bytes = base::ReadFile(path);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().message());
  return bytes.ok() ? std::move(bytes).value() : std::string();
}

/// Rejections by reason name, e.g. {"missing_coordinates": 101}.
inline std::map<std::string, std::int64_t> CountReasons(const DecodedBatch& batch) {
  std::map<std::string, std::int64_t> counts;
  for (const auto& rejection : batch.rejections) {
    ++counts[std::string(model::RejectReasonName(rejection.reason))];
  }
  return counts;
}

inline std::set<std::string> DistinctVehicles(const DecodedBatch& batch) {
  std::set<std::string> vehicles;
  for (const auto& position : batch.positions) {
    vehicles.insert(position.vehicle_id);
  }
  return vehicles;
}

inline std::string MinEventTime(const DecodedBatch& batch) {
  const auto it =
      std::min_element(batch.positions.begin(), batch.positions.end(),
                       [](const auto& a, const auto& b) { return a.event_time < b.event_time; });
  return it == batch.positions.end() ? "" : base::FormatIso8601(it->event_time);
}

inline std::string MaxEventTime(const DecodedBatch& batch) {
  const auto it =
      std::max_element(batch.positions.begin(), batch.positions.end(),
                       [](const auto& a, const auto& b) { return a.event_time < b.event_time; });
  return it == batch.positions.end() ? "" : base::FormatIso8601(it->event_time);
}

/// Every record has one offset, first_offset.. first_offset + size - 1, none twice.
inline void ExpectDenseOffsets(const DecodedBatch& batch, std::int64_t first_offset) {
  std::vector<std::int64_t> offsets;
  for (const auto& position : batch.positions) {
    offsets.push_back(position.source.offset);
  }
  for (const auto& rejection : batch.rejections) {
    offsets.push_back(rejection.source.offset);
  }
  std::sort(offsets.begin(), offsets.end());
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    ASSERT_EQ(offsets[i], first_offset + static_cast<std::int64_t>(i));
  }
}

}  // namespace frota::codec::testing_util
