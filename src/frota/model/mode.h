// The kind of vehicle a position belongs to (semantics.md section 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace frota::model {

enum class Mode : std::uint8_t { kBus, kBrt, kRail, kFerry, kAircraft, kOther };

inline constexpr Mode kAllModes[] = {Mode::kBus,   Mode::kBrt,      Mode::kRail,
                                     Mode::kFerry, Mode::kAircraft, Mode::kOther};

/// "bus", "brt", "rail", "ferry", "aircraft", "other".
std::string_view ModeName(Mode mode);
std::optional<Mode> ParseMode(std::string_view name);
/// The mode of a GTFS route_type (basic and extended types).
Mode ModeFromGtfsRouteType(int route_type);

}  // namespace frota::model
