#include "frota/base/log.h"

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "frota/base/status.h"

namespace frota::base {

namespace {

LogOptions& Current() {
  static LogOptions options;
  return options;
}

}  // namespace

std::optional<spdlog::level::level_enum> ParseLogLevel(std::string_view name) {
  using L = spdlog::level::level_enum;
  static constexpr std::pair<std::string_view, L> kLevels[] = {
      {"trace", L::trace},  {"debug", L::debug}, {"info", L::info},         {"warn", L::warn},
      {"warning", L::warn}, {"error", L::err},   {"critical", L::critical}, {"off", L::off}};
  for (const auto& [n, level] : kLevels) {
    if (n == name) {
      return level;
    }
  }
  return std::nullopt;
}

LogLevels LogLevelsOf(const LogOptions& options) {
  using L = spdlog::level::level_enum;
  const bool has_file = !options.file.empty();
  LogLevels levels{};
  levels.terminal = options.quiet ? L::warn : options.verbose && !has_file ? L::debug : L::info;
  if (!has_file) {
    levels.file = levels.terminal;
  } else if (!options.file_level.empty()) {
    levels.file = ParseLogLevel(options.file_level).value_or(L::info);
  } else {
    levels.file = options.verbose ? L::debug : L::info;
  }
  return levels;
}

Status InitLogging(const LogOptions& options) {
  if (!options.file_level.empty() && !ParseLogLevel(options.file_level)) {
    return InvalidInput(
        "log level '{}' for the file: not one of trace, debug, info, warn, error, critical, off",
        options.file_level);
  }
  const LogLevels levels = LogLevelsOf(options);
  std::vector<spdlog::sink_ptr> sinks;
  auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  console->set_pattern("%^%L%$ %H:%M:%S.%e %v");
  console->set_level(levels.terminal);
  sinks.push_back(console);
  if (!options.file.empty()) {
    constexpr std::size_t kFileBytes = 5 * 1024 * 1024;
    constexpr std::size_t kFiles = 3;
    std::shared_ptr<spdlog::sinks::rotating_file_sink_mt> file;
    try {
      file =
          std::make_shared<spdlog::sinks::rotating_file_sink_mt>(options.file, kFileBytes, kFiles);
    } catch (const spdlog::spdlog_ex& e) {
      return IoError("log file {}: {}", options.file, e.what());
    }
    file->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %l [%t] %v");
    file->set_level(levels.file);
    sinks.push_back(file);
  }
  auto logger = std::make_shared<spdlog::logger>("frota", sinks.begin(), sinks.end());
  // The logger passes what either sink wants; each sink keeps to its own level.
  logger->set_level(std::min(levels.terminal, levels.file));
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(logger);
  Current() = options;
  return Status::Ok();
}

const LogOptions& CurrentLogOptions() { return Current(); }

}  // namespace frota::base
