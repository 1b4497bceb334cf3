#include "frota/source/archive_follower.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "frota/base/file.h"
#include "frota/source/poll_journal.h"

namespace frota::source {

namespace fs = std::filesystem;

// One feed folder: responses found by scans, decoded one at a time into a queue of
// records in offset order.
class ArchiveFollower::Feed {
 public:
  Feed(FeedInfo info, fs::path dir, std::string name, base::PartitionId id, std::int64_t skip_to,
       model::SourceCatalog* catalog, const ReplayOptions& options)
      : info_(std::move(info)),
        dir_(std::move(dir)),
        name_(std::move(name)),
        id_(id),
        skip_to_(skip_to),
        next_offset_(skip_to),
        catalog_(catalog),
        options_(options) {}

  base::Status Scan() {
    if (!ledger_read_) {
      // Hours retention removed: their records keep their offsets' places.
      FROTA_ASSIGN_OR_RETURN(removed_, ReadRemovedPrefix(dir_));
      decoded_ = removed_.records;
      next_offset_ = std::max(next_offset_, decoded_);
      if (skip_to_ < decoded_ && skip_to_ > 0) {
        spdlog::warn(
            "records removed by retention before they were committed partition={} "
            "committed={} first_kept={}",
            name_, skip_to_, decoded_);
      }
      ledger_read_ = true;
    }
    // Only the hour of the newest response seen and later ones can hold new responses.
    const std::string last_hour =
        last_.substr(0, last_.rfind('/') == std::string::npos ? 0 : last_.rfind('/'));
    FROTA_ASSIGN_OR_RETURN(const auto hours, ListHours(dir_, last_hour));
    for (const auto& hour : hours) {
      if (!removed_.through.empty() && hour <= removed_.through) {
        continue;
      }
      const std::string_view after =
          hour == last_hour ? std::string_view(last_).substr(last_hour.size() + 1) : "";
      FROTA_ASSIGN_OR_RETURN(auto files, ListHour(dir_, hour, after));
      for (auto& file : files) {
        last_ = hour + "/" + file.body.filename().string();
        pending_.push_back(std::move(file));
      }
    }
    return base::Status::Ok();
  }

  // Ensures the queue holds a record unless every response found so far is read.
  base::Status Fill() {
    while (queue_.empty() && !pending_.empty()) {
      FROTA_RETURN_IF_ERROR(DecodeNext());
    }
    return base::Status::Ok();
  }

  [[nodiscard]] bool empty() const { return queue_.empty(); }
  SourceRecord& front() { return queue_.front(); }
  SourceRecord Pop() {
    SourceRecord r = std::move(queue_.front());
    queue_.pop_front();
    next_offset_ = r.offset + 1;
    return r;
  }
  [[nodiscard]] base::PartitionId id() const { return id_; }
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] std::int64_t next_offset() const { return next_offset_; }
  [[nodiscard]] std::int64_t skipped() const { return skipped_; }
  [[nodiscard]] std::int64_t responses() const { return responses_; }
  [[nodiscard]] std::size_t pending() const { return pending_.size(); }

 private:
  base::Status DecodeNext() {
    const ArchivedFile file = std::move(pending_.front());
    pending_.pop_front();
    if (file.records >= 0 && decoded_ + file.records <= skip_to_) {
      // Committed by an earlier run, and its pack counted its records: not decoded.
      catalog_->Intern(file.body.lexically_normal().string());
      decoded_ += file.records;
      skipped_ += file.records;
      ++responses_;
      return base::Status::Ok();
    }
    FROTA_ASSIGN_OR_RETURN(const auto bytes, bodies_.Body(file.body, file.packed));
    codec::DecodeOptions o;
    o.feed_id = info_.feed_id;
    o.mode = options_.mode ? options_.mode : info_.mode;
    o.source = catalog_->Intern(file.body.lexically_normal().string());
    o.first_offset = decoded_;
    o.time_zone = info_.time_zone.empty() ? options_.time_zone : info_.time_zone;
    o.ingest_time = file.ingest_time;
    batch_.clear();
    const auto decoded = DecodeArchivedResponse(info_.format, bytes, o, batch_);
    if (!decoded.ok()) {
      spdlog::warn("archived response not decodable file={} error={}", file.body.string(),
                   decoded.error().message());
    }
    ++responses_;
    // Positions and rejections back into offset order, as ReplaySource does.
    auto& positions = batch_.positions;
    auto& rejections = batch_.rejections;
    std::size_t p = 0;
    std::size_t r = 0;
    while (p < positions.size() || r < rejections.size()) {
      const bool take_position =
          r >= rejections.size() ||
          (p < positions.size() && positions[p].source.offset < rejections[r].source.offset);
      SourceRecord record;
      record.partition = id_;
      record.order_time = file.ingest_time;
      if (take_position) {
        record.offset = positions[p].source.offset;
        record.record = std::move(positions[p++]);
      } else {
        record.offset = rejections[r].source.offset;
        record.record = std::move(rejections[r++]);
      }
      ++decoded_;
      if (record.offset < skip_to_) {
        ++skipped_;
        continue;
      }
      queue_.push_back(std::move(record));
    }
    return base::Status::Ok();
  }

  FeedInfo info_;
  fs::path dir_;
  std::string name_;
  base::PartitionId id_;
  std::int64_t skip_to_;
  std::int64_t next_offset_;
  model::SourceCatalog* catalog_;
  ReplayOptions options_;
  std::string last_;  // "date=.../hour=../NAME" of the newest response found
  bool ledger_read_ = false;
  RemovedPrefix removed_;
  std::deque<ArchivedFile> pending_;
  ResponseBodies bodies_;
  std::deque<SourceRecord> queue_;
  codec::DecodedBatch batch_;
  std::int64_t decoded_ = 0;
  std::int64_t skipped_ = 0;
  std::int64_t responses_ = 0;
};

base::Result<std::unique_ptr<ArchiveFollower>> ArchiveFollower::Open(
    fs::path root, model::SourceCatalog* catalog, ReplayOptions options,
    const std::vector<engine::SourceProgress>& resume) {
  std::unique_ptr<ArchiveFollower> follower(new ArchiveFollower());
  follower->root_ = std::move(root);
  follower->catalog_ = catalog;
  follower->options_ = std::move(options);
  follower->resume_ = resume;
  for (const auto& progress : resume) {
    if (progress.partition.value() < PollJournalReader::kPollPartitionBase) {
      follower->next_id_ = std::max(follower->next_id_, progress.partition.value() + 1);
    }
  }
  return follower;
}

ArchiveFollower::~ArchiveFollower() = default;

base::Status ArchiveFollower::Scan() {
  std::error_code ec;
  if (!fs::is_directory(root_, ec)) {
    return base::Status::Ok();  // nothing archived yet
  }
  // New feeds: a folder with a feed.json, taken in name order so partition ids follow
  // names as in a replay.
  for (const auto& dir : FeedFolders(root_)) {
    const std::string name = dir.lexically_normal().string();
    const bool known =
        std::any_of(feeds_.begin(), feeds_.end(), [&](const auto& f) { return f->name() == name; });
    if (known) {
      continue;
    }
    FROTA_ASSIGN_OR_RETURN(auto info, ReadFeedInfo(dir));
    base::PartitionId id(next_id_);
    std::int64_t skip_to = 0;
    const auto it = std::find_if(resume_.begin(), resume_.end(),
                                 [&](const auto& p) { return p.source == name; });
    if (it != resume_.end()) {
      id = it->partition;
      skip_to = it->next_offset.value();
    } else {
      ++next_id_;
    }
    feeds_.push_back(
        std::make_unique<Feed>(std::move(info), dir, name, id, skip_to, catalog_, options_));
  }
  for (auto& feed : feeds_) {
    FROTA_RETURN_IF_ERROR(feed->Scan());
  }
  return base::Status::Ok();
}

base::Result<bool> ArchiveFollower::Next(std::vector<SourceRecord>& out, std::size_t max_records) {
  out.clear();
  for (auto& feed : feeds_) {
    FROTA_RETURN_IF_ERROR(feed->Fill());
  }
  while (out.size() < max_records) {
    Feed* best = nullptr;
    for (auto& feed : feeds_) {
      if (feed->empty()) {
        continue;
      }
      if (best == nullptr || feed->front().order_time < best->front().order_time ||
          (feed->front().order_time == best->front().order_time && feed->id() < best->id())) {
        best = feed.get();
      }
    }
    if (best == nullptr) {
      break;
    }
    out.push_back(best->Pop());
    if (best->empty()) {
      FROTA_RETURN_IF_ERROR(best->Fill());
    }
  }
  return !out.empty();
}

std::vector<engine::SourceProgress> ArchiveFollower::Progress() const {
  std::vector<engine::SourceProgress> out;
  for (const auto& feed : feeds_) {
    out.push_back({feed->name(), feed->id(), base::Offset(feed->next_offset())});
  }
  // Partitions committed before but not (yet) found keep their offsets.
  for (const auto& progress : resume_) {
    const bool found = std::any_of(out.begin(), out.end(),
                                   [&](const auto& p) { return p.source == progress.source; });
    if (!found) {
      out.push_back(progress);
    }
  }
  return out;
}

std::int64_t ArchiveFollower::skipped_records() const {
  std::int64_t n = 0;
  for (const auto& feed : feeds_) {
    n += feed->skipped();
  }
  return n;
}

std::int64_t ArchiveFollower::responses_read() const {
  std::int64_t n = 0;
  for (const auto& feed : feeds_) {
    n += feed->responses();
  }
  return n;
}

std::size_t ArchiveFollower::pending_responses() const {
  std::size_t n = 0;
  for (const auto& feed : feeds_) {
    n += feed->pending();
  }
  return n;
}

void ArchiveWaker::Notify() {
  {
    const std::lock_guard lock(mutex_);
    notified_ = true;
  }
  changed_.notify_all();
}

bool ArchiveWaker::Wait(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  const bool notified = changed_.wait_for(lock, timeout, [&] { return notified_; });
  notified_ = false;
  return notified;
}

}  // namespace frota::source
