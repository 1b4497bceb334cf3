#include "frota/base/file.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>

namespace frota::base {

Result<std::string> ReadFile(const std::filesystem::path& path) {
  std::string bytes;
  FROTA_RETURN_IF_ERROR(ReadFileInto(path, bytes));
  return bytes;
}

FileBytes::~FileBytes() { Unmap(); }

void FileBytes::Unmap() {
  if (map_ != nullptr) {
    ::munmap(map_, map_size_);
    map_ = nullptr;
    map_size_ = 0;
  }
  bytes_ = {};
}

Status FileBytes::Load(const std::filesystem::path& path) {
  Unmap();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return IoError("{}: cannot open: {}", path.string(), std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    const auto size = static_cast<std::size_t>(st.st_size);
    // MAP_POPULATE: the parser reads every page, so they are all mapped in one call
    // instead of a fault per few pages.
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (map != MAP_FAILED) {
      ::close(fd);
      map_ = map;
      map_size_ = size;
      bytes_ = std::string_view(static_cast<const char*>(map), size);
      return Status::Ok();
    }
  }
  ::close(fd);
  // Not mappable (or mapping failed: out of address space, a file system without mmap):
  // read it.
  FROTA_RETURN_IF_ERROR(ReadFileInto(path, buffer_));
  bytes_ = buffer_;
  return Status::Ok();
}

Status ReadFileInto(const std::filesystem::path& path, std::string& bytes) {
  bytes.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return IoError("{}: cannot open: {}", path.string(), std::strerror(errno));
  }
  // The size is a hint: a file that grows or shrinks meanwhile (or a pipe, or /proc,
  // which report 0) is read to its end all the same.
  struct stat st {};
  std::size_t want = 64 << 10;
  if (::fstat(fd, &st) == 0 && st.st_size > 0) {
    want = static_cast<std::size_t>(st.st_size) + 1;  // + 1: the read that sees the end
  }
  std::size_t size = 0;
  for (;;) {
    if (bytes.size() < size + want) {
      bytes.resize(size + want);
    }
    const ::ssize_t n = ::read(fd, bytes.data() + size, bytes.size() - size);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      const int error = errno;
      ::close(fd);
      bytes.clear();
      return IoError("{}: read failed: {}", path.string(), std::strerror(error));
    }
    if (n == 0) {
      break;
    }
    size += static_cast<std::size_t>(n);
    if (size == bytes.size()) {
      want = std::max<std::size_t>(size, 64 << 10);  // more than the size said: double
    }
  }
  ::close(fd);
  bytes.resize(size);
  return Status::Ok();
}

Status WriteFileAtomic(const std::filesystem::path& path, std::string_view bytes) {
  const auto tmp = path.string() + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return IoError("{}: cannot create: {}", tmp, std::strerror(errno));
  }
  std::size_t written = 0;
  while (written < bytes.size()) {
    const auto n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      const std::string reason = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return IoError("{}: write failed: {}", tmp, reason);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(tmp.c_str());
    return IoError("{}: fsync failed: {}", tmp, reason);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(tmp.c_str());
    return IoError("{}: rename failed: {}", path.string(), reason);
  }
  SyncFolder(path.has_parent_path() ? path.parent_path() : std::filesystem::path("."));
  return Status::Ok();
}

void SyncFolder(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

namespace {
std::int64_t ReadStatusKb(std::string_view field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) {
      return std::stoll(line.substr(field.size())) * 1024;
    }
  }
  return 0;
}
}  // namespace

std::int64_t PeakRssBytes() { return ReadStatusKb("VmHWM:"); }
std::int64_t CurrentRssBytes() { return ReadStatusKb("VmRSS:"); }

unsigned CoreCount() { return std::max(1U, std::thread::hardware_concurrency()); }

std::size_t ThreadsFor(std::size_t units) { return std::min<std::size_t>(units, CoreCount()); }

void NameThisThread(const char* name) {
  char truncated[16] = {};
  std::strncpy(truncated, name, sizeof truncated - 1);
  pthread_setname_np(pthread_self(), truncated);
}

}  // namespace frota::base
