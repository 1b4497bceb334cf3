// One HTTP GET (or form POST) over libcurl, with every failure classified for politeness.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace frota::collect {

/// Why a request did not give a usable response. Reports and metrics use the names.
enum class FailureKind {
  kNone,         // a response arrived (2xx, or 304 Not Modified)
  kTimeout,      // no complete response within the timeout
  kConnection,   // refused, reset, DNS, TLS: nothing or nothing usable arrived
  kTruncated,    // the body ended before its announced length
  kTooLarge,     // the body passed the size limit; the transfer was aborted
  kHttp5xx,      // the server failed
  kRateLimited,  // 429 Too Many Requests
  kHttp4xx,      // any other status that is not 2xx or 304
  kAuth,         // the OAuth2 token could not be obtained
  kOther,        // anything libcurl reports that fits none of the above
};
inline constexpr FailureKind kAllFailureKinds[] = {
    FailureKind::kTimeout,  FailureKind::kConnection, FailureKind::kTruncated,
    FailureKind::kTooLarge, FailureKind::kHttp5xx,    FailureKind::kRateLimited,
    FailureKind::kHttp4xx,  FailureKind::kAuth,       FailureKind::kOther};
/// "timeout", "connection", "truncated", "too_large", "http_5xx", "rate_limited",
/// "http_4xx", "auth", "other" ("none" for kNone).
std::string_view FailureKindName(FailureKind kind);
/// Whether a poll retries after this failure (with backoff): timeouts, connection
/// errors, truncated bodies and 5xx. 429 never retries at once; 4xx never retries.
constexpr bool IsRetryable(FailureKind kind) {
  return kind == FailureKind::kTimeout || kind == FailureKind::kConnection ||
         kind == FailureKind::kTruncated || kind == FailureKind::kHttp5xx;
}

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string url;
  Headers headers;  // may hold secrets: never logged
  std::chrono::milliseconds timeout{10'000};
  std::chrono::milliseconds connect_timeout{5'000};
  std::int64_t max_body_bytes = 64LL << 20;
  bool gzip = true;
  std::string form_body;  // non-empty: POST application/x-www-form-urlencoded
  std::string user_agent;
};

struct HttpResponse {
  FailureKind failure = FailureKind::kNone;
  int status = 0;    // 0 when no status line arrived
  Headers headers;   // of the final response, names lower-case
  std::string body;  // decoded (gzip is undone)
  std::chrono::microseconds duration{0};
  std::string error;  // libcurl's message when failure is not kNone
  /// The value of header `name` (lower-case), or empty.
  [[nodiscard]] std::string_view Header(std::string_view name) const;
};

/// A blocking HTTP client. One per poller: not thread-safe.
class HttpClient {
 public:
  virtual ~HttpClient() = default;
  virtual HttpResponse Fetch(const HttpRequest& request) = 0;
};

/// libcurl's easy interface. The handle is kept between requests, so a feed's
/// connection is reused (keep-alive). Owned by one poller thread.
std::unique_ptr<HttpClient> MakeCurlClient();

/// Percent-encodes a form or query value.
std::string UrlEncode(std::string_view value);

}  // namespace frota::collect
