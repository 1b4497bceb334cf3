#include "frota/sim/writer_pool.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "frota/base/file.h"

namespace frota::sim {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kQueueDepth = 4;

// Rewrites the envelope of `body` with an earlier ingest time (the only field changed).
base::Status Backdate(const fs::path& body, base::Timestamp received) {
  const fs::path meta = body.string() + ".meta.json";
  FROTA_ASSIGN_OR_RETURN(const auto text, base::ReadFile(meta));
  nlohmann::ordered_json envelope;
  try {
    envelope = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return base::Internal("{}: {}", meta.string(), e.what());
  }
  envelope["ingest_time"] = base::FormatIso8601(received);
  return base::WriteFileAtomic(meta, envelope.dump() + "\n");
}

}  // namespace

base::Result<std::unique_ptr<WriterPool>> WriterPool::Open(const fs::path& root,
                                                           const source::FeedInfo& info,
                                                           const std::optional<fs::path>& sppo_root,
                                                           const source::FeedInfo& sppo_info,
                                                           std::int32_t count, const Fleet& fleet,
                                                           const DayPlan& plan) {
  std::unique_ptr<WriterPool> pool(new WriterPool());
  for (std::int32_t i = 0; i < std::max(count, 1); ++i) {
    auto lane = std::make_unique<Lane>();
    lane->encoder = std::make_unique<FeedEncoder>(fleet, plan);
    FROTA_ASSIGN_OR_RETURN(lane->writer, source::BronzeWriter::Open(root, info));
    if (sppo_root) {
      FROTA_ASSIGN_OR_RETURN(lane->sppo_writer, source::BronzeWriter::Open(*sppo_root, sppo_info));
    }
    pool->lanes_.push_back(std::move(lane));
  }
  for (auto& lane : pool->lanes_) {
    Lane* raw = lane.get();
    raw->thread = std::thread([pool_ptr = pool.get(), raw] { pool_ptr->Run(*raw); });
  }
  return pool;
}

WriterPool::~WriterPool() { (void)Finish(); }

base::Status WriterPool::Submit(std::size_t index, WriteJob job) {
  Lane& lane = *lanes_[index % lanes_.size()];
  std::unique_lock lock(lane.mutex);
  lane.cv.wait(lock, [&] { return lane.jobs.size() < kQueueDepth || !lane.status.ok(); });
  if (!lane.status.ok()) {
    return lane.status;
  }
  lane.jobs.push_back(std::move(job));
  lane.cv.notify_all();
  return base::Status::Ok();
}

base::Status WriterPool::Finish() {
  base::Status first;
  for (auto& lane : lanes_) {
    {
      std::lock_guard lock(lane->mutex);
      lane->done = true;
    }
    lane->cv.notify_all();
    if (lane->thread.joinable()) {
      lane->thread.join();
    }
    if (first.ok() && !lane->status.ok()) {
      first = lane->status;
    }
  }
  return first;
}

std::pair<std::int64_t, std::int64_t> WriterPool::bytes() const {
  std::pair<std::int64_t, std::int64_t> total{0, 0};
  for (const auto& lane : lanes_) {
    total.first += lane->bytes;
    total.second += lane->sppo_bytes;
  }
  return total;
}

void WriterPool::Run(Lane& lane) {
  for (;;) {
    WriteJob job;
    {
      std::unique_lock lock(lane.mutex);
      lane.cv.wait(lock, [&] { return !lane.jobs.empty() || lane.done; });
      if (lane.jobs.empty()) {
        return;
      }
      job = std::move(lane.jobs.front());
      lane.jobs.pop_front();
      lane.cv.notify_all();
    }
    base::Status status = Write(lane, job);
    if (!status.ok()) {
      std::lock_guard lock(lane.mutex);
      lane.status = status;
      lane.jobs.clear();
      lane.cv.notify_all();
      return;
    }
  }
}

base::Status WriterPool::Write(Lane& lane, const WriteJob& job) {
  const std::string body = lane.encoder->GtfsRt(job.records, job.header_time_s);
  lane.bytes += static_cast<std::int64_t>(body.size());
  FROTA_ASSIGN_OR_RETURN(const auto path, lane.writer->Write(job.envelope, body));
  if (job.received) {
    FROTA_RETURN_IF_ERROR(Backdate(path, *job.received));
  }
  if (lane.sppo_writer) {
    auto envelope = job.envelope;
    envelope.headers = {{"content-type", "application/json"}};
    const std::string sppo_body = lane.encoder->RioSppo(job.records, job.server_ms);
    lane.sppo_bytes += static_cast<std::int64_t>(sppo_body.size());
    FROTA_ASSIGN_OR_RETURN(const auto sppo_path, lane.sppo_writer->Write(envelope, sppo_body));
    if (job.received) {
      FROTA_RETURN_IF_ERROR(Backdate(sppo_path, *job.received));
    }
  }
  return base::Status::Ok();
}

}  // namespace frota::sim
