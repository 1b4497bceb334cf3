#include "frota/source/bronze_pack.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "frota/base/bytes.h"
#include "frota/base/hash.h"

namespace frota::source {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kHeaderMagic = "FROTAPAK";
constexpr std::string_view kTrailerMagic = "FROTAEND";
constexpr std::uint32_t kZstd = 1;
constexpr std::size_t kHeaderBytes = 16;   // magic, version, compression
constexpr std::size_t kTrailerBytes = 24;  // index offset, index size, index CRC, magic
constexpr std::uint8_t kRepeat = 1;
constexpr std::uint8_t kHasEnvelope = 2;
// Members are decompressed into a buffer grown as bytes arrive, this much at a time, so
// a damaged index claiming a huge member fails when the data ends, not on allocation.
constexpr std::size_t kGrowBytes = 4U << 20;
constexpr std::size_t kReadBytes = 256U << 10;

std::string ZstdError(std::size_t code) { return ZSTD_getErrorName(code); }

}  // namespace

fs::path PackOf(const fs::path& body) {
  return fs::path(body.parent_path().string() + std::string(kPackSuffix));
}

// ---- writer ------------------------------------------------------------------------------

PackWriter::PackWriter(int level, std::size_t block_bytes)
    : cctx_(ZSTD_createCCtx()), block_bytes_(block_bytes) {
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
  base::ByteWriter header;
  header.Raw(kHeaderMagic);
  header.U32(kPackVersion);
  header.U32(kZstd);
  out_ = header.Take();
}

PackWriter::~PackWriter() { ZSTD_freeCCtx(cctx_); }

base::Status PackWriter::Compress(std::string_view bytes, bool end_block) {
  ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
  const auto mode = end_block ? ZSTD_e_end : ZSTD_e_continue;
  while (true) {
    const std::size_t at = out_.size();
    out_.resize(at + ZSTD_CStreamOutSize());
    ZSTD_outBuffer out{out_.data() + at, ZSTD_CStreamOutSize(), 0};
    const std::size_t left = ZSTD_compressStream2(cctx_, &out, &in, mode);
    out_.resize(at + out.pos);
    if (ZSTD_isError(left) != 0U) {
      return base::Internal("zstd compression failed: {}", ZstdError(left));
    }
    if (end_block ? left == 0 : in.pos == in.size) {
      return base::Status::Ok();
    }
  }
}

base::Status PackWriter::Add(const PackMember& member) {
  if (!entries_.empty() && member.name <= entries_.back().name) {
    return base::Internal("pack members out of order: {} after {}", member.name,
                          entries_.back().name);
  }
  if (open_block_ && in_block_ >= block_bytes_) {
    FROTA_RETURN_IF_ERROR(Compress({}, true));
    blocks_.emplace_back(out_.size() - block_start_, in_block_);
    open_block_ = false;
  }
  if (!open_block_) {
    block_start_ = out_.size();
    in_block_ = 0;
    open_block_ = true;
  }
  PackEntry entry;
  entry.name = member.name;
  entry.ingest_time = member.ingest_time;
  entry.repeat = member.repeat;
  entry.has_envelope = member.envelope.has_value();
  entry.records = member.records;
  entry.block = static_cast<std::uint32_t>(blocks_.size());
  entry.offset = in_block_;
  const std::string_view envelope = member.envelope ? *member.envelope : std::string_view();
  entry.envelope_bytes = envelope.size();
  entry.body_bytes = member.body.size();
  entry.crc32c = base::Crc32c(member.body, base::Crc32c(envelope));
  FROTA_RETURN_IF_ERROR(Compress(envelope, false));
  FROTA_RETURN_IF_ERROR(Compress(member.body, false));
  in_block_ += envelope.size() + member.body.size();
  uncompressed_ += envelope.size() + member.body.size();
  entries_.push_back(std::move(entry));
  return base::Status::Ok();
}

base::Result<std::string> PackWriter::Finish() {
  if (open_block_) {
    FROTA_RETURN_IF_ERROR(Compress({}, true));
    blocks_.emplace_back(out_.size() - block_start_, in_block_);
    open_block_ = false;
  }
  base::ByteWriter index;
  index.Varint(blocks_.size());
  for (const auto& [compressed, uncompressed] : blocks_) {
    index.Varint(compressed);
    index.Varint(uncompressed);
  }
  index.Varint(entries_.size());
  for (const auto& e : entries_) {
    index.String(e.name);
    index.SignedVarint(base::ToUnixMicros(e.ingest_time));
    index.U8((e.repeat ? kRepeat : 0) | (e.has_envelope ? kHasEnvelope : 0));
    index.SignedVarint(e.records);
    index.Varint(e.block);
    index.Varint(e.offset);
    index.Varint(e.envelope_bytes);
    index.Varint(e.body_bytes);
    index.U32(e.crc32c);
  }
  const std::uint64_t index_offset = out_.size();
  out_.append(index.bytes());
  base::ByteWriter trailer;
  trailer.U64(index_offset);
  trailer.U32(static_cast<std::uint32_t>(index.size()));
  trailer.U32(base::Crc32c(index.bytes()));
  trailer.Raw(kTrailerMagic);
  out_.append(trailer.bytes());
  return std::move(out_);
}

// ---- reader ------------------------------------------------------------------------------

PackReader::~PackReader() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
  ZSTD_freeDCtx(dctx_);
}

base::Result<std::unique_ptr<PackReader>> PackReader::Open(const fs::path& path) {
  std::unique_ptr<PackReader> reader(new PackReader());
  reader->name_ = path.string();
  reader->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (reader->fd_ < 0) {
    const int error = errno;
    if (error == ENOENT) {
      return base::NotFound("{}: no such pack", reader->name_);
    }
    return base::IoError("{}: cannot open: {}", reader->name_, std::strerror(error));
  }
  const off_t size = ::lseek(reader->fd_, 0, SEEK_END);
  if (size < 0) {
    return base::IoError("{}: cannot seek: {}", reader->name_, std::strerror(errno));
  }
  reader->size_ = static_cast<std::uint64_t>(size);
  FROTA_RETURN_IF_ERROR(reader->Load());
  return reader;
}

base::Result<std::unique_ptr<PackReader>> PackReader::FromBytes(std::string name,
                                                                std::string bytes) {
  std::unique_ptr<PackReader> reader(new PackReader());
  reader->name_ = std::move(name);
  reader->bytes_ = std::move(bytes);
  reader->size_ = reader->bytes_.size();
  FROTA_RETURN_IF_ERROR(reader->Load());
  return reader;
}

base::Error PackReader::Damaged(std::string_view what) const {
  return base::InvalidInput("{}: damaged pack: {}", name_, what);
}

base::Status PackReader::ReadAt(std::uint64_t offset, std::size_t size, std::string& out) const {
  if (offset > size_ || size > size_ - offset) {
    return Damaged(fmt::format("{} bytes at {} lie past its end ({} bytes)", size, offset, size_));
  }
  out.resize(size);
  if (fd_ < 0) {
    std::memcpy(out.data(), bytes_.data() + offset, size);
    return base::Status::Ok();
  }
  std::size_t done = 0;
  while (done < size) {
    const auto n = ::pread(fd_, out.data() + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return base::IoError("{}: read failed: {}", name_, std::strerror(errno));
    }
    if (n == 0) {
      return Damaged("shorter than it was a moment ago");
    }
    done += static_cast<std::size_t>(n);
  }
  return base::Status::Ok();
}

base::Status PackReader::Load() {
  if (size_ < kHeaderBytes + kTrailerBytes) {
    return Damaged(fmt::format("{} bytes, too short for a header and a trailer", size_));
  }
  std::string header;
  FROTA_RETURN_IF_ERROR(ReadAt(0, kHeaderBytes, header));
  base::ByteReader h(header);
  if (*h.Raw(kHeaderMagic.size()) != kHeaderMagic) {
    return base::InvalidInput("{}: not a frota pack (no FROTAPAK header)", name_);
  }
  const auto version = *h.U32();
  if (version != kPackVersion) {
    return base::InvalidInput("{}: pack version {}, this frota reads version {}", name_, version,
                              kPackVersion);
  }
  if (const auto compression = *h.U32(); compression != kZstd) {
    return Damaged(fmt::format("unknown compression {}", compression));
  }
  std::string trailer;
  FROTA_RETURN_IF_ERROR(ReadAt(size_ - kTrailerBytes, kTrailerBytes, trailer));
  base::ByteReader t(trailer);
  const auto index_offset = *t.U64();
  const auto index_size = *t.U32();
  const auto index_crc = *t.U32();
  if (*t.Raw(kTrailerMagic.size()) != kTrailerMagic) {
    return Damaged("no FROTAEND trailer (cut short?)");
  }
  if (index_offset < kHeaderBytes || index_offset > size_ - kTrailerBytes ||
      index_size != size_ - kTrailerBytes - index_offset) {
    return Damaged(fmt::format("index at {} of {} bytes does not end at the trailer", index_offset,
                               index_size));
  }
  std::string index;
  FROTA_RETURN_IF_ERROR(ReadAt(index_offset, index_size, index));
  if (base::Crc32c(index) != index_crc) {
    return Damaged("index checksum mismatch");
  }
  base::ByteReader r(index);
  const auto parse = [&]() -> base::Status {
    FROTA_ASSIGN_OR_RETURN(const auto block_count, r.Varint());
    std::uint64_t at = kHeaderBytes;
    for (std::uint64_t b = 0; b < block_count; ++b) {
      Block block;
      block.offset = at;
      FROTA_ASSIGN_OR_RETURN(block.compressed, r.Varint());
      FROTA_ASSIGN_OR_RETURN(block.uncompressed, r.Varint());
      if (block.compressed > index_offset - at) {
        return Damaged(fmt::format("block {} runs past the index", b));
      }
      at += block.compressed;
      blocks_.push_back(block);
    }
    if (at != index_offset) {
      return Damaged("blocks do not end where the index starts");
    }
    FROTA_ASSIGN_OR_RETURN(const auto entry_count, r.Varint());
    for (std::uint64_t i = 0; i < entry_count; ++i) {
      PackEntry e;
      FROTA_ASSIGN_OR_RETURN(const auto name, r.String());
      e.name = std::string(name);
      FROTA_ASSIGN_OR_RETURN(const auto micros, r.SignedVarint());
      e.ingest_time = base::FromUnixMicros(micros);
      FROTA_ASSIGN_OR_RETURN(const auto flags, r.U8());
      e.repeat = (flags & kRepeat) != 0;
      e.has_envelope = (flags & kHasEnvelope) != 0;
      FROTA_ASSIGN_OR_RETURN(e.records, r.SignedVarint());
      FROTA_ASSIGN_OR_RETURN(const auto block, r.Varint());
      FROTA_ASSIGN_OR_RETURN(e.offset, r.Varint());
      FROTA_ASSIGN_OR_RETURN(e.envelope_bytes, r.Varint());
      FROTA_ASSIGN_OR_RETURN(e.body_bytes, r.Varint());
      FROTA_ASSIGN_OR_RETURN(e.crc32c, r.U32());
      if (e.name.empty() || e.name.find('/') != std::string::npos || e.name == "." ||
          e.name == ".." || (!entries_.empty() && e.name <= entries_.back().name)) {
        return Damaged(fmt::format("entry {}: bad or unordered name", i));
      }
      if (block >= blocks_.size() || e.records < -1) {
        return Damaged(fmt::format("entry {} ({}): bad block or record count", i, e.name));
      }
      e.block = static_cast<std::uint32_t>(block);
      const auto room = blocks_[block].uncompressed;
      if (e.offset > room || e.envelope_bytes > room - e.offset ||
          e.body_bytes > room - e.offset - e.envelope_bytes) {
        return Damaged(fmt::format("entry {} ({}) lies past its block's end", i, e.name));
      }
      entries_.push_back(std::move(e));
    }
    if (!r.AtEnd()) {
      return Damaged("bytes after the index's last entry");
    }
    return base::Status::Ok();
  };
  if (const auto parsed = parse(); !parsed.ok()) {
    return parsed.error().message().starts_with(name_) ? parsed.error()
                                                       : Damaged(parsed.error().message());
  }
  return base::Status::Ok();
}

std::optional<std::size_t> PackReader::Find(std::string_view name) const {
  const auto it =
      std::lower_bound(entries_.begin(), entries_.end(), name,
                       [](const PackEntry& e, std::string_view n) { return e.name < n; });
  if (it == entries_.end() || it->name != name) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(it - entries_.begin());
}

base::Status PackReader::StartBlock(std::uint32_t block) {
  if (dctx_ == nullptr) {
    dctx_ = ZSTD_createDCtx();
  }
  ZSTD_DCtx_reset(dctx_, ZSTD_reset_session_only);
  block_ = block;
  produced_ = 0;
  consumed_ = 0;
  input_.clear();
  input_pos_ = 0;
  return base::Status::Ok();
}

base::Status PackReader::Advance(std::uint64_t until, std::uint64_t keep_from) {
  const Block& block = blocks_[*block_];
  member_.clear();
  while (produced_ < until) {
    if (input_pos_ == input_.size()) {
      const std::uint64_t left = block.compressed - consumed_;
      if (left == 0) {
        return Damaged(fmt::format("block {} ends after {} of its {} bytes", *block_, produced_,
                                   block.uncompressed));
      }
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(left, kReadBytes));
      FROTA_RETURN_IF_ERROR(ReadAt(block.offset + consumed_, n, input_));
      consumed_ += n;
      input_pos_ = 0;
    }
    char* dest = nullptr;
    std::size_t room = 0;
    if (produced_ < keep_from) {
      scratch_.resize(kReadBytes);
      dest = scratch_.data();
      room = static_cast<std::size_t>(std::min<std::uint64_t>(keep_from - produced_, kReadBytes));
    } else {
      const std::size_t have = member_.size();
      room = static_cast<std::size_t>(std::min<std::uint64_t>(until - produced_, kGrowBytes));
      member_.resize(have + room);
      dest = member_.data() + have;
    }
    ZSTD_inBuffer in{input_.data(), input_.size(), input_pos_};
    ZSTD_outBuffer out{dest, room, 0};
    const std::size_t ret = ZSTD_decompressStream(dctx_, &out, &in);
    input_pos_ = in.pos;
    if (produced_ >= keep_from) {
      member_.resize(member_.size() - room + out.pos);
    }
    produced_ += out.pos;
    if (ZSTD_isError(ret) != 0U) {
      return Damaged(fmt::format("block {} does not decompress: {}", *block_, ZstdError(ret)));
    }
    if (ret == 0 && produced_ < until) {
      return Damaged(fmt::format("block {} ends after {} of its {} bytes", *block_, produced_,
                                 block.uncompressed));
    }
  }
  return base::Status::Ok();
}

base::Result<PackReader::Member> PackReader::Read(std::size_t i) {
  if (i >= entries_.size()) {
    return base::Internal("{}: no entry {}", name_, i);
  }
  const PackEntry& e = entries_[i];
  if (!block_ || *block_ != e.block || produced_ > e.offset) {
    FROTA_RETURN_IF_ERROR(StartBlock(e.block));
  }
  const std::uint64_t end = e.offset + e.envelope_bytes + e.body_bytes;
  if (const auto advanced = Advance(end, e.offset); !advanced.ok()) {
    block_.reset();  // the stream is unusable: the next read starts its block again
    return advanced.error();
  }
  if (base::Crc32c(member_) != e.crc32c) {
    return Damaged(fmt::format("{}: checksum mismatch", e.name));
  }
  const std::string_view bytes(member_);
  return Member{bytes.substr(0, e.envelope_bytes), bytes.substr(e.envelope_bytes)};
}

}  // namespace frota::source
