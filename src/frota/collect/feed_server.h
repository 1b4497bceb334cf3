// `frota feed-server`: a bronze archive's responses served over HTTP as the feeds sent them.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "frota/base/clock.h"
#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/source/bronze_archive.h"

namespace httplib {
class Server;
struct Response;
}  // namespace httplib

namespace frota::collect {

/// A fault the feed server answers some requests with instead of the feed's response.
enum class FeedFault {
  kRateLimit,    // 429 Too Many Requests with Retry-After: <seconds>
  kServerError,  // 500
  kTruncated,    // 200 announcing the whole body, sending half of it, closing
  kRepeat,       // 200 with the body of the previous 200 of that feed again
};
std::string_view FeedFaultName(FeedFault fault);

/// Every `every`-th request of each feed (the every-th, 2 × every-th, ...) gets `fault`.
struct FeedFaultRule {
  FeedFault fault = FeedFault::kServerError;
  std::int64_t every = 0;
};

/// Parses `--fault` values: KIND=N with KIND rate-limit, server-error, truncated or repeat
/// and N ≥ 1. Errors name the value and the kinds.
base::Result<std::vector<FeedFaultRule>> ParseFeedFaults(const std::vector<std::string>& texts);

/// Sends `body` as a truncated response: Content-Length announces all of it, half arrives,
/// then the connection closes (what a proxy or server that dies mid-body does).
void SetTruncatedBody(httplib::Response& res, std::string body, std::string_view content_type);

struct FeedServerOptions {
  std::filesystem::path archive;
  std::string listen = "127.0.0.1:8000";
  /// The archive time served at Start(); nullopt: the archive's first response.
  std::optional<base::Timestamp> start;
  /// Archive seconds per second of the clock: 1 is real time, 60 a minute a second.
  double speed = 1;
  /// First matching rule wins when several fall on one request.
  std::vector<FeedFaultRule> faults;
  std::chrono::seconds retry_after{30};  // of kRateLimit
  base::Clock* clock = nullptr;          // null: the system clock
};

/// Serves GET /feed/FEED with the response of FEED that the archive holds at the server's
/// archive time: the newest one archived at or before it, while it is current, that is
/// until twice the feed's median interval between responses has passed (a longer gap in
/// the archive is an outage: 503, as the polls that were not archived then failed); before
/// the first response and after the last one's currency, 503 too. The archive time runs
/// from `start` at `speed` × the clock. Bodies are sent byte for byte with the content
/// type of the feed's format. GET /healthz: a JSON document, 200 while any feed has a
/// current response, else 503. Anything else: 404.
///
/// Open() lists the archive once (responses added later are not served). Start() listens
/// on its own threads until Stop() or destruction. Thread-safe.
class FeedServer {
 public:
  static base::Result<std::unique_ptr<FeedServer>> Open(FeedServerOptions options);
  ~FeedServer();
  FeedServer(const FeedServer&) = delete;
  FeedServer& operator=(const FeedServer&) = delete;

  base::Status Start();
  void Stop();
  [[nodiscard]] const std::string& host() const { return host_; }
  [[nodiscard]] int port() const { return port_; }
  /// The archive time now: what GET /feed/FEED serves.
  [[nodiscard]] base::Timestamp ArchiveTime() const;
  /// The feeds served, in the archive's order.
  [[nodiscard]] std::vector<std::string> FeedIds() const;
  /// http://HOST:PORT/feed/FEED once started.
  [[nodiscard]] std::string Url(std::string_view feed_id) const;

 private:
  struct Feed;
  // What one request of a feed gets; the body is read outside the lock.
  struct Answer {
    int status = 503;
    std::optional<std::size_t> file;  // the archived response sent (200s)
    std::optional<FeedFault> fault;
  };

  explicit FeedServer(FeedServerOptions options);
  void Routes();
  Answer Decide(Feed& feed, base::Timestamp archive_time);
  void Send(const Feed& feed, const Answer& answer, httplib::Response& res) const;
  [[nodiscard]] std::pair<bool, std::string> Health() const;

  FeedServerOptions options_;
  base::Clock* clock_;
  base::Timestamp start_;       // archive time at started_at_
  base::Timestamp started_at_;  // by clock_
  std::vector<std::unique_ptr<Feed>> feeds_;
  std::string host_;
  int port_ = 0;
  std::unique_ptr<httplib::Server> server_;
  std::thread listener_;
  mutable std::mutex mutex_;  // feeds' request counts and last bodies
};

}  // namespace frota::collect
