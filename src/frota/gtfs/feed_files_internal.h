// The members of a static GTFS feed stored as a zip archive or a folder (private to gtfs).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/status.h"
#include "frota/gtfs/csv_reader.h"

namespace frota::gtfs::internal {

/// Finds the tables of a feed ("routes" → routes.txt, else routes.csv) in a folder or
/// a zip, at the top level or inside one subfolder (zips made by "compress folder"),
/// and opens them as byte streams.
///
/// The feed's folder is the top level when it holds any of agency, routes, trips or
/// stops; otherwise the single subfolder that does (two such subfolders: an error).
/// `__MACOSX/` and hidden entries are ignored. Movable; not thread-safe.
class FeedFiles {
 public:
  /// A folder, or a file read as a zip archive.
  static base::Result<FeedFiles> Open(const std::filesystem::path& zip_or_folder);
  /// A zip archive in memory; `name` is how errors name it.
  static base::Result<FeedFiles> OpenZipBytes(std::string bytes, std::string name);

  /// The display name of the member holding `table` ("/x/gtfs.zip/routes.txt"), if any.
  [[nodiscard]] std::optional<std::string> Find(std::string_view table) const;
  /// Opens the member holding `table`; the table must exist (Find() first).
  [[nodiscard]] base::Result<std::unique_ptr<ByteSource>> OpenTable(std::string_view table) const;
  /// What errors about the feed as a whole name: the zip or folder path.
  [[nodiscard]] const std::string& name() const { return name_; }

  struct Archive;        // libzip handle shared by the open members
  struct Candidate {     // a file that may hold a table
    std::string folder;  // "" for the top level, else "sub/"
    std::string table;
    int rank;  // 0 for .txt, 1 for .csv
    std::string display_name;
    std::filesystem::path file;   // folder feeds
    std::int64_t zip_index = -1;  // zip feeds
  };

 private:
  struct Member {
    std::string display_name;
    std::filesystem::path file;   // folder feeds
    std::int64_t zip_index = -1;  // zip feeds
  };
  static base::Result<FeedFiles> FromZip(std::shared_ptr<Archive> archive, std::string name);
  static base::Result<FeedFiles> Assemble(std::string name, std::shared_ptr<Archive> archive,
                                          std::vector<Candidate> candidates);

  std::string name_;
  std::shared_ptr<Archive> archive_;
  std::map<std::string, Member, std::less<>> tables_;  // table name → member
};

}  // namespace frota::gtfs::internal
