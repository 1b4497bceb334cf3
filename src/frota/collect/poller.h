// One feed's poller: fetch on schedule, politely; archive every 200 into bronze; count all.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/clock.h"
#include "frota/base/status.h"
#include "frota/base/time.h"
#include "frota/collect/config.h"
#include "frota/collect/http_client.h"
#include "frota/collect/metrics.h"
#include "frota/collect/politeness.h"
#include "frota/model/tables.h"
#include "frota/source/bronze_archive.h"
#include "frota/source/poll_journal.h"

namespace frota::collect {

class MedallionWriter;

/// A response that is durable in bronze, as listeners see it.
struct ArchivedResponse {
  const FeedConfig& feed;
  const std::filesystem::path& body_path;
  const source::ResponseEnvelope& envelope;
  std::string_view body;
};

/// Receives every archived response: the Kafka publisher, the live runner's wake-up.
/// Called on the poller's thread right after the body is renamed into place, so a
/// listener must be quick and thread-safe (several pollers call it).
class ResponseListener {
 public:
  virtual ~ResponseListener() = default;
  virtual void OnResponse(const ArchivedResponse& response) = 0;
};

/// What one feed's poller has done since it started.
struct FeedStats {
  std::string feed_id;
  std::int64_t polls = 0;         // scheduled poll cycles started
  std::int64_t requests = 0;      // HTTP requests sent (cycles + retries)
  std::int64_t responses = 0;     // 200s archived
  std::int64_t not_modified = 0;  // 304s
  std::int64_t repeats = 0;       // archived responses repeating the previous one
  std::int64_t retries = 0;
  std::int64_t retries_abandoned = 0;            // a retry would have passed the next poll's time
  std::map<std::string, std::int64_t> failures;  // by FailureKindName
  std::int64_t bytes = 0;                        // archived body bytes
  std::int64_t records = 0;                      // decoded records of archived responses
  std::int64_t positions = 0;                    // of them, positions (rule 1 passed)
  std::map<std::string, std::int64_t> rejected;  // rule-1 reasons
  std::int64_t decode_failures = 0;              // archived bodies not in the feed's format
  std::int64_t archive_errors = 0;               // responses that could not be written
  std::int64_t rate_limit_waits = 0;
  std::int64_t budget_waits = 0;
  int last_status = 0;
  std::string last_failure;  // kind of the last failed request
  std::int32_t consecutive_failures = 0;
  std::optional<base::Timestamp> last_success;   // 200 or 304
  std::optional<base::Timestamp> last_response;  // last archived 200
  base::Timestamp next_poll;
  std::optional<base::Timestamp> rate_limited_until;
  [[nodiscard]] std::int64_t failures_total() const;
};

/// Polls one feed. Each Step() makes exactly one HTTP request (a poll or one retry) at
/// the clock's current time and sets next_due():
///
///  - polls start on a fixed grid (start, start + interval, ...); a poll that overruns
///    skips the grid points it missed instead of bunching requests;
///  - timeouts, connection errors, truncated bodies and 5xx retry after an exponential
///    backoff with jitter, at most max_retries times, and never past the next grid point;
///  - 429 never retries at once: the next request waits for Retry-After (seconds or an
///    HTTP date; OpenSky's X-Rate-Limit-Retry-After-Seconds too), else for a backoff
///    that doubles on each consecutive 429; the grid moves to after the wait;
///  - other 4xx are logged and counted, and polling goes on;
///  - 200 is decoded, compared with the previous response (content hash, feed header
///    timestamp) and archived atomically; then listeners and the silver writer get it;
///  - a 304 (conditional requests with the last ETag / Last-Modified) counts as alive;
///  - every request, whatever came of it, is appended to the feed's poll journal
///    (source/poll_journal.h) once it ended: the collector_polls table's source.
///
/// Ingest times never decrease within a feed, so archive names sort in ingest order.
/// Lifecycle: Open(), then Step() from one thread at a time; stats() and
/// in_flight_since() may be read from any thread.
class FeedPoller {
 public:
  struct Context {
    base::Clock* clock = nullptr;
    MetricsRegistry* metrics = nullptr;
    MedallionWriter* medallion = nullptr;  // may be null
    std::vector<ResponseListener*> listeners;
    std::string user_agent;
    std::string run_id;  // into each bronze envelope and each poll of the journal
    std::uint64_t seed = 0;
    base::Timestamp first_poll;
  };
  static base::Result<std::unique_ptr<FeedPoller>> Open(FeedConfig feed,
                                                        const std::filesystem::path& archive,
                                                        std::unique_ptr<HttpClient> client,
                                                        Context context);
  ~FeedPoller();

  void Step();
  [[nodiscard]] base::Timestamp next_due() const { return next_due_; }
  [[nodiscard]] FeedStats stats() const;
  [[nodiscard]] const FeedConfig& feed() const { return feed_; }
  /// When the request in progress started (a lower bound of its ingest time), or
  /// nullopt between requests.
  [[nodiscard]] std::optional<base::Timestamp> in_flight_since() const;
  void AddListener(ResponseListener* listener) { context_.listeners.push_back(listener); }

 private:
  FeedPoller(FeedConfig feed, std::unique_ptr<HttpClient> client, Context context);
  struct Meters;
  base::Result<HttpRequest> BuildRequest(base::Timestamp now);
  void OnOk(HttpResponse& response, base::Timestamp now);
  void OnNotModified(base::Timestamp received, base::Timestamp now);
  // Whether the body repeats the previous response (same bytes, or the same header time).
  bool Repeats(const std::string& body, std::optional<base::Timestamp> header_time);
  // The response's envelope in bronze; remembers its ETag and Last-Modified.
  source::ResponseEnvelope EnvelopeOf(const HttpResponse& response, base::Timestamp ingest,
                                      bool repeat);
  void OnFailure(const HttpResponse& response, base::Timestamp now);
  void EndCycle(base::Timestamp now);
  void Journal();  // poll_ into the journal, once per request
  base::Status RefreshToken(base::Timestamp now);
  base::Timestamp NextGridPoint(base::Timestamp now) const;

  FeedConfig feed_;
  std::unique_ptr<HttpClient> client_;
  Context context_;
  std::unique_ptr<source::BronzeWriter> writer_;
  std::unique_ptr<source::PollJournalWriter> journal_;
  model::PollRow poll_;  // the request in progress, journaled when it ends
  bool journaled_ = false;
  std::unique_ptr<Meters> meters_;
  Backoff backoff_;
  DailyBudget budget_;
  std::string secret_;  // header/query/bearer value from the environment; never logged
  std::string client_id_;
  std::string client_secret_;
  std::string token_;
  base::Timestamp token_expiry_;
  base::Timestamp slot_;      // grid point of the current cycle
  base::Timestamp next_due_;  // when Step() should run next
  int attempt_ = 0;           // requests made in the current cycle
  int consecutive_429_ = 0;
  bool token_retry_ = false;
  base::Timestamp last_ingest_ = base::Timestamp::min();
  std::string etag_;
  std::string last_modified_;
  std::optional<std::uint64_t> previous_digest_;
  std::optional<base::Timestamp> previous_header_time_;
  std::atomic<std::int64_t> in_flight_since_;
  mutable std::mutex mutex_;
  FeedStats stats_;
};

}  // namespace frota::collect
