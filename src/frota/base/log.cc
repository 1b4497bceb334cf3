#include "frota/base/log.h"

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <memory>
#include <vector>

namespace frota::base {

void InitLogging(const LogOptions& options) {
  std::vector<spdlog::sink_ptr> sinks;
  auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  console->set_pattern("%^%L%$ %H:%M:%S.%e %v");
  sinks.push_back(console);
  if (!options.file.empty()) {
    constexpr std::size_t kFileBytes = 5 * 1024 * 1024;
    constexpr std::size_t kFiles = 3;
    auto file = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(options.file, kFileBytes,
                                                                       kFiles);
    file->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %l %v");
    sinks.push_back(file);
  }
  auto logger = std::make_shared<spdlog::logger>("frota", sinks.begin(), sinks.end());
  logger->set_level(options.quiet     ? spdlog::level::warn
                    : options.verbose ? spdlog::level::debug
                                      : spdlog::level::info);
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(logger);
}

}  // namespace frota::base
