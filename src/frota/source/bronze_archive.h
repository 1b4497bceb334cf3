// The bronze archive (docs/bronze-archive.md): raw responses written atomically, and read back.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/codec/decode.h"
#include "frota/codec/format.h"
#include "frota/model/mode.h"

namespace frota::source {

/// What an archive says about one of its feeds (FEED/feed.json).
struct FeedInfo {
  std::string feed_id;
  codec::Format format = codec::Format::kGtfsRt;
  std::optional<model::Mode> mode;
  std::string time_zone;  // of naive local timestamps in the bodies; empty: default
  std::string url;        // where it was polled from (no credentials)
};

/// The envelope of one archived response.
struct ResponseEnvelope {
  base::Timestamp ingest_time;
  int http_status = 200;
  std::vector<std::pair<std::string, std::string>> headers;  // response headers only
  bool repeat = false;
  double duration_ms = 0;
  /// The collecting run and this response's poll within it (1, 2, ...); empty and 0
  /// outside a collector (`frota simulate`): written as null.
  std::string run_id;
  std::int64_t collection_number = 0;
};

/// Writes one feed's responses into ROOT/FEED/date=YYYY-MM-DD/hour=HH/.
///
/// Every file is written to a temporary name, fsynced and renamed; the envelope before
/// the body, so a visible body always has its envelope. Not thread-safe: one writer per
/// feed. The sequence number continues after the largest one already in the archive.
class BronzeWriter {
 public:
  static base::Result<std::unique_ptr<BronzeWriter>> Open(const std::filesystem::path& root,
                                                          FeedInfo info);
  /// Archives `body` with `envelope`; returns the body's path.
  base::Result<std::filesystem::path> Write(const ResponseEnvelope& envelope,
                                            std::string_view body);
  [[nodiscard]] const FeedInfo& info() const { return info_; }
  /// Just after the newest response an earlier run left (1 ms past the millisecond in its
  /// name), so a collector can keep ingest times growing across restarts; nullopt when
  /// the feed has no responses yet.
  [[nodiscard]] std::optional<base::Timestamp> last_ingest_time() const {
    return last_ingest_time_;
  }

 private:
  BronzeWriter() = default;
  std::filesystem::path feed_dir_;
  FeedInfo info_;
  std::int64_t sequence_ = 0;
  std::optional<base::Timestamp> last_ingest_time_;
};

/// One archived response found on disk.
struct ArchivedFile {
  std::filesystem::path body;
  base::Timestamp ingest_time;
  bool repeat = false;
};

/// One feed of an archive, its responses in name (= ingest) order.
struct ArchivedFeed {
  FeedInfo info;
  std::filesystem::path dir;
  std::vector<ArchivedFile> files;
};

/// Lists every feed of the archive at `root` and its complete responses (temporary files
/// of an interrupted write are ignored). Errors name the file: a missing or broken
/// feed.json, an unreadable envelope.
base::Result<std::vector<ArchivedFeed>> ListArchive(const std::filesystem::path& root);

/// Reads FEED/feed.json; errors name the file.
base::Result<FeedInfo> ReadFeedInfo(const std::filesystem::path& feed_dir);

/// Decodes one archived response. A body that is not the feed's format at all (an HTML
/// error page served with status 200, an empty body) still happened: it becomes one
/// `bad_payload` rejection carrying the decoder's message, so replays and live runs count
/// it instead of stopping. Returns the decoder's error in that case (the rejection is
/// appended all the same), for logging.
base::Result<codec::ResponseInfo> DecodeArchivedResponse(codec::Format format,
                                                         std::string_view body,
                                                         const codec::DecodeOptions& options,
                                                         codec::DecodedBatch& out);

/// The file extension of a format's bodies: pb, json or csv.
std::string_view BodyExtension(codec::Format format);

}  // namespace frota::source
