#include <zip.h>

#include <algorithm>
#include <system_error>
#include <utility>
#include <vector>

#include "frota/gtfs/feed_files_internal.h"  // IWYU pragma: associated

namespace frota::gtfs::internal {
namespace {

// Tables whose presence marks a folder as the feed's.
constexpr std::string_view kMarkerTables[] = {"agency", "routes", "trips", "stops"};

// "routes.txt" → ("routes", 0), "routes.csv" → ("routes", 1): the rank prefers .txt.
std::optional<std::pair<std::string, int>> TableOf(std::string_view file_name) {
  if (file_name.empty() || file_name.front() == '.' || file_name.size() <= 4) {
    return std::nullopt;
  }
  const std::string_view extension = file_name.substr(file_name.size() - 4);
  const int rank = extension == ".txt" ? 0 : extension == ".csv" ? 1 : -1;
  if (rank < 0) {
    return std::nullopt;
  }
  return std::pair(std::string(file_name.substr(0, file_name.size() - 4)), rank);
}

using Candidate = FeedFiles::Candidate;

bool HasMarker(const std::vector<Candidate>& candidates, std::string_view folder) {
  return std::any_of(candidates.begin(), candidates.end(), [&](const Candidate& c) {
    return c.folder == folder && std::find(std::begin(kMarkerTables), std::end(kMarkerTables),
                                           c.table) != std::end(kMarkerTables);
  });
}

// Picks the feed's folder among the candidates' folders (see the class comment).
base::Result<std::string> ChooseFolder(const std::vector<Candidate>& candidates,
                                       std::string_view name) {
  if (HasMarker(candidates, "")) {
    return std::string();
  }
  std::vector<std::string> folders;
  for (const Candidate& c : candidates) {
    if (!c.folder.empty() && HasMarker(candidates, c.folder) &&
        std::find(folders.begin(), folders.end(), c.folder) == folders.end()) {
      folders.push_back(c.folder);
    }
  }
  if (folders.empty()) {
    return base::InvalidInput(
        "{}: no GTFS tables found (expected agency, routes, trips and stops as .txt or .csv)",
        name);
  }
  if (folders.size() > 1) {
    return base::InvalidInput("{}: GTFS tables in more than one folder ({} and {})", name,
                              folders[0], folders[1]);
  }
  return folders[0];
}

std::string ZipErrorText(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

}  // namespace

struct FeedFiles::Archive {
  Archive(zip_t* zip_handle, std::shared_ptr<std::string> bytes)
      : zip(zip_handle), owned_bytes(std::move(bytes)) {}
  ~Archive() { zip_discard(zip); }
  Archive(const Archive&) = delete;
  Archive& operator=(const Archive&) = delete;

  zip_t* zip;
  std::shared_ptr<std::string> owned_bytes;  // for archives opened from memory
};

namespace {

class ZipMemberSource final : public ByteSource {
 public:
  ZipMemberSource(std::shared_ptr<FeedFiles::Archive> archive, zip_file_t* file, std::string name)
      : archive_(std::move(archive)), file_(file), name_(std::move(name)) {}
  ~ZipMemberSource() override { zip_fclose(file_); }
  ZipMemberSource(const ZipMemberSource&) = delete;
  ZipMemberSource& operator=(const ZipMemberSource&) = delete;

  base::Result<std::size_t> Read(char* buffer, std::size_t size) override {
    const zip_int64_t n = zip_fread(file_, buffer, size);
    if (n < 0) {
      return base::InvalidInput("{}: cannot decompress: {}", name_, zip_file_strerror(file_));
    }
    return static_cast<std::size_t>(n);
  }

 private:
  std::shared_ptr<FeedFiles::Archive> archive_;
  zip_file_t* file_;
  std::string name_;
};

}  // namespace

base::Result<FeedFiles> FeedFiles::Open(const std::filesystem::path& zip_or_folder) {
  const std::string name = zip_or_folder.string();
  std::error_code error;
  const auto status = std::filesystem::status(zip_or_folder, error);
  if (error || status.type() == std::filesystem::file_type::not_found) {
    return base::NotFound("{}: no such file or folder", name);
  }
  if (status.type() != std::filesystem::file_type::directory) {
    int code = 0;
    zip_t* zip = zip_open(zip_or_folder.c_str(), ZIP_RDONLY, &code);
    if (zip == nullptr) {
      return base::InvalidInput("{}: not a readable zip archive or folder: {}", name,
                                ZipErrorText(code));
    }
    return FromZip(std::make_shared<Archive>(zip, nullptr), name);
  }

  std::vector<Candidate> candidates;
  auto scan = [&](const std::filesystem::path& folder, const std::string& prefix) -> base::Status {
    std::error_code list_error;
    for (const auto& entry : std::filesystem::directory_iterator(folder, list_error)) {
      const std::string file_name = entry.path().filename().string();
      if (entry.is_directory()) {
        continue;
      }
      if (auto table = TableOf(file_name)) {
        candidates.push_back(
            {prefix, table->first, table->second, entry.path().string(), entry.path(), -1});
      }
    }
    if (list_error) {
      return base::IoError("{}: cannot list: {}", folder.string(), list_error.message());
    }
    return base::Status::Ok();
  };
  FROTA_RETURN_IF_ERROR(scan(zip_or_folder, ""));
  if (!HasMarker(candidates, "")) {
    std::error_code list_error;
    for (const auto& entry : std::filesystem::directory_iterator(zip_or_folder, list_error)) {
      const std::string file_name = entry.path().filename().string();
      if (entry.is_directory() && !file_name.starts_with(".") && file_name != "__MACOSX") {
        FROTA_RETURN_IF_ERROR(scan(entry.path(), file_name + "/"));
      }
    }
  }
  return Assemble(name, nullptr, std::move(candidates));
}

base::Result<FeedFiles> FeedFiles::OpenZipBytes(std::string bytes, std::string name) {
  auto owned = std::make_shared<std::string>(std::move(bytes));
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(owned->data(), owned->size(), 0, &error);
  if (source == nullptr) {
    std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    return base::Internal("{}: {}", name, text);
  }
  zip_t* zip = zip_open_from_source(source, ZIP_RDONLY, &error);
  if (zip == nullptr) {
    std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    zip_source_free(source);
    return base::InvalidInput("{}: not a readable zip archive: {}", name, text);
  }
  zip_error_fini(&error);
  return FromZip(std::make_shared<Archive>(zip, std::move(owned)), std::move(name));
}

base::Result<FeedFiles> FeedFiles::FromZip(std::shared_ptr<Archive> archive, std::string name) {
  std::vector<Candidate> candidates;
  const zip_int64_t entries = zip_get_num_entries(archive->zip, 0);
  for (zip_int64_t i = 0; i < entries; ++i) {
    const char* entry_name = zip_get_name(archive->zip, static_cast<zip_uint64_t>(i), 0);
    if (entry_name == nullptr) {
      continue;
    }
    const std::string_view path(entry_name);
    if (path.starts_with("__MACOSX/") || path.ends_with("/")) {
      continue;
    }
    const auto slash = path.rfind('/');
    const std::string_view folder =
        slash == std::string_view::npos ? "" : path.substr(0, slash + 1);
    const std::string_view file_name =
        slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (folder.find('/') != folder.size() - 1 && !folder.empty()) {
      continue;  // deeper than one subfolder
    }
    if (auto table = TableOf(file_name)) {
      candidates.push_back({std::string(folder),
                            table->first,
                            table->second,
                            fmt::format("{}/{}", name, path),
                            {},
                            i});
    }
  }
  return Assemble(std::move(name), std::move(archive), std::move(candidates));
}

base::Result<FeedFiles> FeedFiles::Assemble(std::string name, std::shared_ptr<Archive> archive,
                                            std::vector<Candidate> candidates) {
  FROTA_ASSIGN_OR_RETURN(const std::string folder, ChooseFolder(candidates, name));
  FeedFiles files;
  files.name_ = std::move(name);
  files.archive_ = std::move(archive);
  std::map<std::string, int, std::less<>> ranks;  // .txt (0) wins over .csv (1)
  for (Candidate& c : candidates) {
    if (c.folder != folder) {
      continue;
    }
    auto [rank, inserted] = ranks.try_emplace(c.table, c.rank);
    if (inserted || c.rank < rank->second) {
      rank->second = c.rank;
      files.tables_[c.table] = Member{std::move(c.display_name), std::move(c.file), c.zip_index};
    }
  }
  return files;
}

std::optional<std::string> FeedFiles::Find(std::string_view table) const {
  const auto it = tables_.find(table);
  if (it == tables_.end()) {
    return std::nullopt;
  }
  return it->second.display_name;
}

base::Result<std::unique_ptr<ByteSource>> FeedFiles::OpenTable(std::string_view table) const {
  const auto it = tables_.find(table);
  if (it == tables_.end()) {
    return base::Internal("{}: no table {}", name_, table);
  }
  const Member& member = it->second;
  if (member.zip_index < 0) {
    return FileSource(member.file);
  }
  zip_file_t* file = zip_fopen_index(archive_->zip, static_cast<zip_uint64_t>(member.zip_index), 0);
  if (file == nullptr) {
    return base::InvalidInput("{}: cannot open: {}", member.display_name,
                              zip_strerror(archive_->zip));
  }
  return std::unique_ptr<ByteSource>(
      std::make_unique<ZipMemberSource>(archive_, file, member.display_name));
}

}  // namespace frota::gtfs::internal
