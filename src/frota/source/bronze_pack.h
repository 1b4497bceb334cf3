// A packed hour of the bronze archive (docs/bronze-archive.md "Packed hours"): an hour's
// responses, bodies and envelopes, in one zstd-compressed file with an index.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/base/time.h"

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

namespace frota::source {

/// The version of the pack format this frota writes and reads.
inline constexpr std::uint32_t kPackVersion = 1;
/// A packed hour's file name beside the hour's folder: hour=HH.pack.
inline constexpr std::string_view kPackSuffix = ".pack";

/// One response of a pack, as its index describes it.
struct PackEntry {
  std::string name;  // the loose body's file name: 1717675211000-000001.pb
  base::Timestamp ingest_time;
  bool repeat = false;
  bool has_envelope = true;  // a body copied in by hand has none
  /// Records its body decodes to (positions and rejections: the offsets it takes);
  /// -1 when the packer did not count them.
  std::int64_t records = -1;
  std::uint32_t block = 0;
  std::uint64_t offset = 0;  // in the block's uncompressed bytes: the envelope, then the body
  std::uint64_t envelope_bytes = 0;
  std::uint64_t body_bytes = 0;
  std::uint32_t crc32c = 0;  // of the envelope and the body
};

/// A response to pack: the loose files' bytes, exactly.
struct PackMember {
  std::string name;
  base::Timestamp ingest_time;
  bool repeat = false;
  std::optional<std::string> envelope;  // the .meta.json file's bytes; none: no envelope
  std::string body;
  std::int64_t records = -1;
};

/// Builds a pack in memory, members in ascending name order. Each block is one zstd
/// frame of consecutive members (a new one starts past `block_bytes` uncompressed), so a
/// response repeating the one before compresses to almost nothing.
class PackWriter {
 public:
  static constexpr int kDefaultLevel = 3;
  static constexpr std::size_t kDefaultBlockBytes = 64U << 20;
  explicit PackWriter(int level = kDefaultLevel, std::size_t block_bytes = kDefaultBlockBytes);
  ~PackWriter();
  PackWriter(const PackWriter&) = delete;
  PackWriter& operator=(const PackWriter&) = delete;

  base::Status Add(const PackMember& member);
  /// The whole file: header, blocks, index, trailer. The writer is spent afterwards.
  base::Result<std::string> Finish();
  [[nodiscard]] std::uint64_t uncompressed_bytes() const { return uncompressed_; }

 private:
  base::Status Compress(std::string_view bytes, bool end_block);

  ZSTD_CCtx_s* cctx_ = nullptr;
  std::size_t block_bytes_;
  std::string out_;
  std::vector<PackEntry> entries_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> blocks_;  // compressed, uncompressed
  std::uint64_t block_start_ = 0;                                // in out_
  std::uint64_t in_block_ = 0;  // uncompressed bytes of the open block
  std::uint64_t uncompressed_ = 0;
  bool open_block_ = false;
};

/// Reads a pack: its index at once, members on demand. Members read in order cost one
/// pass of decompression (the block's stream goes on from where it stopped); a member
/// before the last one read restarts its block. Every error names the file.
/// Not thread-safe.
class PackReader {
 public:
  static base::Result<std::unique_ptr<PackReader>> Open(const std::filesystem::path& path);
  /// A pack held in memory (tests, the fuzzer); `name` stands for the file in errors.
  static base::Result<std::unique_ptr<PackReader>> FromBytes(std::string name, std::string bytes);
  ~PackReader();
  PackReader(const PackReader&) = delete;
  PackReader& operator=(const PackReader&) = delete;

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const std::vector<PackEntry>& entries() const { return entries_; }
  /// The entry of the response named `name` (a loose body's file name).
  [[nodiscard]] std::optional<std::size_t> Find(std::string_view name) const;

  struct Member {
    std::string_view envelope;
    std::string_view body;
  };
  /// Entry `i`'s bytes, checked against its CRC-32C; valid until the next Read.
  base::Result<Member> Read(std::size_t i);

 private:
  PackReader() = default;
  base::Status Load();
  base::Status ReadAt(std::uint64_t offset, std::size_t size, std::string& out) const;
  base::Status StartBlock(std::uint32_t block);
  // Decompresses the open block's stream up to `until` (uncompressed), keeping the bytes
  // from `keep_from` on in member_.
  base::Status Advance(std::uint64_t until, std::uint64_t keep_from);
  [[nodiscard]] base::Error Damaged(std::string_view what) const;

  std::string name_;
  int fd_ = -1;
  std::string bytes_;  // FromBytes: the whole pack
  std::uint64_t size_ = 0;
  std::vector<PackEntry> entries_;
  struct Block {
    std::uint64_t offset = 0;
    std::uint64_t compressed = 0;
    std::uint64_t uncompressed = 0;
  };
  std::vector<Block> blocks_;
  ZSTD_DCtx_s* dctx_ = nullptr;
  std::optional<std::uint32_t> block_;  // the block whose stream is open
  std::uint64_t produced_ = 0;          // its uncompressed bytes decompressed so far
  std::uint64_t consumed_ = 0;          // its compressed bytes read so far
  std::string input_;                   // compressed bytes read, not yet decompressed
  std::size_t input_pos_ = 0;
  std::string member_;
  std::string scratch_;
};

/// FEED/date=D/hour=HH.pack for a loose body's path FEED/date=D/hour=HH/NAME.
std::filesystem::path PackOf(const std::filesystem::path& body);

}  // namespace frota::source
