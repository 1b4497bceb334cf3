#include "frota/runner/live_publisher.h"

#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>

#include "frota/base/file.h"
#include "frota/model/source.h"
#include "frota/source/poll_journal.h"
#include "frota/transport/topic_admin.h"

namespace frota::runner {

namespace fs = std::filesystem;

namespace {

// Progress records name sources relative to the archive, so a restart that spells the
// archive's path differently still finds them.
std::string Relative(const std::string& source, const fs::path& archive) {
  const std::string root = archive.lexically_normal().string();
  const std::string prefix = root.ends_with('/') ? root : root + "/";
  return source.rfind(prefix, 0) == 0 ? source.substr(prefix.size()) : source;
}

std::string Absolute(const std::string& relative, const fs::path& archive) {
  return (archive / relative).lexically_normal().string();
}

// The archive's identity (ROOT/archive.json, made on first use): progress records carry
// it, so the progress of one archive is never applied to another.
base::Result<std::string> ArchiveId(const fs::path& archive) {
  const fs::path file = archive / "archive.json";
  std::error_code ec;
  if (fs::exists(file, ec)) {
    FROTA_ASSIGN_OR_RETURN(const auto text, base::ReadFile(file));
    try {
      return nlohmann::json::parse(text).at("archive_id").get<std::string>();
    } catch (const nlohmann::json::exception& e) {
      return base::InvalidInput("{}: {}", file.string(), e.what());
    }
  }
  fs::create_directories(archive, ec);
  std::random_device random;
  const std::string id =
      fmt::format("{:08x}{:08x}{:08x}{:08x}", random(), random(), random(), random());
  nlohmann::ordered_json j;
  j["archive_id"] = id;
  FROTA_RETURN_IF_ERROR(base::WriteFileAtomic(file, j.dump(2) + "\n"));
  return id;
}

std::string ProgressRecord(const std::string& publisher, const std::string& archive_id,
                           const std::string& run_id,
                           const std::vector<engine::SourceProgress>& progress,
                           const fs::path& archive, bool end_marker) {
  nlohmann::ordered_json j;
  j["version"] = 1;
  j["publisher"] = publisher;
  j["archive_id"] = archive_id;
  j["run_id"] = run_id;
  nlohmann::ordered_json sources = nlohmann::ordered_json::array();
  for (const auto& p : progress) {
    sources.push_back({{"source", Relative(p.source, archive)},
                       {"partition", p.partition.value()},
                       {"next_offset", p.next_offset.value()}});
  }
  j["sources"] = sources;
  j["end_marker"] = end_marker;
  return j.dump();
}

base::Result<std::vector<engine::SourceProgress>> ParseProgress(const std::string& text,
                                                                const fs::path& archive,
                                                                const std::string& archive_id,
                                                                const std::string& topic) {
  std::vector<engine::SourceProgress> out;
  try {
    const auto j = nlohmann::json::parse(text);
    if (j.at("version").get<int>() != 1) {
      return base::InvalidInput("progress record version {} is not 1", j.at("version").dump());
    }
    const auto theirs = j.at("archive_id").get<std::string>();
    if (theirs != archive_id) {
      // Resuming another archive's offsets would skip (or repeat) records: refuse.
      return base::InvalidInput(
          "the progress of publisher {} in {} belongs to archive {}, not to {} (archive {}): "
          "give this archive its own --publisher-id (or topic)",
          j.at("publisher").get<std::string>(), topic, theirs, archive.string(), archive_id);
    }
    for (const auto& s : j.at("sources")) {
      out.push_back({Absolute(s.at("source").get<std::string>(), archive),
                     base::PartitionId(s.at("partition").get<std::int32_t>()),
                     base::Offset(s.at("next_offset").get<std::int64_t>())});
    }
  } catch (const nlohmann::json::exception& e) {
    return base::InvalidInput("progress record: {}", e.what());
  }
  return out;
}

}  // namespace

// One producer session: from a fenced, recovered start to the first error.
class LivePublisher::Session {
 public:
  static base::Result<std::unique_ptr<Session>> Open(const LivePublisherConfig& config) {
    std::unique_ptr<Session> s(new Session(config));
    transport::ProducerOptions options = config.producer;
    options.transactional_id = config.publisher_id;
    options.connect_wait = std::chrono::seconds(10);
    FROTA_RETURN_IF_ERROR(transport::EnsureCompactedTopic(
        options.brokers, s->progress_topic_, options.properties, std::chrono::seconds(10)));
    // The producer first: initialising its transactions fences an older session of this
    // publisher and aborts what it left open, so the progress read next is final.
    FROTA_ASSIGN_OR_RETURN(s->producer_, transport::Producer::Create(options));
    FROTA_ASSIGN_OR_RETURN(
        const auto last,
        transport::ReadLastValue(options.brokers, s->progress_topic_, config.publisher_id,
                                 options.properties, std::chrono::seconds(30)));
    FROTA_ASSIGN_OR_RETURN(s->archive_id_, ArchiveId(config.archive));
    std::vector<engine::SourceProgress> resume;
    if (last) {
      FROTA_ASSIGN_OR_RETURN(
          resume, ParseProgress(*last, config.archive, s->archive_id_, s->progress_topic_));
    }
    s->journal_ = std::make_unique<source::PollJournalReader>(config.archive, resume);
    std::vector<engine::SourceProgress> archive_resume;
    for (const auto& p : resume) {
      if (!s->journal_->Owns(p)) {
        archive_resume.push_back(p);
      }
    }
    FROTA_ASSIGN_OR_RETURN(
        s->follower_,
        source::ArchiveFollower::Open(config.archive, &s->catalog_, config.replay, archive_resume));
    s->committed_ = resume;
    std::int64_t resumed = 0;
    for (const auto& p : resume) {
      resumed += p.next_offset.value();
    }
    spdlog::info(
        "kafka publisher session started topic={} progress_topic={} publisher={} "
        "resumed_sources={} resumed_offsets={}",
        options.topic, s->progress_topic_, config.publisher_id, resume.size(), resumed);
    return s;
  }

  struct Drained {
    std::int64_t records = 0;
    std::int64_t polls = 0;
    std::int64_t transactions = 0;
    bool end_published = false;
  };

  // Publishes everything found by one scan, one transaction per transaction_records
  // records (and, last, the end-of-input markers when asked).
  base::Result<Drained> Drain(bool with_end_marker) {
    FROTA_RETURN_IF_ERROR(follower_->Scan());
    std::vector<source::JournalPoll> polls;
    FROTA_RETURN_IF_ERROR(journal_->Read(polls));
    std::size_t next_poll = 0;  // polls go out in order, at most transaction_records at once
    bool more = true;
    Drained out;
    while (true) {
      if (more) {
        FROTA_ASSIGN_OR_RETURN(more, follower_->Next(batch_, config_.transaction_records));
      } else {
        batch_.clear();
      }
      const std::size_t poll_end = std::min(polls.size(), next_poll + config_.transaction_records);
      // The end marker goes with the last records and polls, never before them.
      const bool end = with_end_marker && !more && poll_end == polls.size();
      if (batch_.empty() && next_poll == poll_end && !end) {
        break;  // nothing (more) to publish
      }
      FROTA_RETURN_IF_ERROR(producer_->BeginTransaction());
      for (const auto& record : batch_) {
        if (const auto* position = std::get_if<model::Position>(&record.record)) {
          FROTA_RETURN_IF_ERROR(
              producer_->PublishPosition(*position, NameOf(position->source.source)));
        } else {
          const auto& rejection = std::get<model::Rejection>(record.record);
          FROTA_RETURN_IF_ERROR(
              producer_->PublishRejection(rejection, NameOf(rejection.source.source)));
        }
      }
      for (std::size_t i = next_poll; i < poll_end; ++i) {
        FROTA_RETURN_IF_ERROR(producer_->PublishPoll(polls[i].poll));
      }
      if (end) {
        FROTA_RETURN_IF_ERROR(producer_->QueueEndOfInput(config_.run_id));
      }
      // Journals stand after the last poll of this transaction, not after all read.
      auto progress = follower_->Progress();
      for (auto p : journal_->Progress()) {
        for (std::size_t i = poll_end; i < polls.size(); ++i) {
          if (polls[i].source == p.source && polls[i].offset < p.next_offset.value()) {
            p.next_offset = base::Offset(polls[i].offset);
          }
        }
        progress.push_back(std::move(p));
      }
      FROTA_RETURN_IF_ERROR(producer_->PublishToTopic(
          progress_topic_, config_.publisher_id,
          ProgressRecord(config_.publisher_id, archive_id_, config_.run_id, progress,
                         config_.archive, end)));
      FROTA_RETURN_IF_ERROR(producer_->CommitTransaction());
      committed_ = std::move(progress);
      out.records += static_cast<std::int64_t>(batch_.size());
      out.polls += static_cast<std::int64_t>(poll_end - next_poll);
      ++out.transactions;
      next_poll = poll_end;
      if (end) {
        out.end_published = true;
        break;
      }
    }
    return out;
  }

  void Abort() { producer_->AbortTransaction(std::chrono::seconds(5)); }
  /// The progress of the last committed transaction (at first, the one resumed from).
  [[nodiscard]] const std::vector<engine::SourceProgress>& committed() const { return committed_; }

 private:
  explicit Session(const LivePublisherConfig& config)
      : config_(config),
        progress_topic_(config.progress_topic.empty() ? config.producer.topic + ".progress"
                                                      : config.progress_topic) {}

  const std::string& NameOf(model::SourceId id) {
    while (names_.size() <= id) {
      names_.push_back(catalog_.Name(static_cast<model::SourceId>(names_.size())));
    }
    return names_[id];
  }

  const LivePublisherConfig& config_;
  std::string progress_topic_;
  std::string archive_id_;
  std::vector<engine::SourceProgress> committed_;
  model::SourceCatalog catalog_;
  std::vector<std::string> names_;
  std::unique_ptr<transport::Producer> producer_;
  std::unique_ptr<source::ArchiveFollower> follower_;
  std::unique_ptr<source::PollJournalReader> journal_;
  std::vector<source::SourceRecord> batch_;
};

LivePublisher::LivePublisher(LivePublisherConfig config) : config_(std::move(config)) {}

LivePublisher::~LivePublisher() { Cancel(); }

void LivePublisher::Cancel() {
  cancelled_.store(true);
  (void)Stop();
}

void LivePublisher::Start() {
  thread_ = std::thread([this] { Loop(); });
}

base::Status LivePublisher::Stop() {
  stopping_.store(true);
  {
    const std::lock_guard lock(mutex_);
    wake_.notify_all();
  }
  if (config_.waker != nullptr) {
    config_.waker->Notify();
  }
  if (thread_.joinable()) {
    thread_.join();
  }
  const std::lock_guard lock(mutex_);
  return final_status_;
}

PublisherStats LivePublisher::stats() const {
  const std::lock_guard lock(mutex_);
  PublisherStats s = stats_;
  s.unpublished_responses = static_cast<std::int64_t>(unpublished_.size());
  if (!unpublished_.empty() && config_.now) {
    const auto oldest = *std::min_element(unpublished_.begin(), unpublished_.end());
    s.lag_seconds =
        static_cast<double>(base::ToUnixMicros(config_.now()) - base::ToUnixMicros(oldest)) / 1e6;
  }
  return s;
}

void LivePublisher::OnArchived(base::Timestamp ingest_time) {
  const std::lock_guard lock(mutex_);
  unpublished_.push_back(ingest_time);
}

void LivePublisher::Wait(std::chrono::milliseconds timeout) {
  if (config_.waker != nullptr) {
    config_.waker->Wait(timeout);  // Stop() notifies it too
    return;
  }
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, timeout, [this] { return stopping_.load(); });
}

void LivePublisher::Loop() {
  std::unique_ptr<Session> session;
  std::optional<std::chrono::steady_clock::time_point> drain_deadline;
  std::string last_error;
  // An error (no session, or a session that failed): say so once per distinct message,
  // count it, and wait before the next attempt. False when the stop's deadline passed.
  const auto failed = [&](const base::Error& error, bool stopping) {
    if (error.message() != last_error) {
      spdlog::warn(
          "kafka publisher waiting: {}; polling and archiving go on, publishing "
          "resumes from the last committed progress",
          error.message());
      last_error = error.message();
    }
    {
      const std::lock_guard lock(mutex_);
      stats_.connected = false;
      ++stats_.failures;
    }
    if (config_.on_stats) {
      config_.on_stats(stats());
    }
    if (stopping && std::chrono::steady_clock::now() >= *drain_deadline) {
      const std::lock_guard lock(mutex_);
      final_status_ = base::Unavailable(
          "kafka publisher stopped before publishing everything ({}); the rest stays in "
          "bronze and is published by the next start",
          error.message());
      return false;
    }
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, stopping ? std::chrono::milliseconds(1000) : config_.retry_wait,
                   [&] { return stopping_.load() != stopping || cancelled_.load(); });
    return true;
  };
  while (!cancelled_.load()) {
    const bool stopping = stopping_.load();
    if (stopping && !drain_deadline) {
      drain_deadline = std::chrono::steady_clock::now() + config_.drain_wait;
    }
    if (!session) {
      auto opened = Session::Open(config_);
      if (!opened.ok()) {
        if (!failed(opened.error(), stopping)) {
          break;
        }
        continue;
      }
      session = std::move(*opened);
      const std::lock_guard lock(mutex_);
      stats_.connected = true;
    }
    const auto floor = config_.ingest_floor ? config_.ingest_floor() : base::Timestamp::min();
    const auto drained = session->Drain(stopping && config_.end_marker);
    if (!drained.ok()) {
      session->Abort();
      session.reset();
      if (!failed(drained.error(), stopping)) {
        break;
      }
      continue;
    }
    last_error.clear();
    {
      const std::lock_guard lock(mutex_);
      stats_.records += drained->records;
      stats_.polls += drained->polls;
      stats_.transactions += drained->transactions;
      stats_.end_marker_published = stats_.end_marker_published || drained->end_published;
      std::erase_if(unpublished_, [&](base::Timestamp t) { return t < floor; });
    }
    if (config_.after_commit) {
      config_.after_commit(session->committed());
    }
    if (config_.on_stats) {
      config_.on_stats(stats());
    }
    if (stopping) {
      if (drained->end_published) {
        spdlog::info("kafka publisher published the end-of-input markers topic={}",
                     config_.producer.topic);
      }
      break;  // everything visible at the stop is committed
    }
    Wait(config_.scan_interval);
  }
  const auto s = stats();
  spdlog::info("kafka publisher stopped records={} polls={} transactions={} unpublished={}{}",
               s.records, s.polls, s.transactions, s.unpublished_responses,
               cancelled_.load() ? " (cancelled: nothing drained, no end marker)" : "");
}

}  // namespace frota::runner
