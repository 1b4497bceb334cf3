#include "frota/base/file.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace frota::base {

Result<std::string> ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return IoError("{}: cannot open: {}", path.string(), std::strerror(errno));
  }
  std::string bytes;
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size > 0) {
    bytes.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    in.read(bytes.data(), size);
  } else {
    // Not seekable (a pipe, /proc): read to the end.
    in.clear();
    in.seekg(0);
    std::ostringstream all;
    all << in.rdbuf();
    bytes = all.str();
  }
  if (in.bad()) {
    return IoError("{}: read failed", path.string());
  }
  return bytes;
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
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return Status::Ok();
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

std::size_t ThreadsFor(std::size_t units) {
  return std::min<std::size_t>(units, CoreCount());
}

void NameThisThread(const char* name) {
  char truncated[16] = {};
  std::strncpy(truncated, name, sizeof truncated - 1);
  pthread_setname_np(pthread_self(), truncated);
}

}  // namespace frota::base
