// Great-circle distance on the sphere the whole project uses (semantics §2).
#pragma once

namespace frota::geo {

/// Mean Earth radius in metres (IUGG); every distance in frota uses this sphere.
inline constexpr double kEarthRadiusM = 6'371'008.8;

/// Distance in metres between two WGS84 points given in degrees, by the haversine
/// formula on a sphere of radius kEarthRadiusM. Symmetric; 0 for equal points.
double HaversineM(double lat1, double lon1, double lat2, double lon2);

}  // namespace frota::geo
