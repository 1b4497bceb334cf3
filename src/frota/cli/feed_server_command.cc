// `frota feed-server`: a bronze archive served as live feeds (collect/feed_server.h).
#include <fmt/core.h>
#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <cstdio>

#include "frota/cli/commands.h"
#include "frota/collect/feed_server.h"

namespace frota::cli {

namespace {

struct FeedServerFlags {
  std::string archive;
  std::string listen = "127.0.0.1:8000";
  std::string start;
  double speed = 1;
  std::vector<std::string> faults;
  std::int64_t retry_after_s = 30;
};

// "first" (or nothing): the archive's first response; "now": the clock's time, for an
// archive of today; else an ISO 8601 time.
base::Status ApplyStart(const std::string& start, collect::FeedServerOptions& options) {
  if (start.empty() || start == "first") {
    return base::Status::Ok();
  }
  if (start == "now") {
    options.start = base::SystemClock::Get().Now();
    return base::Status::Ok();
  }
  const auto parsed = base::ParseIso8601(start);
  if (!parsed) {
    return base::InvalidInput("--start '{}': want first, now or an ISO 8601 time", start);
  }
  options.start = *parsed;
  return base::Status::Ok();
}

int RunFeedServer(const FeedServerFlags& flags) {
  collect::FeedServerOptions options;
  options.archive = flags.archive;
  options.listen = flags.listen;
  options.speed = flags.speed;
  options.retry_after = std::chrono::seconds(flags.retry_after_s);
  if (const auto start = ApplyStart(flags.start, options); !start.ok()) {
    return ReportError(start.error());
  }
  auto faults = collect::ParseFeedFaults(flags.faults);
  if (!faults.ok()) {
    return ReportError(faults.error());
  }
  options.faults = std::move(*faults);
  // SIGINT and SIGTERM end the server: blocked here (and in every thread made after),
  // then awaited with sigwait.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  auto server = collect::FeedServer::Open(std::move(options));
  if (!server.ok()) {
    return ReportError(server.error());
  }
  if (const auto started = (*server)->Start(); !started.ok()) {
    return ReportError(started.error());
  }
  for (const auto& feed : (*server)->FeedIds()) {
    fmt::print("{}\n", (*server)->Url(feed));
  }
  std::fflush(stdout);
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  spdlog::info("feed-server stopping signal={}", signal_number == SIGINT ? "SIGINT" : "SIGTERM");
  (*server)->Stop();
  return kExitOk;
}

}  // namespace

void AddFeedServerCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<FeedServerFlags>();
  auto* sub = app.add_subcommand(
      "feed-server",
      "Serve a bronze archive's responses as live feeds over HTTP, in real time or faster, "
      "with optional faults");
  sub->add_option("--archive", flags->archive, "Bronze archive folder (frota collect, simulate)")
      ->required();
  sub->add_option("--listen", flags->listen,
                  "HOST:PORT to serve on (PORT 0: any free port); prints each feed's URL")
      ->capture_default_str();
  sub->add_option("--start", flags->start,
                  "Archive time served at start: first (its first response, default), now "
                  "(for an archive of today) or an ISO 8601 time");
  sub->add_option("--speed", flags->speed, "Archive seconds per second: 1 real time, 60 faster")
      ->capture_default_str();
  sub->add_option("--fault", flags->faults,
                  "KIND=N: every N-th request of each feed gets KIND, one of rate-limit (429 "
                  "with Retry-After), server-error (500), truncated (half the body), repeat "
                  "(the previous response again); repeatable");
  sub->add_option("--retry-after", flags->retry_after_s, "Seconds of the rate-limit's Retry-After")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{86400}));
  sub->callback([flags, &run] { run = [flags] { return RunFeedServer(*flags); }; });
}

}  // namespace frota::cli
