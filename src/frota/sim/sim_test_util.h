// Helpers shared by the simulator's tests: scratch folders and small simulated days.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "frota/sim/simulator.h"

namespace frota::sim::testing_util {

/// A fresh folder under the system's temp folder, removed when the object goes away.
class ScratchDir {
 public:
  explicit ScratchDir(std::string_view name)
      : path_(Base() / ("frota-sim-" + std::string(name) + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  // BronzeWriter fsyncs every file: on a busy disk a simulated morning takes a minute.
  // The tests check bytes, not durability, so they prefer memory (/dev/shm) when there.
  static std::filesystem::path Base() {
    std::error_code ec;
    const std::filesystem::path shm = "/dev/shm";
    if (std::filesystem::is_directory(shm, ec) && ::access(shm.c_str(), W_OK) == 0) {
      return shm;
    }
    return std::filesystem::temp_directory_path();
  }
  std::filesystem::path path_;
};

/// A Wednesday (a weekday service day) used by the tests.
inline base::LocalDate TestDate() { return *base::ParseDate("2024-06-05"); }

/// Options for a small city over a few morning hours.
inline SimulateOptions SmallDay(const std::filesystem::path& out, std::int32_t vehicles = 40) {
  SimulateOptions options;
  options.out = out;
  options.date = TestDate();
  options.vehicles = vehicles;
  options.seed = 7;
  options.writers = 4;
  options.departures_between_s = std::pair(6 * 3600, 8 * 3600);
  return options;
}

}  // namespace frota::sim::testing_util
