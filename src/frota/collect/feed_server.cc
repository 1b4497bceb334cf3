#include "frota/collect/feed_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <nlohmann/json.hpp>

#include "frota/base/file.h"
#include "frota/base/listen_address.h"

namespace frota::collect {

namespace {

constexpr std::array<FeedFault, 4> kFaults = {FeedFault::kRateLimit, FeedFault::kServerError,
                                              FeedFault::kTruncated, FeedFault::kRepeat};

// With one response there is no interval to take the median of: a minute, the slowest
// interval of the collector's usual feeds.
constexpr std::chrono::microseconds kSingleResponseCurrency = std::chrono::minutes(1);

std::string_view ContentType(codec::Format format) {
  switch (format) {
    case codec::Format::kGtfsRt:
      return "application/x-protobuf";
    case codec::Format::kRioArchiveCsv:
      return "text/csv";
    default:
      return "application/json";
  }
}

// How long a response stays the feed's current one: twice the median interval between
// its responses, so a poll that comes a little late still finds it, while a gap of
// several polls (an outage the collector archived nothing in) stays a gap.
std::chrono::microseconds Currency(const std::vector<source::ArchivedFile>& files) {
  if (files.size() < 2) {
    return kSingleResponseCurrency;
  }
  std::vector<std::chrono::microseconds> gaps;
  gaps.reserve(files.size() - 1);
  for (std::size_t i = 1; i < files.size(); ++i) {
    gaps.push_back(files[i].ingest_time - files[i - 1].ingest_time);
  }
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2),
                   gaps.end());
  return std::max<std::chrono::microseconds>(2 * gaps[gaps.size() / 2], std::chrono::seconds(1));
}

// The response of `files` current at `archive_time`: the newest archived at or before
// it, unless more than `currency` before it.
std::optional<std::size_t> CurrentResponse(const std::vector<source::ArchivedFile>& files,
                                           std::chrono::microseconds currency,
                                           base::Timestamp archive_time) {
  const auto after = std::upper_bound(
      files.begin(), files.end(), archive_time,
      [](base::Timestamp t, const source::ArchivedFile& file) { return t < file.ingest_time; });
  if (after == files.begin() || archive_time - std::prev(after)->ingest_time > currency) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(std::prev(after) - files.begin());
}

}  // namespace

struct FeedServer::Feed {
  source::FeedInfo info;
  std::vector<source::ArchivedFile> files;  // in ingest order
  std::chrono::microseconds currency{};
  // Under the server's mutex:
  std::int64_t requests = 0;
  std::int64_t served = 0;  // 200s with a whole body
  std::array<std::int64_t, kFaults.size()> faults{};
  std::optional<std::size_t> last_served;
  bool ended = false;  // the end of its archive was logged
};

std::string_view FeedFaultName(FeedFault fault) {
  switch (fault) {
    case FeedFault::kRateLimit:
      return "rate-limit";
    case FeedFault::kServerError:
      return "server-error";
    case FeedFault::kTruncated:
      return "truncated";
    case FeedFault::kRepeat:
      return "repeat";
  }
  return "?";
}

base::Result<std::vector<FeedFaultRule>> ParseFeedFaults(const std::vector<std::string>& texts) {
  std::vector<FeedFaultRule> rules;
  for (const auto& text : texts) {
    const auto eq = text.find('=');
    const std::string_view kind = std::string_view(text).substr(0, eq);
    const auto fault = std::find_if(kFaults.begin(), kFaults.end(),
                                    [&](FeedFault f) { return FeedFaultName(f) == kind; });
    FeedFaultRule rule;
    const char* digits = text.data() + (eq == std::string::npos ? text.size() : eq + 1);
    const char* end = text.data() + text.size();
    const auto [parsed_end, ec] = std::from_chars(digits, end, rule.every);
    if (fault == kFaults.end() || eq == std::string::npos || digits == end || ec != std::errc() ||
        parsed_end != end || rule.every < 1) {
      return base::InvalidInput(
          "--fault {}: want KIND=N (every N-th request of each feed), KIND one of rate-limit, "
          "server-error, truncated, repeat, N at least 1",
          text);
    }
    rule.fault = *fault;
    rules.push_back(rule);
  }
  return rules;
}

void SetTruncatedBody(httplib::Response& res, std::string body, std::string_view content_type) {
  auto shared = std::make_shared<std::string>(std::move(body));
  res.set_content_provider(shared->size(), std::string(content_type),
                           [shared](std::size_t offset, std::size_t, httplib::DataSink& sink) {
                             if (offset == 0) {
                               sink.write(shared->data(), shared->size() / 2);
                               return true;
                             }
                             return false;  // closes the connection mid-body
                           });
}

FeedServer::FeedServer(FeedServerOptions options)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? options_.clock : &base::SystemClock::Get()) {}

FeedServer::~FeedServer() { Stop(); }

base::Result<std::unique_ptr<FeedServer>> FeedServer::Open(FeedServerOptions options) {
  if (!(options.speed > 0)) {
    return base::InvalidInput("--speed {}: must be above 0", options.speed);
  }
  if (options.retry_after.count() < 0) {
    return base::InvalidInput("--retry-after {}: must not be negative",
                              options.retry_after.count());
  }
  if (const auto listen = base::ParseListenAddress(options.listen, "--listen"); !listen.ok()) {
    return listen.error();
  }
  FROTA_ASSIGN_OR_RETURN(auto archived, source::ListArchive(options.archive));
  std::unique_ptr<FeedServer> server(new FeedServer(std::move(options)));
  std::optional<base::Timestamp> first;
  for (auto& archived_feed : archived) {
    if (archived_feed.files.empty()) {
      continue;
    }
    auto feed = std::make_unique<Feed>();
    feed->info = std::move(archived_feed.info);
    feed->files = std::move(archived_feed.files);
    feed->currency = Currency(feed->files);
    first = std::min(first.value_or(base::Timestamp::max()), feed->files.front().ingest_time);
    server->feeds_.push_back(std::move(feed));
  }
  if (server->feeds_.empty()) {
    return base::InvalidInput("{}: no archived response to serve (docs/bronze-archive.md)",
                              server->options_.archive.string());
  }
  server->start_ = server->options_.start.value_or(*first);
  return server;
}

base::Status FeedServer::Start() {
  FROTA_ASSIGN_OR_RETURN(const auto address, base::ParseListenAddress(options_.listen, "--listen"));
  host_ = address.host;
  server_ = std::make_unique<httplib::Server>();
  Routes();
  port_ = address.port == 0 ? server_->bind_to_any_port(host_)
                            : (server_->bind_to_port(host_, address.port) ? address.port : -1);
  if (port_ <= 0) {
    server_.reset();
    return base::Unavailable("feed-server: cannot listen on {}", options_.listen);
  }
  started_at_ = clock_->Now();
  listener_ = std::thread([this] { server_->listen_after_bind(); });
  for (const auto& feed : feeds_) {
    spdlog::info(
        "feed-server feed={} format={} responses={} first={} last={} current_for_s={} url={}",
        feed->info.feed_id, codec::FormatName(feed->info.format), feed->files.size(),
        base::FormatIso8601(feed->files.front().ingest_time),
        base::FormatIso8601(feed->files.back().ingest_time),
        std::chrono::duration_cast<std::chrono::seconds>(feed->currency).count(),
        Url(feed->info.feed_id));
  }
  spdlog::info("feed-server listening address={} archive={} archive_time={} speed={}",
               base::FormatHostPort(host_, port_), options_.archive.string(),
               base::FormatIso8601(start_), options_.speed);
  return base::Status::Ok();
}

void FeedServer::Stop() {
  if (server_) {
    server_->stop();
  }
  if (listener_.joinable()) {
    listener_.join();
  }
  server_.reset();
}

base::Timestamp FeedServer::ArchiveTime() const {
  const auto elapsed = clock_->Now() - started_at_;
  return start_ + std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::duration<double, std::micro>(elapsed) * options_.speed);
}

std::vector<std::string> FeedServer::FeedIds() const {
  std::vector<std::string> ids;
  for (const auto& feed : feeds_) {
    ids.push_back(feed->info.feed_id);
  }
  return ids;
}

std::string FeedServer::Url(std::string_view feed_id) const {
  return fmt::format("http://{}/feed/{}", base::FormatHostPort(host_, port_), feed_id);
}

void FeedServer::Routes() {
  server_->Get(R"(/feed/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    const auto it = std::find_if(feeds_.begin(), feeds_.end(),
                                 [&](const auto& feed) { return feed->info.feed_id == id; });
    if (it == feeds_.end()) {
      res.status = 404;
      res.set_content(fmt::format("no feed '{}' in this archive\n", id), "text/plain");
      return;
    }
    Answer answer;
    {
      const std::lock_guard lock(mutex_);
      answer = Decide(**it, ArchiveTime());
    }
    Send(**it, answer, res);
  });
  server_->Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    const auto [healthy, body] = Health();
    res.status = healthy ? 200 : 503;
    res.set_content(body, "application/json");
  });
}

FeedServer::Answer FeedServer::Decide(Feed& feed, base::Timestamp archive_time) {
  Answer answer;
  ++feed.requests;
  const auto current = CurrentResponse(feed.files, feed.currency, archive_time);
  if (!current) {
    if (!feed.ended && archive_time > feed.files.back().ingest_time + feed.currency) {
      feed.ended = true;
      spdlog::info("feed-server feed archive ended feed={} last={} archive_time={}",
                   feed.info.feed_id, base::FormatIso8601(feed.files.back().ingest_time),
                   base::FormatIso8601(archive_time));
    }
    return answer;  // 503: nothing archived at this time
  }
  for (const auto& rule : options_.faults) {
    if (feed.requests % rule.every == 0) {
      answer.fault = rule.fault;
      ++feed.faults[static_cast<std::size_t>(rule.fault)];
      break;
    }
  }
  if (answer.fault == FeedFault::kRateLimit || answer.fault == FeedFault::kServerError) {
    answer.status = answer.fault == FeedFault::kRateLimit ? 429 : 500;
    return answer;
  }
  answer.status = 200;
  if (answer.fault == FeedFault::kTruncated) {
    answer.file = *current;
    return answer;
  }
  answer.file = answer.fault == FeedFault::kRepeat ? feed.last_served.value_or(*current) : *current;
  feed.last_served = answer.file;
  ++feed.served;
  return answer;
}

void FeedServer::Send(const Feed& feed, const Answer& answer, httplib::Response& res) const {
  res.status = answer.status;
  if (answer.status == 429) {
    res.set_header("Retry-After", std::to_string(options_.retry_after.count()));
    return;
  }
  if (!answer.file) {
    res.set_content(answer.status == 503 ? "no response in the archive at this time\n"
                                         : "internal server error (a fault of frota feed-server)\n",
                    "text/plain");
    return;
  }
  const auto& path = feed.files[*answer.file].body;
  auto body = base::ReadFile(path);
  if (!body.ok()) {
    spdlog::error("feed-server cannot read an archived response feed={} error={}",
                  feed.info.feed_id, body.error().message());
    res.status = 500;
    res.set_content("cannot read the archived response\n", "text/plain");
    return;
  }
  const auto type = ContentType(feed.info.format);
  if (answer.fault == FeedFault::kTruncated) {
    SetTruncatedBody(res, std::move(*body), type);
  } else {
    res.set_content(*body, std::string(type));
  }
}

std::pair<bool, std::string> FeedServer::Health() const {
  const auto archive_time = ArchiveTime();
  nlohmann::ordered_json doc;
  doc["archive"] = options_.archive.string();
  doc["archive_time"] = base::FormatIso8601(archive_time);
  doc["speed"] = options_.speed;
  bool any_current = false;
  auto& feeds = doc["feeds"] = nlohmann::ordered_json::array();
  const std::lock_guard lock(mutex_);
  for (const auto& feed : feeds_) {
    const bool current = CurrentResponse(feed->files, feed->currency, archive_time).has_value();
    any_current = any_current || current;
    nlohmann::ordered_json f;
    f["feed"] = feed->info.feed_id;
    f["format"] = std::string(codec::FormatName(feed->info.format));
    f["responses"] = feed->files.size();
    f["first"] = base::FormatIso8601(feed->files.front().ingest_time);
    f["last"] = base::FormatIso8601(feed->files.back().ingest_time);
    f["current"] = current;
    f["requests"] = feed->requests;
    f["served"] = feed->served;
    auto& faults = f["faults"] = nlohmann::ordered_json::object();
    for (const auto fault : kFaults) {
      faults[std::string(FeedFaultName(fault))] = feed->faults[static_cast<std::size_t>(fault)];
    }
    feeds.push_back(std::move(f));
  }
  doc["healthy"] = any_current;
  return {any_current, doc.dump() + "\n"};
}

}  // namespace frota::collect
