#include "frota/collect/testing/fault_server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>

#include "frota/collect/feed_server.h"

namespace frota::collect::testing {

namespace {

std::string HttpDate(base::Timestamp t) {
  const std::time_t seconds = static_cast<std::time_t>(base::ToUnixMicros(t) / 1'000'000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buffer;
}

}  // namespace

std::string_view FaultName(Fault fault) {
  switch (fault) {
    case Fault::kOk:
      return "ok";
    case Fault::kRepeat:
      return "repeat";
    case Fault::kServerError:
      return "server_error";
    case Fault::kUnavailable:
      return "unavailable";
    case Fault::kRateLimitSeconds:
      return "rate_limit_seconds";
    case Fault::kRateLimitDate:
      return "rate_limit_date";
    case Fault::kRateLimitOpenSky:
      return "rate_limit_opensky";
    case Fault::kRateLimitBare:
      return "rate_limit_bare";
    case Fault::kNotFound:
      return "not_found";
    case Fault::kSlow:
      return "slow";
    case Fault::kTruncated:
      return "truncated";
    case Fault::kEmpty:
      return "empty";
    case Fault::kHtml:
      return "html";
    case Fault::kNotModified:
      return "not_modified";
  }
  return "?";
}

std::string SppoResponse(int poll, int buses, std::int64_t at_ms, int first_id, int spacing_ms) {
  std::string body = "[";
  for (int b = 0; b < buses; ++b) {
    std::string lat = fmt::format("{:.5f}", -22.92 + 0.001 * b);
    std::string lon = fmt::format("{:.5f}", -43.25 + 0.00005 * poll);
    std::replace(lat.begin(), lat.end(), '.', ',');  // the feed's decimal commas
    std::replace(lon.begin(), lon.end(), '.', ',');
    body += fmt::format(
        "{}{{\"ordem\": \"B{}\", \"latitude\": \"{}\", \"longitude\": \"{}\", "
        "\"datahora\": \"{}\", \"velocidade\": \"30\", \"linha\": \"107\", "
        "\"datahoraenvio\": \"{}\", \"datahoraservidor\": \"{}\"}}",
        b == 0 ? "" : ", ", first_id + b, lat, lon,
        at_ms - static_cast<std::int64_t>(spacing_ms) * b, at_ms, at_ms);
  }
  return body + "]";
}

std::vector<std::string> JsonVariants(const std::string& body, std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(body + std::string(i + 1, '\n'));
  }
  return out;
}

int ClosedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return 0;  // as an unbound socket's name says: port 0, where nothing listens either
  }
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

FaultServer::FaultServer(std::function<base::Timestamp()> now)
    : now_(std::move(now)), server_(std::make_unique<httplib::Server>()) {
  server_->Post("/token", [this](const httplib::Request& req, httplib::Response& res) {
    {
      const std::lock_guard lock(mutex_);
      ++token_requests_;
    }
    if (req.body.find("client_secret=s3cret") == std::string::npos) {
      res.status = 401;
      return;
    }
    res.set_content(R"({"access_token":"tok-)" + std::to_string(token_requests_) +
                        R"(","expires_in":1800,"token_type":"Bearer"})",
                    "application/json");
  });
  server_->Get(
      R"(/feed/([A-Za-z0-9_.-]+))", [this](const httplib::Request& req, httplib::Response& res) {
        const std::string feed = req.matches[1];
        ServedRequest served;
        served.at = now_();
        served.conditional = req.has_header("If-None-Match") || req.has_header("If-Modified-Since");
        served.authorization = req.get_header_value("Authorization");
        std::unique_lock lock(mutex_);
        auto it = feeds_.find(feed);
        if (it == feeds_.end()) {
          res.status = 404;
          return;
        }
        State& state = it->second;
        Fault fault = state.script.otherwise;
        if (!state.script.script.empty()) {
          fault = state.script.script.front();
          state.script.script.pop_front();
        }
        served.fault = fault;
        const auto& variants = state.script.variants;
        auto etag_of = [](std::size_t v) { return fmt::format("\"v{}\"", v); };
        auto serve_variant = [&](std::size_t v) {
          served.status = 200;
          served.variant = v;
          if (state.script.keep_bodies) {
            served.body = variants[v];
          }
          state.last_variant = v;
          res.set_header("ETag", etag_of(v));
          res.set_header("Last-Modified", HttpDate(served.at));
          res.set_content(variants[v], state.script.content_type);
        };
        auto next_variant = [&] {
          const std::size_t v = state.next_variant;
          state.next_variant = (state.next_variant + 1) % variants.size();
          return v;
        };
        int slow_ms = 0;
        switch (fault) {
          case Fault::kOk:
            serve_variant(next_variant());
            break;
          case Fault::kRepeat:
            serve_variant(state.last_variant.value_or(0));
            break;
          case Fault::kSlow:
            slow_ms = state.script.slow_ms;
            serve_variant(next_variant());
            break;
          case Fault::kServerError:
            served.status = 500;
            res.status = 500;
            res.set_content("Internal Server Error", "text/plain");
            break;
          case Fault::kUnavailable:
            served.status = 503;
            res.status = 503;
            res.set_content("Service Unavailable", "text/plain");
            break;
          case Fault::kRateLimitSeconds:
            served.status = 429;
            res.status = 429;
            res.set_header("Retry-After", std::to_string(state.script.retry_after_s));
            break;
          case Fault::kRateLimitDate:
            served.status = 429;
            res.status = 429;
            res.set_header("Retry-After",
                           HttpDate(served.at + std::chrono::seconds(state.script.retry_after_s)));
            break;
          case Fault::kRateLimitOpenSky:
            served.status = 429;
            res.status = 429;
            res.set_header("X-Rate-Limit-Retry-After-Seconds",
                           std::to_string(state.script.retry_after_s));
            break;
          case Fault::kRateLimitBare:
            served.status = 429;
            res.status = 429;
            break;
          case Fault::kNotFound:
            served.status = 404;
            res.status = 404;
            res.set_content("not here", "text/plain");
            break;
          case Fault::kTruncated:
            served.status = 200;
            SetTruncatedBody(res, variants[next_variant()], "application/octet-stream");
            break;
          case Fault::kEmpty:
            served.status = 200;
            served.body.clear();
            res.set_content("", state.script.content_type);
            break;
          case Fault::kHtml:
            served.status = 200;
            served.body =
                "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad "
                "Gateway</h1></body></html>";
            res.set_content(served.body, "text/html");
            break;
          case Fault::kNotModified:
            if (state.last_variant &&
                req.get_header_value("If-None-Match") == etag_of(*state.last_variant)) {
              served.status = 304;
              res.status = 304;
            } else {
              served.fault = Fault::kOk;
              serve_variant(next_variant());
            }
            break;
        }
        state.served.push_back(served);
        lock.unlock();
        if (slow_ms > 0) {
          std::this_thread::sleep_for(std::chrono::milliseconds(slow_ms));
        }
      });
  port_ = server_->bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  while (!server_->is_running()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

FaultServer::~FaultServer() { Stop(); }

void FaultServer::Stop() {
  if (server_) {
    server_->stop();
  }
  if (thread_.joinable()) {
    thread_.join();
  }
}

void FaultServer::SetScript(const std::string& feed, FeedScript script) {
  const std::lock_guard lock(mutex_);
  feeds_[feed].script = std::move(script);
}

void FaultServer::Push(const std::string& feed, std::vector<Fault> faults) {
  const std::lock_guard lock(mutex_);
  auto& script = feeds_[feed].script.script;
  script.insert(script.end(), faults.begin(), faults.end());
}

std::string FaultServer::Url(const std::string& feed) const {
  return fmt::format("http://127.0.0.1:{}/feed/{}", port_, feed);
}

std::vector<ServedRequest> FaultServer::Served(const std::string& feed) const {
  const std::lock_guard lock(mutex_);
  const auto it = feeds_.find(feed);
  return it == feeds_.end() ? std::vector<ServedRequest>() : it->second.served;
}

std::vector<ServedRequest> FaultServer::TakeServed(const std::string& feed) {
  const std::lock_guard lock(mutex_);
  std::vector<ServedRequest> out;
  if (const auto it = feeds_.find(feed); it != feeds_.end()) {
    out.swap(it->second.served);
  }
  return out;
}

std::int64_t FaultServer::token_requests() const {
  const std::lock_guard lock(mutex_);
  return token_requests_;
}

}  // namespace frota::collect::testing
