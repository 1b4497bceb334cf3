// The feed formats frota reads (../shared/docs/cli.md "Inputs"), their names and detection.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

#include "frota/base/status.h"
#include "frota/model/mode.h"

namespace frota::codec {

enum class Format { kGtfsRt, kRioSppo, kRioBrt, kRioArchiveCsv, kOpenSky };

inline constexpr Format kAllFormats[] = {Format::kGtfsRt, Format::kRioSppo, Format::kRioBrt,
                                         Format::kRioArchiveCsv, Format::kOpenSky};

/// "gtfs-rt", "rio-sppo", "rio-brt", "rio-archive-csv", "opensky" (also the default feed_id).
std::string_view FormatName(Format format);
std::optional<Format> ParseFormat(std::string_view name);
/// The mode a format's vehicles have unless configured: bus, bus, brt, brt, aircraft.
model::Mode DefaultMode(Format format);

/// Detects the format from the first bytes of a file (gzip is looked through by the
/// caller). Error when the bytes match none of the formats.
base::Result<Format> DetectFormat(std::string_view head);

/// Detects the format of a file from its first 64 KiB, looking through gzip. Errors name
/// the path; a folder is an error (folders of .pb files are the caller's concern).
base::Result<Format> DetectFileFormat(const std::filesystem::path& path);

}  // namespace frota::codec
