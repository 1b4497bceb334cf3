#include "frota/collect/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <mutex>

namespace frota::collect {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

class CurlClient final : public HttpClient {
 public:
  CurlClient() {
    InitCurlOnce();
    handle_ = curl_easy_init();
  }
  ~CurlClient() override { curl_easy_cleanup(handle_); }
  CurlClient(const CurlClient&) = delete;
  CurlClient& operator=(const CurlClient&) = delete;

  HttpResponse Fetch(const HttpRequest& request) override {
    HttpResponse response;
    if (handle_ == nullptr) {
      response.failure = FailureKind::kOther;
      response.error = "curl_easy_init failed";
      return response;
    }
    Transfer transfer{&response, request.max_body_bytes, false};
    CURL* h = handle_;
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(request.connect_timeout.count()));
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(request.max_body_bytes));
    if (request.gzip) {
      // gzip and deflate only: brotli at a server's default quality can take a second per
      // large body, which a 15-second poll of a city's feed does not need.
      curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "gzip, deflate");
    }
    if (!request.user_agent.empty()) {
      curl_easy_setopt(h, CURLOPT_USERAGENT, request.user_agent.c_str());
    }
    curl_slist* headers = nullptr;
    for (const auto& [name, value] : request.headers) {
      headers = curl_slist_append(headers, (name + ": " + value).c_str());
    }
    if (headers != nullptr) {
      curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    }
    if (!request.form_body.empty()) {
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.form_body.c_str());
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.form_body.size()));
    }
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &CurlClient::OnBody);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &transfer);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &CurlClient::OnHeader);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &transfer);

    const auto started = std::chrono::steady_clock::now();
    const CURLcode code = curl_easy_perform(h);
    response.duration = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - started);
    curl_slist_free_all(headers);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    response.status = static_cast<int>(status);
    if (code != CURLE_OK) {
      response.error = curl_easy_strerror(code);
      response.failure = Classify(code, transfer.too_large);
      return response;
    }
    if (status == 429) {
      response.failure = FailureKind::kRateLimited;
    } else if (status >= 500) {
      response.failure = FailureKind::kHttp5xx;
    } else if ((status >= 200 && status < 300) || status == 304) {
      response.failure = FailureKind::kNone;
    } else {
      response.failure = FailureKind::kHttp4xx;
    }
    return response;
  }

 private:
  struct Transfer {
    HttpResponse* response;
    std::int64_t limit;
    bool too_large;
  };

  static FailureKind Classify(CURLcode code, bool too_large) {
    if (too_large || code == CURLE_FILESIZE_EXCEEDED) {
      return FailureKind::kTooLarge;
    }
    switch (code) {
      case CURLE_OPERATION_TIMEDOUT:
        return FailureKind::kTimeout;
      case CURLE_PARTIAL_FILE:
      case CURLE_BAD_CONTENT_ENCODING:
        return FailureKind::kTruncated;
      case CURLE_COULDNT_RESOLVE_HOST:
      case CURLE_COULDNT_RESOLVE_PROXY:
      case CURLE_COULDNT_CONNECT:
      case CURLE_SEND_ERROR:
      case CURLE_RECV_ERROR:
      case CURLE_GOT_NOTHING:
      case CURLE_SSL_CONNECT_ERROR:
      case CURLE_PEER_FAILED_VERIFICATION:
      case CURLE_HTTP2:
      case CURLE_HTTP2_STREAM:
        return FailureKind::kConnection;
      default:
        return FailureKind::kOther;
    }
  }

  static size_t OnBody(char* data, size_t size, size_t count, void* user) {
    auto* transfer = static_cast<Transfer*>(user);
    const size_t n = size * count;
    auto& body = transfer->response->body;
    if (static_cast<std::int64_t>(body.size() + n) > transfer->limit) {
      transfer->too_large = true;
      return 0;  // aborts the transfer
    }
    body.append(data, n);
    return n;
  }

  static size_t OnHeader(char* data, size_t size, size_t count, void* user) {
    auto* transfer = static_cast<Transfer*>(user);
    const size_t n = size * count;
    const std::string_view line(data, n);
    if (line.rfind("HTTP/", 0) == 0) {
      transfer->response->headers.clear();  // a new response (after a redirect or 100)
      return n;
    }
    const auto colon = line.find(':');
    if (colon != std::string_view::npos) {
      transfer->response->headers.emplace_back(Lower(Trim(line.substr(0, colon))),
                                               std::string(Trim(line.substr(colon + 1))));
    }
    return n;
  }

  CURL* handle_ = nullptr;
};

}  // namespace

std::string_view FailureKindName(FailureKind kind) {
  switch (kind) {
    case FailureKind::kNone:
      return "none";
    case FailureKind::kTimeout:
      return "timeout";
    case FailureKind::kConnection:
      return "connection";
    case FailureKind::kTruncated:
      return "truncated";
    case FailureKind::kTooLarge:
      return "too_large";
    case FailureKind::kHttp5xx:
      return "http_5xx";
    case FailureKind::kRateLimited:
      return "rate_limited";
    case FailureKind::kHttp4xx:
      return "http_4xx";
    case FailureKind::kAuth:
      return "auth";
    case FailureKind::kOther:
      return "other";
  }
  return "other";
}

std::string_view HttpResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) {
      return value;
    }
  }
  return {};
}

std::unique_ptr<HttpClient> MakeCurlClient() { return std::make_unique<CurlClient>(); }

std::string UrlEncode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : value) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace frota::collect
