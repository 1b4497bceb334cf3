#include "frota/source/poll_journal.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "frota/source/bronze_archive.h"

namespace frota::source {

namespace fs = std::filesystem;

namespace {

std::string DateOf(base::Timestamp t) {
  const auto day = std::chrono::floor<std::chrono::days>(t);
  return base::FormatDate(base::LocalDate(day.time_since_epoch()));
}

std::vector<std::string> JournalFiles(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (it->is_regular_file(ec) && name.rfind("date=", 0) == 0 && name.ends_with(".jsonl")) {
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

std::string PollLine(const model::PollRow& poll) {
  nlohmann::ordered_json j;
  j["feed_id"] = poll.feed_id;
  j["polled_at"] = base::FormatIso8601(poll.polled_at);
  j["attempt"] = poll.attempt;
  j["http_status"] = poll.http_status;
  j["failure"] = poll.failure;
  j["bytes"] = poll.bytes;
  j["duration_ms"] = poll.duration_ms;
  j["repeat"] = poll.repeat;
  j["records"] = poll.records ? nlohmann::ordered_json(*poll.records) : nlohmann::ordered_json();
  j["body"] = poll.body;
  j["run_id"] = poll.run_id;
  return j.dump();
}

base::Result<model::PollRow> ParsePollLine(std::string_view line) {
  try {
    const auto j = nlohmann::json::parse(line);
    model::PollRow poll;
    poll.feed_id = j.at("feed_id").get<std::string>();
    const auto at = base::ParseIso8601(j.at("polled_at").get<std::string>());
    if (!at) {
      return base::InvalidInput("bad polled_at");
    }
    poll.polled_at = *at;
    poll.attempt = j.at("attempt").get<std::int32_t>();
    poll.http_status = j.at("http_status").get<std::int32_t>();
    poll.failure = j.at("failure").get<std::string>();
    poll.bytes = j.at("bytes").get<std::int64_t>();
    poll.duration_ms = j.at("duration_ms").get<double>();
    poll.repeat = j.at("repeat").get<bool>();
    if (!j.at("records").is_null()) {
      poll.records = j.at("records").get<std::int64_t>();
    }
    poll.body = j.at("body").get<std::string>();
    poll.run_id = j.at("run_id").get<std::string>();
    return poll;
  } catch (const nlohmann::json::exception& e) {
    return base::InvalidInput("{}", e.what());
  }
}

// ---- writer ------------------------------------------------------------------------------

base::Result<std::unique_ptr<PollJournalWriter>> PollJournalWriter::Open(
    const fs::path& root, const std::string& feed_dir) {
  std::unique_ptr<PollJournalWriter> writer(new PollJournalWriter());
  writer->dir_ = root / kPollJournalFolder / feed_dir;
  std::error_code ec;
  fs::create_directories(writer->dir_, ec);
  if (ec) {
    return base::IoError("{}: cannot create: {}", writer->dir_.string(), ec.message());
  }
  // A crash in the middle of a line leaves a torn tail: cut it, so the next line starts
  // on a line of its own. Only the newest file can have one.
  const auto files = JournalFiles(writer->dir_);
  if (!files.empty()) {
    writer->newest_ = files.back().substr(5, 10);  // date=YYYY-MM-DD.jsonl
    const fs::path last = writer->dir_ / files.back();
    const auto size = fs::file_size(last, ec);
    if (!ec && size > 0) {
      std::ifstream in(last, std::ios::binary);
      std::string bytes(size, '\0');
      in.read(bytes.data(), static_cast<std::streamsize>(size));
      const auto keep = bytes.rfind('\n') == std::string::npos ? 0 : bytes.rfind('\n') + 1;
      if (keep < size) {
        spdlog::warn("poll journal torn line cut file={} bytes={}", last.string(), size - keep);
        fs::resize_file(last, keep, ec);
        if (ec) {
          return base::IoError("{}: cannot cut its torn last line: {}", last.string(),
                               ec.message());
        }
      }
    }
  }
  return writer;
}

PollJournalWriter::~PollJournalWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

base::Status PollJournalWriter::Append(const model::PollRow& poll) {
  // Never an older file than the newest one (a clock stepping back over midnight):
  // offsets count lines across the files in name order, so lines only ever go last.
  const std::string date = std::max(DateOf(poll.polled_at), newest_);
  newest_ = date;
  if (fd_ < 0 || date != date_) {
    if (fd_ >= 0) {
      ::close(fd_);
      fd_ = -1;
    }
    const fs::path path = dir_ / fmt::format("date={}.jsonl", date);
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      return base::IoError("{}: cannot open: {}", path.string(), std::strerror(errno));
    }
    date_ = date;
  }
  std::string line = PollLine(poll);
  line.push_back('\n');
  const off_t before = ::lseek(fd_, 0, SEEK_END);
  std::size_t done = 0;
  while (done < line.size()) {
    const auto n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      const int error = errno;
      if (before >= 0 && done > 0) {
        (void)::ftruncate(fd_, before);  // no fragment for the next line to glue onto
      }
      return base::IoError("{}/date={}.jsonl: write failed: {}", dir_.string(), date_,
                           std::strerror(error));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fdatasync(fd_) != 0) {
    return base::IoError("{}/date={}.jsonl: fdatasync failed: {}", dir_.string(), date_,
                         std::strerror(errno));
  }
  return base::Status::Ok();
}

// ---- reader ------------------------------------------------------------------------------

struct PollJournalReader::Journal {
  fs::path dir;
  base::PartitionId id;
  std::int64_t skip_to = 0;      // lines before it were committed by an earlier run
  std::int64_t next_offset = 0;  // line number of the next complete line
  std::string file;              // the file being read
  std::uint64_t position = 0;    // bytes of `file` consumed (complete lines)
  std::string removed_through;   // files up to it were removed by retention
};

PollJournalReader::PollJournalReader(fs::path root,
                                     const std::vector<engine::SourceProgress>& resume)
    : root_(std::move(root)),
      prefix_((root_ / kPollJournalFolder).lexically_normal().string() + "/") {
  for (const auto& p : resume) {
    if (Owns(p)) {
      resume_.push_back(p);
    }
  }
}

PollJournalReader::~PollJournalReader() = default;

bool PollJournalReader::Owns(const engine::SourceProgress& progress) const {
  return progress.source.rfind(prefix_, 0) == 0;
}

base::Status PollJournalReader::Read(std::vector<JournalPoll>& out) {
  const fs::path folder = root_ / kPollJournalFolder;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    return base::Status::Ok();
  }
  std::vector<std::string> feeds;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) {
      feeds.push_back(it->path().filename().string());
    }
  }
  std::sort(feeds.begin(), feeds.end());
  for (const auto& feed : feeds) {
    const std::string name = (folder / feed).lexically_normal().string();
    if (journals_.count(name) == 0) {
      // Lines of files retention removed keep their offsets' places.
      FROTA_ASSIGN_OR_RETURN(const auto removed, ReadRemovedPrefix(folder / feed));
      auto& journal = journals_[name];
      journal = std::make_unique<Journal>();
      journal->dir = folder / feed;
      journal->next_offset = removed.records;
      journal->removed_through = removed.through;
      const auto it = std::find_if(resume_.begin(), resume_.end(),
                                   [&](const auto& p) { return p.source == name; });
      if (it != resume_.end()) {
        journal->id = it->partition;
        journal->skip_to = it->next_offset.value();
      } else {
        std::int32_t next = kPollPartitionBase;
        for (const auto& p : resume_) {
          next = std::max(next, p.partition.value() + 1);
        }
        for (const auto& [other, j] : journals_) {
          if (j && j.get() != journal.get()) {
            next = std::max(next, j->id.value() + 1);
          }
        }
        journal->id = base::PartitionId(next);
      }
    }
    auto& journal = journals_[name];
    for (const auto& file : JournalFiles(journal->dir)) {
      if (file < journal->file ||
          (!journal->removed_through.empty() && file <= journal->removed_through)) {
        continue;
      }
      if (file != journal->file) {
        journal->file = file;
        journal->position = 0;
      }
      const fs::path path = journal->dir / file;
      const auto size = fs::file_size(path, ec);
      if (ec || size <= journal->position) {
        continue;
      }
      std::ifstream in(path, std::ios::binary);
      in.seekg(static_cast<std::streamoff>(journal->position));
      std::string bytes(size - journal->position, '\0');
      in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      bytes.resize(static_cast<std::size_t>(in.gcount()));
      std::size_t start = 0;
      for (auto nl = bytes.find('\n'); nl != std::string::npos; nl = bytes.find('\n', start)) {
        const std::string_view line(bytes.data() + start, nl - start);
        const std::int64_t offset = journal->next_offset++;
        start = nl + 1;
        if (offset < journal->skip_to) {
          continue;
        }
        auto poll = ParsePollLine(line);
        if (!poll.ok()) {
          ++bad_lines_;
          spdlog::warn("poll journal line skipped file={} line={} error={}", path.string(), offset,
                       poll.error().message());
          continue;
        }
        out.push_back({std::move(*poll), name, offset});
      }
      journal->position += start;
    }
  }
  return base::Status::Ok();
}

std::vector<engine::SourceProgress> PollJournalReader::Progress() const {
  std::vector<engine::SourceProgress> out;
  for (const auto& [name, journal] : journals_) {
    out.push_back(
        {name, journal->id, base::Offset(std::max(journal->next_offset, journal->skip_to))});
  }
  for (const auto& p : resume_) {
    if (journals_.count(p.source) == 0) {
      out.push_back(p);
    }
  }
  return out;
}

}  // namespace frota::source
