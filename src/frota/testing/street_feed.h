// A GTFS feed for tests: route B53 along a straight 5 km street in Rio, the points along
// it, and the positions of buses that run it on a test morning.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "frota/base/time.h"

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

/// One position of a test morning, with the texts a test gives the regularity stream.
struct StreetFix {
  std::string vehicle;
  base::Timestamp time;
  double lat;
  double lon;
  std::string route;
  std::string trip;  // '' when the feed carries no trip id
};

/// hour:minute local time on Wednesday 2022-08-03 (UTC-3), the street tests' day.
base::Timestamp StreetLocal(int hour, int minute);

/// A bus of route "53B" (tagged `trip`) standing at the west terminal for 90 s from
/// `leave`, then running eastwards at 8 m/s to the east end; a fix every 30 s.
void AddStreetBus(std::vector<StreetFix>& fixes, const std::string& id, base::Timestamp leave,
                  const std::string& trip = "");

/// Vehicle "other" of line "99", 20 km west and 3 km north of the street, a fix every 30 s
/// from `from` until before `to`: it keeps the feed covered.
void AddCoveringLine(std::vector<StreetFix>& fixes, base::Timestamp from, base::Timestamp to);

}  // namespace frota::testing
