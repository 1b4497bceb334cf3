#include <fmt/core.h>

#include "frota/cli/commands.h"
#include "frota/source/bronze_compact.h"

namespace frota::cli {

namespace {

struct CompactFlags {
  std::string archive;
  bool closed = false;
};

int RunCompact(const CompactFlags& flags) {
  // Hours a collector may still write into stay loose, unless no collector writes here.
  const base::Timestamp sealed_before =
      flags.closed ? base::Timestamp::max()
                   : std::chrono::time_point_cast<base::Micros>(std::chrono::system_clock::now()) -
                         source::kSealMargin;
  const auto report = source::CompactArchive(flags.archive, sealed_before);
  if (!report.ok()) {
    return ReportError(report.error());
  }
  std::int64_t responses = 0;
  std::int64_t removed = 0;
  std::int64_t before = 0;
  std::int64_t after = 0;
  for (const auto& hour : report->packed) {
    fmt::print("packed  {}/{}  {} responses, {} files removed, {} -> {} bytes\n", hour.feed,
               hour.hour, hour.responses, hour.files_removed, hour.bytes_before, hour.bytes_after);
    responses += hour.responses;
    removed += hour.files_removed;
    before += hour.bytes_before;
    after += hour.bytes_after;
  }
  fmt::print(
      "hours packed {} ({} responses, {} files removed, {} -> {} bytes), already packed {}, "
      "not sealed {}{}\n",
      report->packed.size(), responses, removed, before, after, report->hours_already_packed,
      report->hours_not_sealed,
      report->leftovers_removed > 0
          ? fmt::format(", loose copies of packed responses removed {}", report->leftovers_removed)
          : std::string());
  return kExitOk;
}

}  // namespace

void AddCompactCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<CompactFlags>();
  auto* sub = app.add_subcommand(
      "compact",
      "Pack each sealed hour of a bronze archive (loose responses and envelopes) into one "
      "zstd-compressed file; safe while a collector writes, and idempotent");
  sub->add_option("--archive", flags->archive, "The archive's root folder")->required();
  sub->add_flag("--closed", flags->closed,
                "No collector writes this archive any more: pack every hour, the newest too "
                "(otherwise hours ending less than 10 minutes ago stay loose)");
  sub->callback([flags, &run] { run = [flags] { return RunCompact(*flags); }; });
}

}  // namespace frota::cli
