#include "frota/collect/poller.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>

#include "frota/base/hash.h"
#include "frota/base/time_zone.h"
#include "frota/codec/decode.h"
#include "frota/collect/medallion.h"

namespace frota::collect {

namespace {

constexpr std::int64_t kIdle = std::numeric_limits<std::int64_t>::max();
constexpr auto kTokenMargin = std::chrono::seconds(30);
constexpr auto kMinRateLimitWait = std::chrono::seconds(1);

double Millis(std::chrono::microseconds d) { return static_cast<double>(d.count()) / 1000.0; }

// Local "YYYY-MM-DD+HH:MM:SS" for Rio SPPO's dataInicial/dataFinal.
std::string LocalQueryTime(const base::TimeZone& zone, base::Timestamp t) {
  const auto local = std::chrono::floor<std::chrono::seconds>(zone.ToLocal(t));
  const auto day = std::chrono::floor<std::chrono::days>(local);
  const std::chrono::hh_mm_ss hms(local - day);
  return fmt::format("{}+{:02d}:{:02d}:{:02d}", base::FormatDate(day), hms.hours().count(),
                     hms.minutes().count(), hms.seconds().count());
}

void ReplaceAll(std::string& text, std::string_view what, std::string_view with) {
  for (auto pos = text.find(what); pos != std::string::npos;
       pos = text.find(what, pos + with.size())) {
    text.replace(pos, what.size(), with);
  }
}

std::string Env(const std::string& name) {
  const char* v = name.empty() ? nullptr : std::getenv(name.c_str());
  return v == nullptr ? std::string() : std::string(v);
}

}  // namespace

std::int64_t FeedStats::failures_total() const {
  std::int64_t n = 0;
  for (const auto& [kind, count] : failures) {
    n += count;
  }
  return n;
}

// The feed's samples in the registry, looked up once.
struct FeedPoller::Meters {
  Meters(MetricsRegistry& r, const std::string& feed) : registry(r), labels{{"feed", feed}} {
    polls = &r.GetCounter("frota_collect_polls_total", "Poll cycles started", labels);
    requests = &r.GetCounter("frota_collect_requests_total", "HTTP requests sent", labels);
    responses =
        &r.GetCounter("frota_collect_responses_total", "Responses archived in bronze", labels);
    not_modified = &r.GetCounter("frota_collect_not_modified_total", "304 Not Modified", labels);
    repeats = &r.GetCounter("frota_collect_repeats_total",
                            "Archived responses that repeat the previous one", labels);
    retries = &r.GetCounter("frota_collect_retries_total", "Requests that were retries", labels);
    bytes = &r.GetCounter("frota_collect_bytes_total", "Archived body bytes", labels);
    positions = &r.GetCounter("frota_collect_positions_total",
                              "Decoded positions of archived responses", labels);
    decode_failures = &r.GetCounter("frota_collect_decode_failures_total",
                                    "Archived bodies that are not in the feed's format", labels);
    archive_errors = &r.GetCounter("frota_collect_archive_errors_total",
                                   "Responses that could not be written to bronze", labels);
    journal_errors = &r.GetCounter("frota_collect_journal_errors_total",
                                   "Polls that could not be written to the poll journal", labels);
    last_success = &r.GetGauge("frota_collect_last_success_timestamp_seconds",
                               "Unix time of the last 200 or 304", labels);
    up = &r.GetGauge("frota_collect_up", "1 when the last request of the feed succeeded", labels);
    duration =
        &r.GetHistogram("frota_collect_request_duration_seconds",
                        "Duration of the HTTP requests to the feed", DurationBuckets(), labels);
    for (const auto kind : kAllFailureKinds) {
      failures[static_cast<int>(kind)] =
          &r.GetCounter("frota_collect_failures_total", "Failed requests by kind",
                        {{"feed", feed}, {"kind", std::string(FailureKindName(kind))}});
    }
  }
  void Rejected(const std::string& reason, std::int64_t n) {
    registry
        .GetCounter("frota_collect_rejections_total", "Refused records by reason (rules 1-4)",
                    {labels[0], {"reason", reason}})
        .Add(static_cast<double>(n));
  }
  MetricsRegistry& registry;
  Labels labels;
  Counter* polls;
  Counter* requests;
  Counter* responses;
  Counter* not_modified;
  Counter* repeats;
  Counter* retries;
  Counter* bytes;
  Counter* positions;
  Counter* decode_failures;
  Counter* archive_errors;
  Counter* journal_errors;
  Gauge* last_success;
  Gauge* up;
  Histogram* duration;
  std::map<int, Counter*> failures;
};

FeedPoller::FeedPoller(FeedConfig feed, std::unique_ptr<HttpClient> client, Context context)
    : feed_(std::move(feed)),
      client_(std::move(client)),
      context_(std::move(context)),
      backoff_(feed_.backoff_initial, feed_.backoff_max, context_.seed),
      budget_(feed_.daily_budget),
      in_flight_since_(kIdle) {}

FeedPoller::~FeedPoller() = default;

base::Result<std::unique_ptr<FeedPoller>> FeedPoller::Open(FeedConfig feed,
                                                           const std::filesystem::path& archive,
                                                           std::unique_ptr<HttpClient> client,
                                                           Context context) {
  if (feed.daily_budget > 0) {
    // Spread the day's requests evenly instead of spending them by noon.
    const auto spread = std::chrono::ceil<milliseconds>(std::chrono::hours(24)) / feed.daily_budget;
    if (spread > feed.interval) {
      spdlog::info(
          "feed interval raised to fit the daily budget feed={} interval_s={:.1f} "
          "budget={}",
          feed.id, static_cast<double>(spread.count()) / 1000, feed.daily_budget);
      feed.interval = spread;
    }
  }
  std::unique_ptr<FeedPoller> poller(
      new FeedPoller(std::move(feed), std::move(client), std::move(context)));
  auto& f = poller->feed_;
  using Kind = AuthConfig::Kind;
  if (f.auth.kind == Kind::kHeader || f.auth.kind == Kind::kQuery || f.auth.kind == Kind::kBearer) {
    poller->secret_ = Env(f.auth.env);
    if (poller->secret_.empty()) {
      return base::InvalidInput("feed '{}': environment variable {} (its credential) is not set",
                                f.id, f.auth.env);
    }
  } else if (f.auth.kind == Kind::kOAuth2) {
    poller->client_id_ = Env(f.auth.client_id_env);
    poller->client_secret_ = Env(f.auth.client_secret_env);
    if (poller->client_id_.empty() || poller->client_secret_.empty()) {
      if (!f.auth.anonymous_fallback) {
        return base::InvalidInput("feed '{}': {} and {} must be set", f.id, f.auth.client_id_env,
                                  f.auth.client_secret_env);
      }
      spdlog::warn("feed polls anonymously feed={} reason=credentials_not_set variables={},{}",
                   f.id, f.auth.client_id_env, f.auth.client_secret_env);
      poller->client_id_.clear();
      poller->client_secret_.clear();
    }
  }
  source::FeedInfo info;
  info.feed_id = f.id;
  info.format = f.format;
  info.mode = f.mode ? f.mode : std::optional<model::Mode>(codec::DefaultMode(f.format));
  info.time_zone = f.time_zone;
  info.url = RedactUrl(f.url, f.auth.query);  // the configured URL holds no secret anyway
  FROTA_ASSIGN_OR_RETURN(poller->writer_, source::BronzeWriter::Open(archive, info));
  FROTA_ASSIGN_OR_RETURN(poller->journal_,
                         source::PollJournalWriter::Open(archive, poller->feed_.id));
  if (const auto last = poller->writer_->last_ingest_time()) {
    poller->last_ingest_ = *last;
  }
  poller->meters_ = std::make_unique<Meters>(*poller->context_.metrics, f.id);
  poller->slot_ = poller->context_.first_poll;
  poller->next_due_ = poller->context_.first_poll;
  poller->stats_.feed_id = f.id;
  poller->stats_.next_poll = poller->next_due_;
  return poller;
}

FeedStats FeedPoller::stats() const {
  const std::lock_guard lock(mutex_);
  return stats_;
}

std::optional<base::Timestamp> FeedPoller::in_flight_since() const {
  const auto v = in_flight_since_.load(std::memory_order_acquire);
  if (v == kIdle) {
    return std::nullopt;
  }
  return base::FromUnixMicros(v);
}

base::Timestamp FeedPoller::NextGridPoint(base::Timestamp now) const {
  const auto interval = std::chrono::duration_cast<base::Micros>(feed_.interval);
  auto next = slot_ + interval;
  if (next <= now) {
    next += ((now - next) / interval + 1) * interval;  // skip the grid points we missed
  }
  return next;
}

base::Status FeedPoller::RefreshToken(base::Timestamp now) {
  HttpRequest request;
  request.url = feed_.auth.token_url;
  request.timeout = feed_.timeout;
  request.connect_timeout = feed_.connect_timeout;
  request.user_agent = context_.user_agent;
  request.max_body_bytes = 1 << 20;
  request.form_body = "grant_type=client_credentials&client_id=" + UrlEncode(client_id_) +
                      "&client_secret=" + UrlEncode(client_secret_);
  const auto response = client_->Fetch(request);
  if (response.failure != FailureKind::kNone || response.status != 200) {
    return base::Unavailable("token request failed status={} error={}", response.status,
                             response.error.empty() ? FailureKindName(response.failure)
                                                    : std::string_view(response.error));
  }
  try {
    const auto j = nlohmann::json::parse(response.body);
    token_ = j.at("access_token").get<std::string>();
    const auto expires_in = j.value("expires_in", std::int64_t{1800});
    token_expiry_ = now + std::chrono::seconds(expires_in) - kTokenMargin;
  } catch (const nlohmann::json::exception&) {
    return base::Unavailable("token response is not the expected JSON");
  }
  spdlog::debug("feed token refreshed feed={}", feed_.id);
  return base::Status::Ok();
}

base::Result<HttpRequest> FeedPoller::BuildRequest(base::Timestamp now) {
  HttpRequest request;
  request.url = feed_.url;
  if (feed_.window.count() > 0) {
    static thread_local std::string zone_name;
    static thread_local std::optional<base::TimeZone> zone;
    if (!zone || zone_name != feed_.time_zone) {
      FROTA_ASSIGN_OR_RETURN(auto loaded, base::TimeZone::Load(feed_.time_zone));
      zone.emplace(std::move(loaded));
      zone_name = feed_.time_zone;
    }
    ReplaceAll(request.url, "{start}", LocalQueryTime(*zone, now - feed_.window));
    ReplaceAll(request.url, "{end}", LocalQueryTime(*zone, now));
  }
  request.timeout = feed_.timeout;
  request.connect_timeout = feed_.connect_timeout;
  request.max_body_bytes = feed_.max_body_bytes;
  request.gzip = feed_.gzip;
  request.user_agent = context_.user_agent;
  for (const auto& [name, value] : feed_.headers) {
    request.headers.emplace_back(name, value);
  }
  if (feed_.conditional) {
    if (!etag_.empty()) {
      request.headers.emplace_back("If-None-Match", etag_);
    }
    if (!last_modified_.empty()) {
      request.headers.emplace_back("If-Modified-Since", last_modified_);
    }
  }
  using Kind = AuthConfig::Kind;
  switch (feed_.auth.kind) {
    case Kind::kHeader:
      request.headers.emplace_back(feed_.auth.header, secret_);
      break;
    case Kind::kQuery:
      request.url += (request.url.find('?') == std::string::npos ? "?" : "&") + feed_.auth.query +
                     "=" + UrlEncode(secret_);
      break;
    case Kind::kBearer:
      request.headers.emplace_back("Authorization", "Bearer " + secret_);
      break;
    case Kind::kOAuth2:
      if (!client_id_.empty()) {
        if (token_.empty() || now >= token_expiry_) {
          FROTA_RETURN_IF_ERROR(RefreshToken(now));
        }
        request.headers.emplace_back("Authorization", "Bearer " + token_);
      }
      break;
    case Kind::kNone:
      break;
  }
  return request;
}

void FeedPoller::Step() {
  const base::Timestamp now = context_.clock->Now();
  if (attempt_ == 0) {
    slot_ = std::max(slot_, std::min(now, next_due_));
  }
  if (!budget_.TryTake(now)) {
    next_due_ = DailyBudget::NextRefill(now);
    slot_ = next_due_;
    attempt_ = 0;
    const std::lock_guard lock(mutex_);
    ++stats_.budget_waits;
    stats_.next_poll = next_due_;
    spdlog::warn("feed daily budget spent feed={} budget={} resume_at={}", feed_.id,
                 feed_.daily_budget, base::FormatIso8601(next_due_));
    return;
  }
  in_flight_since_.store(base::ToUnixMicros(now), std::memory_order_release);
  {
    const std::lock_guard lock(mutex_);
    if (attempt_ == 0) {
      ++stats_.polls;
      meters_->polls->Add();
    } else {
      ++stats_.retries;
      meters_->retries->Add();
    }
    ++stats_.requests;
  }
  meters_->requests->Add();
  ++attempt_;
  poll_ = model::PollRow();
  journaled_ = false;
  poll_.feed_id = feed_.id;
  poll_.polled_at = now;
  poll_.attempt = attempt_;
  poll_.run_id = context_.run_id;
  auto request = BuildRequest(now);
  HttpResponse response;
  if (!request.ok()) {
    response.failure = FailureKind::kAuth;
    response.error = request.error().message();
  } else {
    response = client_->Fetch(*request);
  }
  meters_->duration->Observe(static_cast<double>(response.duration.count()) / 1e6);
  poll_.http_status = response.status;
  poll_.bytes = static_cast<std::int64_t>(response.body.size());
  poll_.duration_ms = Millis(response.duration);
  if (response.failure == FailureKind::kNone &&
      (response.status == 200 || response.status == 304)) {
    OnOk(response, now);
  } else {
    if (response.failure == FailureKind::kNone) {
      response.failure = FailureKind::kOther;  // 1xx, 3xx or a 2xx other than 200
      response.error = fmt::format("unexpected status {}", response.status);
    }
    poll_.failure = std::string(FailureKindName(response.failure));
    OnFailure(response, now);
  }
  Journal();
  in_flight_since_.store(kIdle, std::memory_order_release);
}

void FeedPoller::Journal() {
  if (journaled_) {
    return;
  }
  journaled_ = true;
  if (const auto status = journal_->Append(poll_); !status.ok()) {
    meters_->journal_errors->Add();
    spdlog::error("poll not journaled feed={} error={}", feed_.id, status.error().message());
  }
}

void FeedPoller::EndCycle(base::Timestamp now) {
  attempt_ = 0;
  token_retry_ = false;
  next_due_ = NextGridPoint(now);
  slot_ = next_due_;
}

void FeedPoller::OnNotModified(base::Timestamp received, base::Timestamp now) {
  meters_->not_modified->Add();
  {
    const std::lock_guard lock(mutex_);
    ++stats_.not_modified;
    stats_.last_status = 304;
    stats_.consecutive_failures = 0;
    stats_.last_success = received;
  }
  spdlog::debug("feed not modified feed={}", feed_.id);
  EndCycle(now);
  const std::lock_guard lock(mutex_);
  stats_.next_poll = next_due_;
}

bool FeedPoller::Repeats(const std::string& body, std::optional<base::Timestamp> header_time) {
  const std::uint64_t digest = base::StableHash(body);
  const bool repeat =
      (previous_digest_ && *previous_digest_ == digest) ||
      (header_time && previous_header_time_ && *header_time == *previous_header_time_);
  previous_digest_ = digest;
  previous_header_time_ = header_time;
  return repeat;
}

source::ResponseEnvelope FeedPoller::EnvelopeOf(const HttpResponse& response,
                                                base::Timestamp ingest, bool repeat) {
  if (const auto etag = response.Header("etag"); !etag.empty()) {
    etag_ = std::string(etag);
  }
  if (const auto modified = response.Header("last-modified"); !modified.empty()) {
    last_modified_ = std::string(modified);
  }
  source::ResponseEnvelope envelope;
  envelope.ingest_time = ingest;
  envelope.http_status = response.status;
  for (const auto& [name, value] : response.headers) {
    if (name != "set-cookie") {  // session secrets stay out of the archive
      envelope.headers.emplace_back(name, value);
    }
  }
  envelope.repeat = repeat;
  envelope.duration_ms = Millis(response.duration);
  envelope.run_id = context_.run_id;
  envelope.collection_number = stats_.polls;  // this thread is its only writer
  return envelope;
}

void FeedPoller::OnOk(HttpResponse& response, base::Timestamp now) {
  const base::Timestamp received = context_.clock->Now();
  consecutive_429_ = 0;
  meters_->up->Set(1);
  meters_->last_success->Set(static_cast<double>(base::ToUnixMicros(received)) / 1e6);
  if (response.status == 304) {
    return OnNotModified(received, now);
  }
  // Ingest times never go back within a feed (semantics.md rule 7 relies on it).
  const base::Timestamp ingest = std::max(received, last_ingest_);
  last_ingest_ = ingest;
  std::string body = std::move(response.body);

  codec::DecodeOptions options;
  options.feed_id = feed_.id;
  options.mode = feed_.mode;
  options.ingest_time = ingest;
  options.time_zone = feed_.time_zone;
  codec::DecodedBatch batch;
  // A body that is not the feed's format is still archived; silver gets one bad_payload
  // rejection for it, as a replay of the archive does.
  const auto decoded = source::DecodeArchivedResponse(feed_.format, body, options, batch);
  std::optional<base::Timestamp> header_time;
  if (decoded.ok()) {
    header_time = decoded->header_time;
  } else {
    meters_->decode_failures->Add();
    spdlog::warn("feed response not decodable feed={} bytes={} content_type={} error={}", feed_.id,
                 body.size(), response.Header("content-type"), decoded.error().message());
  }
  const bool repeat = Repeats(body, header_time);
  const source::ResponseEnvelope envelope = EnvelopeOf(response, ingest, repeat);
  const auto written = writer_->Write(envelope, body);
  if (!written.ok()) {
    poll_.failure = "archive";
    meters_->archive_errors->Add();
    spdlog::error("feed response not archived feed={} bytes={} error={}", feed_.id, body.size(),
                  written.error().message());
    const std::lock_guard lock(mutex_);
    ++stats_.archive_errors;
    ++stats_.consecutive_failures;
    EndCycle(now);
    stats_.next_poll = next_due_;
    return;
  }
  const auto records = static_cast<std::int64_t>(batch.size());
  poll_.repeat = repeat;
  poll_.records = records;
  poll_.body = written->lexically_normal().string();
  Journal();  // right after the body: a crash leaves no archived response without its poll
  for (auto* listener : context_.listeners) {
    listener->OnResponse(ArchivedResponse{feed_, *written, envelope, body});
  }
  const auto positions = static_cast<std::int64_t>(batch.positions.size());
  std::map<std::string, std::int64_t> rule1;
  for (const auto& r : batch.rejections) {
    ++rule1[std::string(model::RejectReasonName(r.reason))];
  }
  std::map<std::string, std::int64_t> refused = rule1;
  if (context_.medallion != nullptr) {
    PolledResponse polled;
    polled.feed_id = feed_.id;
    polled.bronze_file = written->string();
    polled.ingest_time = ingest;
    polled.http_status = response.status;
    polled.bytes = static_cast<std::int64_t>(body.size());
    polled.duration_ms = envelope.duration_ms;
    polled.repeat = repeat;
    polled.decoded = decoded.ok();
    polled.batch = std::move(batch);
    polled.format = feed_.format;
    polled.body = body;
    polled.time_zone = feed_.time_zone;
    refused = context_.medallion->Add(std::move(polled));
  }
  for (const auto& [reason, n] : refused) {
    meters_->Rejected(reason, n);
  }
  meters_->responses->Add();
  meters_->bytes->Add(static_cast<double>(body.size()));
  meters_->positions->Add(static_cast<double>(positions));
  if (repeat) {
    meters_->repeats->Add();
  }
  EndCycle(now);
  const std::lock_guard lock(mutex_);
  ++stats_.responses;
  stats_.bytes += static_cast<std::int64_t>(body.size());
  stats_.records += records;
  stats_.positions += positions;
  for (const auto& [reason, n] : rule1) {
    stats_.rejected[reason] += n;
  }
  stats_.decode_failures += decoded.ok() ? 0 : 1;
  stats_.repeats += repeat ? 1 : 0;
  stats_.last_status = response.status;
  stats_.consecutive_failures = 0;
  stats_.last_success = received;
  stats_.last_response = ingest;
  stats_.rate_limited_until.reset();
  stats_.next_poll = next_due_;
  spdlog::debug("feed response archived feed={} bytes={} records={} repeat={} ms={:.0f}", feed_.id,
                body.size(), records, repeat, envelope.duration_ms);
}

void FeedPoller::OnFailure(const HttpResponse& response, base::Timestamp now) {
  const base::Timestamp at = context_.clock->Now();
  const auto kind = response.failure;
  meters_->up->Set(0);
  meters_->failures.at(static_cast<int>(kind))->Add();
  const int attempt = attempt_;
  std::optional<base::Timestamp> rate_limited_until;
  std::string plan;
  if (kind == FailureKind::kRateLimited) {
    // Never retry at once: the server said when, or we back off harder each time.
    std::optional<milliseconds> wait = ParseRetryAfter(response.Header("retry-after"), at);
    if (!wait) {
      wait = ParseRetryAfter(response.Header("x-rate-limit-retry-after-seconds"), at);
    }
    if (!wait) {
      const int shift = std::min(consecutive_429_, 20);
      wait =
          std::min<milliseconds>(feed_.backoff_max_429, feed_.rate_limit_initial * (1LL << shift));
    }
    wait = std::max<milliseconds>(*wait, kMinRateLimitWait);
    ++consecutive_429_;
    attempt_ = 0;
    token_retry_ = false;
    next_due_ = std::max(NextGridPoint(now), at + std::chrono::duration_cast<base::Micros>(*wait));
    slot_ = next_due_;
    rate_limited_until = next_due_;
    plan = fmt::format("wait_s={:.0f}", static_cast<double>(wait->count()) / 1000);
  } else if (kind == FailureKind::kHttp4xx && response.status == 401 &&
             feed_.auth.kind == AuthConfig::Kind::kOAuth2 && !client_id_.empty() && !token_retry_) {
    token_.clear();  // expired: fetch a new token and try once more now
    token_retry_ = true;
    next_due_ = at;
    plan = "retry_with_new_token";
  } else if (IsRetryable(kind) && attempt <= feed_.max_retries) {
    const auto delay = std::chrono::duration_cast<base::Micros>(backoff_.Delay(attempt - 1));
    const auto next_grid = NextGridPoint(now);
    if (at + delay < next_grid) {
      next_due_ = at + delay;
      plan = fmt::format("retry_in_ms={}", delay.count() / 1000);
    } else {
      const std::lock_guard lock(mutex_);
      ++stats_.retries_abandoned;
      EndCycle(now);
      plan = "next_poll";
    }
  } else {
    EndCycle(now);
    plan = "next_poll";
  }
  {
    const std::lock_guard lock(mutex_);
    ++stats_.failures[std::string(FailureKindName(kind))];
    stats_.last_status = response.status;
    stats_.last_failure = std::string(FailureKindName(kind));
    ++stats_.consecutive_failures;
    stats_.next_poll = next_due_;
    if (rate_limited_until) {
      ++stats_.rate_limit_waits;
      stats_.rate_limited_until = rate_limited_until;
    }
  }
  const auto level = kind == FailureKind::kRateLimited          ? spdlog::level::warn
                     : IsRetryable(kind) && plan != "next_poll" ? spdlog::level::info
                                                                : spdlog::level::warn;
  spdlog::log(level, "feed poll failed feed={} kind={} status={} attempt={} {} error={}", feed_.id,
              FailureKindName(kind), response.status, attempt, plan,
              response.error.empty() ? "-" : response.error);
}

}  // namespace frota::collect
