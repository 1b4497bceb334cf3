#include "frota/source/replay_source.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>

#include "frota/base/file.h"
#include "frota/engine/keyed_processor.h"
#include "frota/source/bronze_archive.h"
#include "frota/source/poll_journal.h"

namespace frota::source {

// One partition's reader: decodes a chunk at a time and hands its records out in offset
// order (positions and rejections come in separate vectors: they are merged here, each
// record moved once, into the caller's batch), dropping records before `skip_to_`. Given
// an interner (Intern), it interns each chunk as it decodes it (a Rio archive CSV row by
// row, straight from the file's text) and hands out InternedRecords.
class ReplaySource::Partition {
  // f(the chunk being handed out): the decoded one, or the interned one (defined first:
  // the members below deduce their types from it).
  template <typename F>
  decltype(auto) OnChunk(F&& f) const {
    return interner_ != nullptr ? f(interned_) : f(batch_);
  }
  template <typename Chunk>
  [[nodiscard]] bool NextIsPosition(const Chunk& chunk) const {
    return r_ >= chunk.rejections.size() ||
           (p_ < chunk.positions.size() &&
            chunk.positions[p_].source.offset < chunk.rejections[r_].source.offset);
  }

 public:
  Partition(const PartitionInput& input, base::PartitionId id, model::SourceCatalog* catalog,
            const ReplayOptions& options, std::int64_t skip_to)
      : input_(input),
        id_(id),
        catalog_(catalog),
        options_(options),
        skip_to_(skip_to),
        next_offset_(std::max(skip_to, input.first_offset)),
        decoded_(input.first_offset) {}

  // Chunks decoded from now on are interned by `interner` (before the first Fill).
  void Intern(model::RecordInterner* interner) { interner_ = interner; }

  // Ensures a record is ready unless the partition is exhausted.
  base::Status Fill() {
    while (true) {
      while (!Drained() && NextOffset() < skip_to_) {
        Skip();
      }
      if (!Drained()) {
        return base::Status::Ok();
      }
      if (exhausted_) {
        // Done for good: give back the chunk's capacity (a day's hundred partitions,
        // 2 MB each, were most of a replay's memory).
        batch_ = codec::DecodedBatch();
        interned_ = codec::InternedBatch();
        return base::Status::Ok();
      }
      FROTA_RETURN_IF_ERROR(DecodeChunk());
    }
  }

  [[nodiscard]] bool empty() const { return Drained(); }
  // The ingest time that orders the next record in the merge.
  [[nodiscard]] base::Timestamp front_time() const {
    return OnChunk([this](const auto& chunk) {
      return NextIsPosition(chunk) ? chunk.positions[p_].ingest_time
                                   : chunk.rejections[r_].ingest_time.value_or(last_ingest_);
    });
  }
  // The next record, built in `out` from its fields: one move of the decoded record
  // (making it empty first and then assigning it zeroed it and moved it twice).
  void PopInto(std::vector<SourceRecord>& out) {
    const base::Timestamp order_time = front_time();
    const auto push = [&](auto&& decoded) {
      const std::int64_t offset = decoded.source.offset;
      out.push_back(
          SourceRecord{id_, offset, order_time, std::forward<decltype(decoded)>(decoded)});
      next_offset_ = offset + 1;
    };
    if (NextIsPosition(batch_)) {
      model::Position& position = batch_.positions[p_++];
      last_ingest_ = position.ingest_time;
      push(std::move(position));
    } else {
      push(std::move(batch_.rejections[r_++]));
    }
  }
  // The next record of an interned chunk, with its key's hash.
  void PopInto(std::vector<InternedRecord>& out) {
    const model::KeyTextHashes* keys = nullptr;
    std::int64_t offset = 0;
    if (NextIsPosition(interned_)) {
      const model::PositionRecord& position = interned_.positions[p_];
      keys = &interned_.position_keys[p_++];
      last_ingest_ = position.ingest_time;
      offset = position.source.offset;
      out.push_back(InternedRecord{id_, offset, 0, position});
    } else {
      keys = &interned_.rejection_keys[r_];
      model::RejectionRecord& rejection = interned_.rejections[r_++];
      offset = rejection.source.offset;
      out.push_back(InternedRecord{id_, offset, 0, std::move(rejection)});
    }
    out.back().key_hash = engine::KeyRef::CombineHashes(keys->feed, keys->vehicle);
    next_offset_ = offset + 1;
  }

  [[nodiscard]] base::PartitionId id() const { return id_; }
  [[nodiscard]] std::int64_t next_offset() const { return next_offset_; }
  [[nodiscard]] std::int64_t skipped() const { return skipped_; }
  [[nodiscard]] std::int64_t bytes() const { return bytes_; }

 private:
  [[nodiscard]] bool Drained() const {
    return OnChunk([this](const auto& chunk) {
      return p_ >= chunk.positions.size() && r_ >= chunk.rejections.size();
    });
  }
  [[nodiscard]] std::int64_t NextOffset() const {
    return OnChunk([this](const auto& chunk) {
      return NextIsPosition(chunk) ? chunk.positions[p_].source.offset
                                   : chunk.rejections[r_].source.offset;
    });
  }
  void Skip() {
    const bool position = OnChunk([this](const auto& chunk) {
      if (NextIsPosition(chunk)) {
        last_ingest_ = chunk.positions[p_].ingest_time;
        return true;
      }
      return false;
    });
    ++(position ? p_ : r_);
    ++skipped_;
  }

  codec::DecodeOptions OptionsFor(const std::filesystem::path& file) const {
    codec::DecodeOptions o;
    o.feed_id =
        input_.feed_id.empty() ? std::string(codec::FormatName(input_.format)) : input_.feed_id;
    o.mode = options_.mode ? options_.mode : input_.mode;
    o.source = catalog_->Intern(file.lexically_normal().string());
    o.first_offset = decoded_;
    o.time_zone = input_.time_zone.empty() ? options_.time_zone : input_.time_zone;
    if (file_index_ < input_.ingest_times.size()) {
      o.ingest_time = input_.ingest_times[file_index_];
    }
    return o;
  }

  base::Status DecodeChunk() {
    batch_.clear();
    interned_.clear();
    p_ = 0;
    r_ = 0;
    if (!csv_) {
      SkipCounted();
    }
    if (csv_) {
      // The first chunk of a partition is small: a replay fills every partition before the
      // merge starts, and most of them (a day of 15-minute files) wait hours for their turn.
      const std::size_t chunk =
          chunks_ == 0 ? std::min<std::size_t>(options_.chunk_records, 64) : options_.chunk_records;
      ++chunks_;
      FROTA_ASSIGN_OR_RETURN(const bool more, interner_ != nullptr
                                                  ? csv_->Next(interned_, chunk, *interner_)
                                                  : csv_->Next(batch_, chunk));
      if (!more) {
        csv_.reset();
        ++file_index_;
      }
    } else if (file_index_ >= input_.files.size()) {
      exhausted_ = true;
      return base::Status::Ok();
    } else {
      const auto& file = input_.files[file_index_];
      if (input_.format == codec::Format::kRioArchiveCsv) {
        FROTA_ASSIGN_OR_RETURN(csv_, codec::ArchiveCsvReader::Open(file, OptionsFor(file)));
        std::error_code ec;
        bytes_ += static_cast<std::int64_t>(std::filesystem::file_size(file, ec));
        return base::Status::Ok();
      }
      std::string_view body;
      if (input_.archived) {
        FROTA_ASSIGN_OR_RETURN(body, bodies_.Body(file, file_index_ < input_.packed.size() &&
                                                            input_.packed[file_index_]));
      } else {
        FROTA_RETURN_IF_ERROR(body_.Load(file));
        body = body_.bytes();
      }
      bytes_ += static_cast<std::int64_t>(body.size());
      if (input_.archived) {
        const auto decoded = DecodeArchivedResponse(input_.format, body, OptionsFor(file), batch_);
        if (!decoded.ok()) {
          spdlog::warn("archived response not decodable file={} error={}", file.string(),
                       decoded.error().message());
        }
      } else {
        const auto decoded = codec::DecodeResponse(input_.format, body, OptionsFor(file), batch_);
        if (!decoded.ok()) {
          return decoded.error().WithContext(file.string());
        }
      }
      ++file_index_;
      if (interner_ != nullptr) {
        interned_.Append(std::move(batch_), *interner_);
      }
    }
    decoded_ += static_cast<std::int64_t>(interner_ != nullptr ? interned_.size() : batch_.size());
    return base::Status::Ok();
  }

  // Responses before the committed offset whose pack counted their records are skipped
  // whole, without decompressing or decoding them.
  void SkipCounted() {
    while (file_index_ < input_.records.size() && input_.records[file_index_] >= 0 &&
           decoded_ + input_.records[file_index_] <= skip_to_) {
      decoded_ += input_.records[file_index_];
      skipped_ += input_.records[file_index_];
      last_ingest_ = input_.ingest_times[file_index_];
      ++file_index_;
    }
  }

  const PartitionInput& input_;
  base::PartitionId id_;
  model::SourceCatalog* catalog_;
  ReplayOptions options_;
  model::RecordInterner* interner_ = nullptr;
  std::int64_t skip_to_;
  std::int64_t next_offset_;
  std::int64_t decoded_ = 0;  // records decoded so far (the next record's offset)
  std::int64_t skipped_ = 0;
  std::int64_t bytes_ = 0;
  std::size_t file_index_ = 0;
  base::FileBytes body_;   // the file being decoded (mapped)
  ResponseBodies bodies_;  // an archive's responses, loose or packed
  bool exhausted_ = false;
  base::Timestamp last_ingest_ = base::Timestamp::min();
  std::unique_ptr<codec::ArchiveCsvReader> csv_;
  codec::DecodedBatch batch_;      // without an interner; with one, a non-CSV file's records
  codec::InternedBatch interned_;  // with an interner
  std::size_t chunks_ = 0;         // decoded from CSV files so far
  std::size_t p_ = 0;              // the next position and rejection of the chunk to hand out
  std::size_t r_ = 0;
};

ReplaySource::~ReplaySource() = default;

base::Result<std::unique_ptr<ReplaySource>> ReplaySource::Open(
    std::vector<PartitionInput> partitions, model::SourceCatalog* catalog, ReplayOptions options,
    const std::vector<engine::SourceProgress>& resume) {
  std::unique_ptr<ReplaySource> source(new ReplaySource());
  source->inputs_ = std::move(partitions);
  std::map<std::string, engine::SourceProgress> known;
  std::int32_t next_id = 0;
  for (const auto& progress : resume) {
    known.emplace(progress.source, progress);
    // A live run's poll journals (ids from PollJournalReader::kPollPartitionBase) are not
    // inputs of a replay: they do not push new inputs' ids up.
    if (progress.partition.value() < PollJournalReader::kPollPartitionBase) {
      next_id = std::max(next_id, progress.partition.value() + 1);
    }
  }
  // Intern every file name in sorted order first, so source ids follow names.
  for (const auto& input : source->inputs_) {
    for (const auto& file : input.files) {
      catalog->Intern(file.lexically_normal().string());
    }
  }
  for (const auto& input : source->inputs_) {
    base::PartitionId id(next_id);
    std::int64_t skip_to = 0;
    if (const auto it = known.find(input.name); it != known.end()) {
      id = it->second.partition;
      skip_to = it->second.next_offset.value();
      if (skip_to < input.first_offset) {
        spdlog::warn(
            "records removed by retention before they were committed partition={} "
            "committed={} first_kept={}",
            input.name, skip_to, input.first_offset);
      }
    } else {
      ++next_id;
    }
    source->partitions_.push_back(
        std::make_unique<Partition>(input, id, catalog, options, skip_to));
  }
  return source;
}

base::Result<bool> ReplaySource::Next(std::vector<SourceRecord>& out, std::size_t max_records) {
  if (interner_ != nullptr) {
    return base::Internal("a replay source that interns was read without interning");
  }
  return Merge(out, max_records, [&out](Partition& partition) { partition.PopInto(out); });
}

base::Result<bool> ReplaySource::Next(std::vector<InternedRecord>& out, std::size_t max_records,
                                      model::RecordInterner& interner) {
  if (interner_ == nullptr) {
    if (merging_) {
      return base::Internal("a replay source read without interning cannot intern later");
    }
    interner_ = &interner;
    for (auto& partition : partitions_) {
      partition->Intern(interner_);
    }
  } else if (interner_ != &interner) {
    return base::Internal("a replay source interns with one interner");
  }
  return Merge(out, max_records, [&out](Partition& partition) { partition.PopInto(out); });
}

template <typename Record, typename Pop>
base::Result<bool> ReplaySource::Merge(std::vector<Record>& out, std::size_t max_records, Pop pop) {
  out.clear();
  out.reserve(max_records);  // the batch is handed on, capacity and all
  // The partition with the earliest next record, by (its ingest time, partition id), is
  // `current_`; the others with a record ready wait in a min-heap. A day of 15-minute
  // files is a hundred partitions whose times barely overlap, so the current one keeps
  // its turn for long runs of records, each checked against the heap's top only.
  const auto later = [this](std::size_t a, std::size_t b) {
    const auto ta = partitions_[a]->front_time();
    const auto tb = partitions_[b]->front_time();
    return ta != tb ? ta > tb : partitions_[a]->id() > partitions_[b]->id();
  };
  if (!merging_) {
    for (std::size_t i = 0; i < partitions_.size(); ++i) {
      FROTA_RETURN_IF_ERROR(partitions_[i]->Fill());
      if (!partitions_[i]->empty()) {
        ready_.push_back(i);
      }
    }
    std::make_heap(ready_.begin(), ready_.end(), later);
    merging_ = true;
  }
  while (out.size() < max_records) {
    if (!current_) {
      if (ready_.empty()) {
        break;
      }
      std::pop_heap(ready_.begin(), ready_.end(), later);
      current_ = ready_.back();
      ready_.pop_back();
    }
    Partition& partition = *partitions_[*current_];
    pop(partition);
    FROTA_RETURN_IF_ERROR(partition.Fill());
    if (partition.empty()) {
      current_.reset();
    } else if (!ready_.empty() && later(*current_, ready_.front())) {
      ready_.push_back(*current_);
      std::push_heap(ready_.begin(), ready_.end(), later);
      current_.reset();
    }
  }
  return !out.empty();
}

std::vector<engine::SourceProgress> ReplaySource::Progress() const {
  std::vector<engine::SourceProgress> out;
  for (std::size_t i = 0; i < partitions_.size(); ++i) {
    out.push_back(
        {inputs_[i].name, partitions_[i]->id(), base::Offset(partitions_[i]->next_offset())});
  }
  return out;
}

std::int64_t ReplaySource::skipped_records() const {
  std::int64_t n = 0;
  for (const auto& p : partitions_) {
    n += p->skipped();
  }
  return n;
}

std::int64_t ReplaySource::bytes_read() const {
  std::int64_t n = 0;
  for (const auto& p : partitions_) {
    n += p->bytes();
  }
  return n;
}

template <typename Record>
BasicPrefetchingSource<Record>::BasicPrefetchingSource(std::unique_ptr<ReplaySource> source,
                                                       std::size_t batch_records, Fill fill,
                                                       std::size_t depth)
    : source_(std::move(source)),
      batch_records_(batch_records),
      fill_(std::move(fill)),
      depth_(depth),
      progress_(source_->Progress()) {
  thread_ = std::thread([this] {
    base::NameThisThread("frota-decode");
    Run();
  });
}

template <typename Record>
BasicPrefetchingSource<Record>::~BasicPrefetchingSource() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

template <typename Record>
void BasicPrefetchingSource<Record>::Run() {
  while (true) {
    Batch batch;
    {
      const std::lock_guard lock(mutex_);
      if (!spare_.empty()) {
        batch.records = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    const auto more = fill_(*source_, batch.records, batch_records_);
    if (!more.ok()) {
      batch.error = more.error();
    } else if (!*more) {
      batch.end = true;
    }
    batch.progress = source_->Progress();
    const bool last = batch.end || batch.error.has_value();
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stop_ || ready_.size() < depth_; });
    if (stop_) {
      return;
    }
    ready_.push_back(std::move(batch));
    changed_.notify_all();
    if (last) {
      return;
    }
  }
}

template <typename Record>
base::Result<bool> BasicPrefetchingSource<Record>::Next(std::vector<Record>& out) {
  // The caller is done with the last batch: its vector goes back to the reader, capacity
  // and all. A fresh one per batch (megabytes) was allocated, faulted in page by page
  // and handed back to the system again, a sixth of a replay's page faults.
  out.clear();
  std::unique_lock lock(mutex_);
  if (out.capacity() != 0 && spare_.size() < depth_) {
    spare_.push_back(std::move(out));  // leaves `out` empty
  }
  changed_.wait(lock, [&] { return !ready_.empty(); });
  Batch batch = std::move(ready_.front());
  if (!batch.end && !batch.error) {
    ready_.pop_front();
  }
  changed_.notify_all();
  lock.unlock();
  if (batch.error) {
    return *batch.error;
  }
  if (batch.end) {
    out.clear();
    progress_ = batch.progress;
    return false;
  }
  out = std::move(batch.records);
  progress_ = std::move(batch.progress);
  return true;
}

template class BasicPrefetchingSource<SourceRecord>;
template class BasicPrefetchingSource<InternedRecord>;

PrefetchingSource::PrefetchingSource(std::unique_ptr<ReplaySource> source,
                                     std::size_t batch_records, std::size_t depth)
    : BasicPrefetchingSource(
          std::move(source), batch_records,
          [](ReplaySource& s, std::vector<SourceRecord>& out, std::size_t max) {
            return s.Next(out, max);
          },
          depth) {}

InterningPrefetchingSource::InterningPrefetchingSource(std::unique_ptr<ReplaySource> source,
                                                       std::size_t batch_records,
                                                       model::RecordInterner& interner,
                                                       std::size_t depth)
    : BasicPrefetchingSource(
          std::move(source), batch_records,
          [&interner](ReplaySource& s, std::vector<InternedRecord>& out, std::size_t max) {
            return s.Next(out, max, interner);
          },
          depth) {}

}  // namespace frota::source
