// A local HTTP server (cpp-httplib, loopback only) that serves feed captures with faults.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "frota/base/time.h"

namespace httplib {
class Server;
}

namespace frota::collect::testing {

/// What the server does with one request.
enum class Fault {
  kOk,                // 200 with the next body variant (fresh content)
  kRepeat,            // 200 with the same bytes as the previous 200
  kServerError,       // 500
  kUnavailable,       // 503
  kRateLimitSeconds,  // 429 Retry-After: <seconds>
  kRateLimitDate,     // 429 Retry-After: <HTTP date>
  kRateLimitOpenSky,  // 429 X-Rate-Limit-Retry-After-Seconds: <seconds> (OpenSky's header)
  kRateLimitBare,     // 429 without any hint
  kNotFound,          // 404
  kSlow,              // sleeps `slow_ms` (real time), then 200 with the next variant
  kTruncated,         // 200 announcing the whole body, sending half, closing
  kEmpty,             // 200 with an empty body
  kHtml,              // 200 with an HTML error page
  kNotModified,       // 304 when the request carries the last ETag, else like kOk
};
std::string_view FaultName(Fault fault);

/// How one feed path behaves: its body variants (served in rotation by kOk) and a
/// script of faults, one per request, then `otherwise` for every request after it.
struct FeedScript {
  std::vector<std::string> variants;
  std::string content_type = "application/json";
  std::deque<Fault> script;
  Fault otherwise = Fault::kOk;
  int retry_after_s = 30;  // for the 429 faults
  int slow_ms = 1500;
  bool keep_bodies = true;  // false: ServedRequest::body stays empty (long tests)
};

/// One request as the server saw and answered it.
struct ServedRequest {
  Fault fault = Fault::kOk;
  int status = 0;
  std::optional<std::size_t> variant;  // the body variant of a 200 (none: empty/HTML/...)
  std::string body;                    // the bytes meant to arrive (200s)
  base::Timestamp at;                  // by the test's clock
  bool conditional = false;            // the request had If-None-Match or If-Modified-Since
  std::string authorization;           // the Authorization header it carried
};

/// Serves GET /feed/NAME per its script, on 127.0.0.1 and a free port; POST /token
/// answers an OAuth2 client-credentials request. Records everything it served.
///
/// Thread-safe: scripts may change while serving; the server runs on its own threads
/// until Stop() or destruction.
class FaultServer {
 public:
  /// `now` gives the test's (possibly virtual) time, for Retry-After dates and logs.
  explicit FaultServer(std::function<base::Timestamp()> now);
  ~FaultServer();
  FaultServer(const FaultServer&) = delete;
  FaultServer& operator=(const FaultServer&) = delete;

  void SetScript(const std::string& feed, FeedScript script);
  /// Appends faults to a feed's script.
  void Push(const std::string& feed, std::vector<Fault> faults);
  [[nodiscard]] std::string Url(const std::string& feed) const;
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] std::vector<ServedRequest> Served(const std::string& feed) const;
  /// Forgets what was served (keeps scripts), to bound memory in long tests.
  std::vector<ServedRequest> TakeServed(const std::string& feed);
  [[nodiscard]] std::int64_t token_requests() const;
  void Stop();

 private:
  struct State {
    FeedScript script;
    std::size_t next_variant = 0;
    std::optional<std::size_t> last_variant;
    std::vector<ServedRequest> served;
  };
  std::function<base::Timestamp()> now_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::map<std::string, State> feeds_;
  std::int64_t token_requests_ = 0;
};

/// Variants of a JSON capture that differ only in trailing whitespace: distinct bytes
/// (and content hashes), the same records.
std::vector<std::string> JsonVariants(const std::string& body, std::size_t n);

/// A Rio SPPO response: `buses` buses of line 107 (ids B<first_id>, B<first_id+1>, ...)
/// moving east about 5 m/s per poll, sent at `at_ms` (Unix ms), bus b's position taken
/// b * `spacing_ms` earlier.
std::string SppoResponse(int poll, int buses, std::int64_t at_ms, int first_id, int spacing_ms);

/// A port on 127.0.0.1 where nothing listens (bound, then closed): connection refused.
int ClosedPort();

}  // namespace frota::collect::testing
