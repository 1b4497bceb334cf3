#include "frota/source/input.h"

#include <algorithm>
#include <map>

#include "frota/source/bronze_archive.h"

namespace frota::source {

namespace fs = std::filesystem;

base::Result<InputSpec> ParseInputSpec(std::string_view text) {
  InputSpec spec;
  const auto colon = text.find(':');
  if (colon != std::string_view::npos && colon > 0) {
    const auto prefix = text.substr(0, colon);
    if (prefix == "archive") {
      spec.archive = true;
      spec.path = std::string(text.substr(colon + 1));
      return spec;
    }
    if (const auto format = codec::ParseFormat(prefix)) {
      spec.format = format;
      spec.path = std::string(text.substr(colon + 1));
      return spec;
    }
    // Not a known prefix: a path that contains a colon.
  }
  if (text.empty()) {
    return base::InvalidInput("empty input");
  }
  spec.path = std::string(text);
  return spec;
}

namespace {

bool LooksLikeResponseFile(const fs::path& path) {
  const auto ext = path.extension().string();
  return ext == ".pb" || ext == ".json" || ext == ".bin" || ext == ".gz" || ext == ".csv";
}

}  // namespace

base::Result<std::vector<PartitionInput>> ExpandInputs(const std::vector<InputSpec>& inputs,
                                                       const std::string& feed_id) {
  std::map<std::string, PartitionInput> by_name;
  for (const auto& spec : inputs) {
    std::error_code ec;
    const auto status = fs::status(spec.path, ec);
    if (ec || !fs::exists(status)) {
      return base::NotFound("{}: no such file or folder", spec.path.string());
    }
    PartitionInput partition;
    partition.name = spec.path.lexically_normal().string();
    partition.feed_id = feed_id;
    if (spec.archive) {
      FROTA_ASSIGN_OR_RETURN(const auto feeds, ListArchive(spec.path));
      for (const auto& feed : feeds) {
        PartitionInput archived;
        archived.name = feed.dir.lexically_normal().string();
        archived.format = feed.info.format;
        archived.feed_id = feed_id.empty() ? feed.info.feed_id : feed_id;
        archived.mode = feed.info.mode;
        archived.time_zone = feed.info.time_zone;
        archived.archived = true;
        archived.first_offset = feed.first_offset;
        for (const auto& file : feed.files) {
          archived.files.push_back(file.body);
          archived.ingest_times.push_back(file.ingest_time);
          archived.packed.push_back(file.packed);
          archived.records.push_back(file.records);
        }
        if (!archived.files.empty()) {
          by_name[archived.name] = std::move(archived);
        }
      }
      continue;
    }
    if (fs::is_directory(status)) {
      for (const auto& entry : fs::directory_iterator(spec.path)) {
        if (entry.is_regular_file() && LooksLikeResponseFile(entry.path())) {
          partition.files.push_back(entry.path());
        }
      }
      if (partition.files.empty()) {
        return base::InvalidInput("{}: folder holds no feed files (.pb, .json, .csv, .gz)",
                                  spec.path.string());
      }
      std::sort(partition.files.begin(), partition.files.end());
    } else {
      partition.files.push_back(spec.path);
    }
    if (spec.format) {
      partition.format = *spec.format;
    } else {
      FROTA_ASSIGN_OR_RETURN(partition.format, codec::DetectFileFormat(partition.files.front()));
    }
    if (partition.files.size() > 1 && partition.format == codec::Format::kRioArchiveCsv) {
      // Archive CSVs are large files of their own: each is its own partition.
      for (const auto& file : partition.files) {
        PartitionInput one = partition;
        one.name = file.lexically_normal().string();
        one.files = {file};
        by_name[one.name] = one;
      }
      continue;
    }
    by_name[partition.name] = std::move(partition);
  }
  std::vector<PartitionInput> out;
  out.reserve(by_name.size());
  for (auto& [name, partition] : by_name) {
    out.push_back(std::move(partition));
  }
  return out;
}

}  // namespace frota::source
