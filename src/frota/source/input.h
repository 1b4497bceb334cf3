// Inputs on the command line ("FORMAT:PATH" or a bare path) and the source partitions they form.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/codec/format.h"

namespace frota::source {

/// One input as the user wrote it.
struct InputSpec {
  std::optional<codec::Format> format;  // empty: detect from content
  bool archive = false;                 // `archive:ROOT`, a bronze archive folder
  std::filesystem::path path;
};

/// Parses "FORMAT:PATH", "archive:ROOT" or a bare PATH (../shared/docs/cli.md "Inputs").
base::Result<InputSpec> ParseInputSpec(std::string_view text);

/// One source partition: a stream of responses or rows read in order, with its own
/// offsets (0, 1, 2, ... over all its records) and its own watermark progress.
///
/// A file is one partition; a folder of GTFS-RT files is one partition whose files are
/// read in name order (collectors name them by ingest time).
struct PartitionInput {
  std::string name;  // stable: the path as given (a folder: the folder's path)
  codec::Format format;
  std::vector<std::filesystem::path> files;  // in read order
  std::string feed_id;                       // empty: the format's name
  /// From a bronze archive: each file's recorded ingest time (parallel to `files`), the
  /// feed's mode and the zone of its naive timestamps.
  std::vector<base::Timestamp> ingest_times;
  /// From a bronze archive: a response that does not decode is one `bad_payload`
  /// rejection (it was received and archived) instead of an error.
  bool archived = false;
  std::optional<model::Mode> mode;
  std::string time_zone;
  /// From a bronze archive, parallel to `files`: whether the response is in its hour's
  /// pack, and the records it decodes to when the pack says (-1: unknown), so that a
  /// resume skips whole responses without decoding them.
  std::vector<bool> packed;
  std::vector<std::int64_t> records;
  /// The offset of the first record: those of hours retention removed keep their places.
  std::int64_t first_offset = 0;
};

/// Expands inputs into partitions, detecting formats, sorted by name so that the order on
/// the command line never matters. Errors name the path: missing, unreadable, empty
/// folder, undetectable content.
base::Result<std::vector<PartitionInput>> ExpandInputs(const std::vector<InputSpec>& inputs,
                                                       const std::string& feed_id);

}  // namespace frota::source
