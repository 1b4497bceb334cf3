#include "frota/codec/format.h"

#include <zlib.h>

#include <array>
#include <fstream>
#include <string>

namespace frota::codec {

namespace {

constexpr std::size_t kDetectHeadBytes = 64 * 1024;

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// A FeedMessage starts with field 1 (the header, length-delimited: tag 0x0a), and every
// encoder writes the header's own field 1 first: the gtfs_realtime_version string, a
// few digits and dots. Checking that far keeps text that happens to start with a
// newline (0x0a) from looking like protobuf.
bool LooksLikeFeedMessage(std::string_view head) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(head[i]); };
  if (head.size() < 2 || byte(0) != 0x0a) {
    return false;
  }
  std::size_t i = 1;
  std::uint64_t header_length = 0;
  for (int shift = 0;; shift += 7) {
    if (i >= head.size() || shift > 28) {
      return false;
    }
    header_length |= static_cast<std::uint64_t>(byte(i) & 0x7f) << shift;
    if ((byte(i++) & 0x80) == 0) {
      break;
    }
  }
  if (header_length < 2 || i + 2 > head.size()) {
    return false;
  }
  if (byte(i) != 0x0a) {
    return false;
  }
  const std::size_t version_length = byte(i + 1);
  if (version_length == 0 || version_length > 16 || version_length + 2 > header_length) {
    return false;
  }
  for (std::size_t k = i + 2; k < i + 2 + version_length && k < head.size(); ++k) {
    const char c = head[k];
    if (!((c >= '0' && c <= '9') || c == '.')) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kGtfsRt:
      return "gtfs-rt";
    case Format::kRioSppo:
      return "rio-sppo";
    case Format::kRioBrt:
      return "rio-brt";
    case Format::kRioArchiveCsv:
      return "rio-archive-csv";
    case Format::kOpenSky:
      return "opensky";
  }
  return "unknown";
}

std::optional<Format> ParseFormat(std::string_view name) {
  for (const Format format : kAllFormats) {
    if (FormatName(format) == name) {
      return format;
    }
  }
  return std::nullopt;
}

model::Mode DefaultMode(Format format) {
  switch (format) {
    case Format::kGtfsRt:
    case Format::kRioSppo:
      return model::Mode::kBus;
    case Format::kRioBrt:
    case Format::kRioArchiveCsv:
      return model::Mode::kBrt;
    case Format::kOpenSky:
      return model::Mode::kAircraft;
  }
  return model::Mode::kOther;
}

base::Result<Format> DetectFormat(std::string_view head) {
  if (head.empty()) {
    return base::InvalidInput("empty input: no feed format to detect");
  }
  if (IsGzip(head)) {
    return base::InvalidInput("gzip-compressed input: decompress it before detecting its format");
  }
  if (LooksLikeFeedMessage(head)) {
    return Format::kGtfsRt;
  }
  std::string_view text = head;
  if (text.starts_with("\xef\xbb\xbf")) {
    text.remove_prefix(3);
  }
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos) {
    text.remove_prefix(first);
    if (text.front() == '[') {
      return Format::kRioSppo;
    }
    if (text.front() == '{') {
      if (text.find("\"veiculos\"") != std::string_view::npos) {
        return Format::kRioBrt;
      }
      if (text.find("\"states\"") != std::string_view::npos ||
          text.find("\"time\"") != std::string_view::npos) {
        return Format::kOpenSky;
      }
      return base::InvalidInput(
          "a JSON object that is neither a Rio BRT response (no \"veiculos\") nor an OpenSky "
          "response (no \"states\" or \"time\")");
    }
    const std::string_view first_line = text.substr(0, text.find('\n'));
    if (first_line.find("timestamp_gps") != std::string_view::npos &&
        first_line.find(',') != std::string_view::npos) {
      return Format::kRioArchiveCsv;
    }
  }
  return base::InvalidInput(
      "unknown feed format: not a GTFS-Realtime FeedMessage, a Rio GPS API response, a Rio "
      "archive CSV or an OpenSky response");
}

base::Result<Format> DetectFileFormat(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return base::InvalidInput("{}: is a folder, not a feed file", path.string());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return base::IoError("{}: cannot open", path.string());
  }
  std::string head(kDetectHeadBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) {
    return base::IoError("{}: read failed", path.string());
  }
  if (IsGzip(head)) {
    // Inflate only the start: enough for every detection rule.
    std::string inflated(kDetectHeadBytes, '\0');
    z_stream stream{};
    if (inflateInit2(&stream, 15 + 16) != Z_OK) {
      return base::Internal("{}: zlib init failed", path.string());
    }
    stream.next_in = reinterpret_cast<Bytef*>(head.data());
    stream.avail_in = static_cast<uInt>(head.size());
    stream.next_out = reinterpret_cast<Bytef*>(inflated.data());
    stream.avail_out = static_cast<uInt>(inflated.size());
    const int status = inflate(&stream, Z_SYNC_FLUSH);
    const std::size_t produced = inflated.size() - stream.avail_out;
    inflateEnd(&stream);
    if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
      return base::InvalidInput("{}: broken gzip data", path.string());
    }
    if (produced == 0 && status != Z_STREAM_END) {
      // Not an empty file compressed: its gzip stream stops before any content.
      return base::InvalidInput("{}: gzip data truncated: {} compressed bytes hold no content",
                                path.string(), head.size());
    }
    inflated.resize(produced);
    head = std::move(inflated);
  }
  auto format = DetectFormat(head);
  if (!format.ok()) {
    return format.error().WithContext(path.string());
  }
  return format;
}

}  // namespace frota::codec
