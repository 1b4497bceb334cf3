// The Rio archive reader's byte sources: a file, memory, or either through zlib.
// Part of archive_csv.cc's reader, apart so each file holds one concern; included only
// there.
#pragma once

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"

namespace frota::codec::archive_csv_internal {

// --- byte sources ----------------------------------------------------------------------

// Produces the bytes of a file or of memory, in chunks; errors name the input and offset.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Fills up to `capacity` bytes; 0 means the end.
  virtual base::Result<std::size_t> Read(char* out, std::size_t capacity) = 0;
};

class FileSource final : public ByteSource {
 public:
  FileSource(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  ~FileSource() override { ::close(fd_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  base::Result<std::size_t> Read(char* out, std::size_t capacity) override {
    while (true) {
      const ssize_t n = ::read(fd_, out, capacity);
      if (n >= 0) {
        offset_ += static_cast<std::uint64_t>(n);
        return static_cast<std::size_t>(n);
      }
      if (errno != EINTR) {
        return base::IoError("{}: read failed at byte {}: {}", name_, offset_,
                             std::strerror(errno));
      }
    }
  }

 private:
  int fd_;
  std::string name_;
  std::uint64_t offset_ = 0;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  base::Result<std::size_t> Read(char* out, std::size_t capacity) override {
    const std::size_t n = std::min(capacity, bytes_.size());
    std::memcpy(out, bytes_.data(), n);
    bytes_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view bytes_;
};

// Inflates a gzip stream (several concatenated members too, as `cat a.gz b.gz` makes).
class GzipSource final : public ByteSource {
 public:
  GzipSource(std::unique_ptr<ByteSource> inner, std::string name, std::size_t input_buffer)
      : inner_(std::move(inner)), name_(std::move(name)), input_(input_buffer) {}
  ~GzipSource() override {
    if (initialized_) {
      inflateEnd(&stream_);
    }
  }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  base::Status Init() {
    if (inflateInit2(&stream_, 15 + 16) != Z_OK) {
      return base::Internal("{}: zlib initialisation failed", name_);
    }
    initialized_ = true;
    return base::Status::Ok();
  }

  base::Result<std::size_t> Read(char* out, std::size_t capacity) override {
    stream_.next_out = reinterpret_cast<Bytef*>(out);
    // zlib counts in uInt; a chunk is far below 4 GiB.
    stream_.avail_out = static_cast<uInt>(std::min<std::size_t>(capacity, 1U << 30));
    const uInt wanted = stream_.avail_out;
    while (stream_.avail_out == wanted) {
      if (stream_.avail_in == 0 && !input_done_) {
        FROTA_ASSIGN_OR_RETURN(const std::size_t n, inner_->Read(input_.data(), input_.size()));
        read_ += n;
        input_done_ = n == 0;
        stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
        stream_.avail_in = static_cast<uInt>(n);
      }
      if (stream_.avail_in == 0 && input_done_) {
        if (in_member_) {
          return base::InvalidInput("{}: gzip data truncated at compressed byte {}", name_,
                                    Consumed());
        }
        break;
      }
      if (!in_member_) {
        // Another member follows the one that ended; anything else is not gzip.
        if (*stream_.next_in != 0x1f) {
          return base::InvalidInput(
              "{}: bytes after the end of the gzip data at compressed byte {}", name_, Consumed());
        }
        inflateReset(&stream_);
        in_member_ = true;
      }
      const int status = inflate(&stream_, Z_NO_FLUSH);
      if (status == Z_STREAM_END) {
        in_member_ = false;
      } else if (status != Z_OK && status != Z_BUF_ERROR) {
        return base::InvalidInput(
            "{}: broken gzip data ({}) at compressed byte {}, uncompressed byte {}", name_,
            stream_.msg != nullptr ? stream_.msg : "inflate failed", Consumed(),
            produced_ + (wanted - stream_.avail_out));
      }
    }
    const std::size_t n = wanted - stream_.avail_out;
    produced_ += n;
    return n;
  }

 private:
  [[nodiscard]] std::uint64_t Consumed() const { return read_ - stream_.avail_in; }

  std::unique_ptr<ByteSource> inner_;
  std::string name_;
  std::vector<char> input_;
  z_stream stream_{};
  bool initialized_ = false;
  bool in_member_ = true;
  bool input_done_ = false;
  std::uint64_t read_ = 0;
  std::uint64_t produced_ = 0;
};

inline bool IsGzipMagic(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

}  // namespace frota::codec::archive_csv_internal
