// A GTFS feed for tests: route B53 along a straight 5 km street in Rio, and the points
// along it.
#pragma once

#include <filesystem>
#include <utility>

namespace frota::testing {

/// The west end of the street (the west terminal W).
inline constexpr double kStreetLat = -22.9;
inline constexpr double kStreetLon = -43.4;

/// The point `east_m` east and `north_m` north of the west end (a local flat frame on the
/// mean Earth radius).
std::pair<double, double> StreetPoint(double east_m, double north_m = 0);

/// What WriteStreetFeed writes besides route B53 (R53, "B53"), its stops W (west end) and
/// E (5 km east), the agency in America/Sao_Paulo and a calendar running every day of
/// 2022: trips I0..I<eastward_trips - 1> eastwards on shape SI (direction 0), leaving W
/// every 10 minutes from 06:00 and reaching E 20 minutes later; with `westward`, shape SV
/// and one trip V0 westwards (direction 1) at 06:00.
struct StreetFeedOptions {
  int eastward_trips = 19;
  bool westward = true;
};

/// Writes the feed's files into `dir`.
void WriteStreetFeed(const std::filesystem::path& dir, const StreetFeedOptions& options = {});

}  // namespace frota::testing
