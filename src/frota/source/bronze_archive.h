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

#include "frota/base/file.h"
#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/codec/decode.h"
#include "frota/codec/format.h"
#include "frota/model/mode.h"
#include "frota/source/bronze_pack.h"

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

/// One archived response found on disk, loose or packed.
struct ArchivedFile {
  /// FEED/date=D/hour=HH/NAME, the loose body's path whether or not its hour is packed:
  /// the `source` of its records, which packing never changes.
  std::filesystem::path body;
  base::Timestamp ingest_time;
  bool repeat = false;
  bool packed = false;  // in FEED/date=D/hour=HH.pack
  /// The records its body decodes to, as its pack counted them; -1: unknown.
  std::int64_t records = -1;
};

/// What retention removed from the start of a feed or of a poll journal (its
/// retention.json, docs/bronze-archive.md "Retention"): everything up to and including
/// `through`, whose records (a journal's lines) keep their offsets' places.
struct RemovedPrefix {
  std::string through;         // "date=D/hour=HH" (a feed), "date=D.jsonl" (a journal); "": none
  std::int64_t records = 0;    // a journal: lines
  std::int64_t responses = 0;  // a journal: files
  std::int64_t bytes = 0;
};

/// The retention ledger of a feed folder or a journal folder; no file: nothing removed.
/// Errors name the file.
base::Result<RemovedPrefix> ReadRemovedPrefix(const std::filesystem::path& dir);
/// The ledger's file name in a feed or journal folder.
inline constexpr std::string_view kRetentionLedger = "retention.json";

/// One feed of an archive, its responses in name (= ingest) order.
struct ArchivedFeed {
  FeedInfo info;
  std::filesystem::path dir;
  std::vector<ArchivedFile> files;
  /// The offset of the first record of `files`: the records of the hours retention removed.
  std::int64_t first_offset = 0;
};

/// The feed folders of the archive at `root` (those holding a feed.json), in name order.
std::vector<std::filesystem::path> FeedFolders(const std::filesystem::path& root);

/// Lists every feed of the archive at `root` and its complete responses, loose and
/// packed (temporary files of an interrupted write are ignored; hours retention removed
/// are left out). Errors name the file: a missing or broken feed.json, an unreadable
/// envelope, a damaged pack index.
base::Result<std::vector<ArchivedFeed>> ListArchive(const std::filesystem::path& root);

/// The hours of a feed folder holding responses, as "date=YYYY-MM-DD/hour=HH" (a folder
/// of loose responses, a pack, or both), oldest first; only those from `from` on.
/// Safe while a compaction runs: an hour is looked for as a folder first, then as a
/// pack, and a compaction writes the pack before it removes the folder.
base::Result<std::vector<std::string>> ListHours(const std::filesystem::path& feed_dir,
                                                 std::string_view from = {});
/// The responses of one hour (ListHours' form), loose and packed, in name order; only
/// names after `after`. Loose files are listed before the pack is opened, so a
/// compaction in between loses nothing, and a response both loose and packed (between a
/// compaction's rename and its removals) is listed once, as packed.
base::Result<std::vector<ArchivedFile>> ListHour(const std::filesystem::path& feed_dir,
                                                 const std::string& hour,
                                                 std::string_view after = {});

/// Reads archived bodies one after another, loose or packed, keeping the pack in use
/// open so that reading a packed hour in order decompresses it once. A loose body that
/// is gone (its hour was packed since it was listed) is read from the pack.
class ResponseBodies {
 public:
  ResponseBodies();
  ~ResponseBodies();
  ResponseBodies(const ResponseBodies&) = delete;
  ResponseBodies& operator=(const ResponseBodies&) = delete;
  /// The body of ArchivedFile `body` / `packed`; valid until the next call.
  base::Result<std::string_view> Body(const std::filesystem::path& body, bool packed);

 private:
  base::Result<std::string_view> Packed(const std::filesystem::path& body);
  base::FileBytes loose_;
  std::unique_ptr<PackReader> pack_;
};

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
