#include "frota/source/bronze_archive.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "frota/base/file.h"
#include "frota/base/sha256.h"
#include "frota/source/poll_journal.h"

namespace frota::source {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMetaSuffix = ".meta.json";

bool IsTemporary(std::string_view name) { return name.find(".tmp-") != std::string_view::npos; }

}  // namespace

std::string_view BodyExtension(codec::Format format) {
  switch (format) {
    case codec::Format::kGtfsRt:
      return "pb";
    case codec::Format::kRioArchiveCsv:
      return "csv";
    default:
      return "json";
  }
}

base::Result<std::unique_ptr<BronzeWriter>> BronzeWriter::Open(const fs::path& root,
                                                               FeedInfo info) {
  if (info.feed_id.empty() || info.feed_id.find('/') != std::string::npos || info.feed_id == "." ||
      info.feed_id == ".." || info.feed_id == kPollJournalFolder) {
    return base::InvalidInput("bad feed id '{}' for an archive folder", info.feed_id);
  }
  std::unique_ptr<BronzeWriter> writer(new BronzeWriter());
  writer->feed_dir_ = root / info.feed_id;
  std::error_code ec;
  fs::create_directories(writer->feed_dir_, ec);
  if (ec) {
    return base::IoError("{}: cannot create: {}", writer->feed_dir_.string(), ec.message());
  }
  nlohmann::ordered_json j;
  j["feed_id"] = info.feed_id;
  j["format"] = std::string(codec::FormatName(info.format));
  j["mode"] = info.mode ? std::string(model::ModeName(*info.mode)) : std::string();
  j["time_zone"] = info.time_zone;
  j["url"] = info.url;
  FROTA_RETURN_IF_ERROR(base::WriteFileAtomic(writer->feed_dir_ / "feed.json", j.dump(2) + "\n"));
  // Continue the sequence after what an earlier run left, loose or packed.
  const auto take = [&](std::string_view name) {
    if (name.size() <= 21 || name[13] != '-') {
      return;
    }
    try {
      writer->sequence_ =
          std::max<std::int64_t>(writer->sequence_, std::stoll(std::string(name.substr(14, 6))));
      const auto after = base::FromUnixMillis(std::stoll(std::string(name.substr(0, 13))) + 1);
      if (!writer->last_ingest_time_ || *writer->last_ingest_time_ < after) {
        writer->last_ingest_time_ = after;
      }
    } catch (const std::exception&) {
      // not one of ours
    }
  };
  for (const auto& entry : fs::recursive_directory_iterator(writer->feed_dir_, ec)) {
    const auto name = entry.path().filename().string();
    if (IsTemporary(name)) {
      continue;
    }
    if (name.ends_with(kPackSuffix)) {
      FROTA_ASSIGN_OR_RETURN(const auto pack, PackReader::Open(entry.path()));
      for (const auto& e : pack->entries()) {
        take(e.name);
      }
    } else {
      take(name);
    }
  }
  writer->info_ = std::move(info);
  return writer;
}

base::Result<fs::path> BronzeWriter::Write(const ResponseEnvelope& envelope,
                                           std::string_view body) {
  const auto day = std::chrono::floor<std::chrono::days>(envelope.ingest_time);
  const auto hour = std::chrono::floor<std::chrono::hours>(envelope.ingest_time - day).count();
  const fs::path dir =
      feed_dir_ /
      fmt::format("date={}", base::FormatDate(base::LocalDate(day.time_since_epoch()))) /
      fmt::format("hour={:02d}", hour);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return base::IoError("{}: cannot create: {}", dir.string(), ec.message());
  }
  const auto millis = std::chrono::floor<std::chrono::milliseconds>(envelope.ingest_time)
                          .time_since_epoch()
                          .count();
  const std::string name = fmt::format("{:013d}-{:06d}.{}", millis, ++sequence_ % 1'000'000,
                                       BodyExtension(info_.format));
  nlohmann::ordered_json meta;
  meta["ingest_time"] = base::FormatIso8601(envelope.ingest_time);
  meta["http_status"] = envelope.http_status;
  nlohmann::ordered_json headers = nlohmann::ordered_json::object();
  for (const auto& [key, value] : envelope.headers) {
    headers[key] = value;
  }
  meta["headers"] = headers;
  meta["bytes"] = body.size();
  meta["sha256"] = base::Sha256Hex(body);
  meta["repeat"] = envelope.repeat;
  meta["duration_ms"] = envelope.duration_ms;
  meta["source"] = info_.url;
  meta["run_id"] =
      envelope.run_id.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(envelope.run_id);
  meta["collection_number"] = envelope.collection_number > 0
                                  ? nlohmann::ordered_json(envelope.collection_number)
                                  : nlohmann::ordered_json();
  FROTA_RETURN_IF_ERROR(
      base::WriteFileAtomic(dir / (name + std::string(kMetaSuffix)), meta.dump() + "\n"));
  FROTA_RETURN_IF_ERROR(base::WriteFileAtomic(dir / name, body));
  return dir / name;
}

base::Result<FeedInfo> ReadFeedInfo(const fs::path& feed_dir) {
  FeedInfo info;
  const auto meta_path = feed_dir / "feed.json";
  FROTA_ASSIGN_OR_RETURN(const auto text, base::ReadFile(meta_path));
  try {
    const auto j = nlohmann::json::parse(text);
    info.feed_id = j.at("feed_id").get<std::string>();
    const auto format = codec::ParseFormat(j.at("format").get<std::string>());
    if (!format) {
      return base::InvalidInput("{}: unknown format '{}'", meta_path.string(),
                                j.at("format").get<std::string>());
    }
    info.format = *format;
    const auto mode = j.value("mode", std::string());
    if (!mode.empty()) {
      info.mode = model::ParseMode(mode);
    }
    info.time_zone = j.value("time_zone", std::string());
    info.url = j.value("url", std::string());
  } catch (const nlohmann::json::exception& e) {
    return base::InvalidInput("{}: {}", meta_path.string(), e.what());
  }
  return info;
}

base::Result<codec::ResponseInfo> DecodeArchivedResponse(codec::Format format,
                                                         std::string_view body,
                                                         const codec::DecodeOptions& options,
                                                         codec::DecodedBatch& out) {
  auto decoded = codec::DecodeResponse(format, body, options, out);
  if (decoded.ok()) {
    return decoded;
  }
  model::Rejection rejection;
  rejection.reason = model::RejectReason::kBadPayload;
  rejection.feed_id =
      options.feed_id.empty() ? std::string(codec::FormatName(format)) : options.feed_id;
  rejection.ingest_time = options.ingest_time;
  rejection.source = {options.source, options.first_offset};
  rejection.detail = fmt::format("bytes={} error={}", body.size(), decoded.error().message());
  out.rejections.push_back(std::move(rejection));
  return decoded.error();
}

namespace {

std::vector<std::string> SortedNames(const fs::path& dir, bool directories) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) == directories) {
      names.push_back(it->path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The ingest time and repeat flag of a loose response: from its envelope, or (a body
// copied in by hand, without one) from its name.
base::Status ReadEnvelope(const fs::path& body, ArchivedFile& file) {
  const auto envelope_path = fs::path(body.string() + std::string(kMetaSuffix));
  std::error_code ec;
  if (!fs::exists(envelope_path, ec)) {
    try {
      file.ingest_time = base::FromUnixMillis(std::stoll(body.filename().string().substr(0, 13)));
    } catch (const std::exception&) {
      return base::InvalidInput("{}: no envelope and no ingest time in the name", body.string());
    }
    return base::Status::Ok();
  }
  FROTA_ASSIGN_OR_RETURN(const auto envelope_text, base::ReadFile(envelope_path));
  try {
    const auto j = nlohmann::json::parse(envelope_text);
    const auto ingest = base::ParseIso8601(j.at("ingest_time").get<std::string>());
    if (!ingest) {
      return base::InvalidInput("{}: bad ingest_time", envelope_path.string());
    }
    file.ingest_time = *ingest;
    file.repeat = j.value("repeat", false);
  } catch (const nlohmann::json::exception& e) {
    return base::InvalidInput("{}: {}", envelope_path.string(), e.what());
  }
  return base::Status::Ok();
}

}  // namespace

base::Result<RemovedPrefix> ReadRemovedPrefix(const fs::path& dir) {
  const fs::path path = dir / kRetentionLedger;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return RemovedPrefix{};
  }
  FROTA_ASSIGN_OR_RETURN(const auto text, base::ReadFile(path));
  RemovedPrefix removed;
  try {
    const auto j = nlohmann::json::parse(text);
    removed.through = j.at("removed_through").get<std::string>();
    removed.records = j.at("records").get<std::int64_t>();
    removed.responses = j.at("responses").get<std::int64_t>();
    removed.bytes = j.at("bytes").get<std::int64_t>();
  } catch (const nlohmann::json::exception& e) {
    return base::InvalidInput("{}: {}", path.string(), e.what());
  }
  return removed;
}

base::Result<std::vector<std::string>> ListHours(const fs::path& feed_dir, std::string_view from) {
  std::vector<std::string> hours;
  const std::string_view from_date = from.substr(0, from.find('/'));
  for (const auto& date : SortedNames(feed_dir, true)) {
    if (!date.starts_with("date=") || date < from_date) {
      continue;
    }
    for (int h = 0; h < 24; ++h) {
      std::string hour = fmt::format("{}/hour={:02d}", date, h);
      if (hour < from) {
        continue;
      }
      std::error_code ec;
      const fs::path loose = feed_dir / hour;
      if (fs::is_directory(loose, ec) ||
          fs::exists(loose.string() + std::string(kPackSuffix), ec)) {
        hours.push_back(std::move(hour));
      }
    }
  }
  return hours;
}

base::Result<std::vector<ArchivedFile>> ListHour(const fs::path& feed_dir, const std::string& hour,
                                                 std::string_view after) {
  const fs::path dir = feed_dir / hour;
  std::vector<std::string> loose;
  for (auto& name : SortedNames(dir, false)) {
    if (name > after && !IsTemporary(name) && !name.ends_with(kMetaSuffix)) {
      loose.push_back(std::move(name));
    }
  }
  std::vector<ArchivedFile> files;
  const fs::path pack_path = dir.string() + std::string(kPackSuffix);
  std::error_code ec;
  std::unique_ptr<PackReader> pack;
  if (fs::exists(pack_path, ec)) {
    FROTA_ASSIGN_OR_RETURN(pack, PackReader::Open(pack_path));
    for (const auto& e : pack->entries()) {
      if (e.name > after) {
        files.push_back({dir / e.name, e.ingest_time, e.repeat, true, e.records});
      }
    }
  }
  const std::size_t packed = files.size();
  for (const auto& name : loose) {
    if (pack && pack->Find(name)) {
      continue;
    }
    ArchivedFile file;
    file.body = dir / name;
    FROTA_RETURN_IF_ERROR(ReadEnvelope(file.body, file));
    files.push_back(std::move(file));
  }
  if (packed > 0 && packed < files.size()) {
    std::sort(files.begin(), files.end(),
              [](const ArchivedFile& a, const ArchivedFile& b) { return a.body < b.body; });
  }
  return files;
}

std::vector<fs::path> FeedFolders(const fs::path& root) {
  std::vector<fs::path> dirs;
  for (const auto& name : SortedNames(root, true)) {
    std::error_code ec;
    if (fs::exists(root / name / "feed.json", ec)) {
      dirs.push_back(root / name);
    }
  }
  return dirs;
}

base::Result<std::vector<ArchivedFeed>> ListArchive(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return base::NotFound("{}: not an archive folder", root.string());
  }
  std::vector<ArchivedFeed> feeds;
  const auto feed_dirs = FeedFolders(root);
  if (feed_dirs.empty()) {
    return base::InvalidInput("{}: no feed folders with a feed.json: not a bronze archive",
                              root.string());
  }
  for (const auto& dir : feed_dirs) {
    ArchivedFeed feed;
    feed.dir = dir;
    FROTA_ASSIGN_OR_RETURN(feed.info, ReadFeedInfo(dir));
    FROTA_ASSIGN_OR_RETURN(const auto removed, ReadRemovedPrefix(dir));
    feed.first_offset = removed.records;
    FROTA_ASSIGN_OR_RETURN(const auto hours, ListHours(dir));
    for (const auto& hour : hours) {
      if (!removed.through.empty() && hour <= removed.through) {
        continue;  // removed by a retention that a crash interrupted: already counted
      }
      FROTA_ASSIGN_OR_RETURN(auto files, ListHour(dir, hour));
      std::move(files.begin(), files.end(), std::back_inserter(feed.files));
    }
    feeds.push_back(std::move(feed));
  }
  return feeds;
}

ResponseBodies::ResponseBodies() = default;
ResponseBodies::~ResponseBodies() = default;

base::Result<std::string_view> ResponseBodies::Packed(const fs::path& body) {
  const fs::path pack_path = PackOf(body);
  if (!pack_ || pack_->name() != pack_path.string()) {
    pack_.reset();
    FROTA_ASSIGN_OR_RETURN(pack_, PackReader::Open(pack_path));
  }
  const auto entry = pack_->Find(body.filename().string());
  if (!entry) {
    return base::NotFound("{}: not in {}", body.string(), pack_path.string());
  }
  FROTA_ASSIGN_OR_RETURN(const auto member, pack_->Read(*entry));
  return member.body;
}

base::Result<std::string_view> ResponseBodies::Body(const fs::path& body, bool packed) {
  if (packed) {
    return Packed(body);
  }
  if (const auto loaded = loose_.Load(body); !loaded.ok()) {
    std::error_code ec;
    if (fs::exists(body, ec) || !fs::exists(PackOf(body), ec)) {
      return loaded.error();
    }
    return Packed(body);  // packed since it was listed
  }
  return loose_.bytes();
}

}  // namespace frota::source
