#include "frota/geo/area.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "frota/testing/shared_data.h"

namespace frota::geo {
namespace {

constexpr char kRioFile[] = "rio-boundary/rio-de-janeiro-3304557.geojson";
constexpr char kStateFile[] = "rio-boundary/geojs-33-mun.json";

// The rule of area.h written the obvious way: every edge of every ring, no index.
bool NaiveEvenOdd(const std::vector<Ring>& rings, double lat, double lon) {
  bool inside = false;
  for (const Ring& ring : rings) {
    for (std::size_t i = 0; i + 1 < ring.size(); ++i) {
      const auto [lon_a, lat_a] = ring[i];
      const auto [lon_b, lat_b] = ring[i + 1];
      if ((lat_a > lat) != (lat_b > lat)) {
        const double x = std::clamp(lon_a + (lat - lat_a) * (lon_b - lon_a) / (lat_b - lat_a),
                                    std::min(lon_a, lon_b), std::max(lon_a, lon_b));
        if (lon < x) {
          inside = !inside;
        }
      }
    }
  }
  return inside;
}

// Random points in (and a little around) the bounding box, plus vertices and edge
// midpoints (the exact boundary cases) of about `edge_samples` edges.
void ExpectSameAsNaive(const Area& area, int random_points, std::uint32_t seed,
                       std::size_t edge_samples = 5000) {
  const BoundingBox& box = area.bounding_box();
  const double pad_lat = 0.05 * (box.max_lat - box.min_lat);
  const double pad_lon = 0.05 * (box.max_lon - box.min_lon);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> lat(box.min_lat - pad_lat, box.max_lat + pad_lat);
  std::uniform_real_distribution<double> lon(box.min_lon - pad_lon, box.max_lon + pad_lon);
  int mismatches = 0;
  int inside = 0;
  int outside = 0;
  auto check = [&](double la, double lo) {
    const bool expected = NaiveEvenOdd(area.rings(), la, lo);
    (expected ? inside : outside) += 1;
    if (area.Contains(la, lo) != expected && ++mismatches <= 5) {
      ADD_FAILURE() << area.name() << ": lat " << la << " lon " << lo << " naive says " << expected;
    }
  };
  for (int i = 0; i < random_points; ++i) {
    check(lat(rng), lon(rng));
  }
  const std::size_t stride = std::max<std::size_t>(1, area.edge_count() / edge_samples);
  std::size_t edge = 0;
  for (const Ring& ring : area.rings()) {
    for (std::size_t i = 0; i + 1 < ring.size(); ++i) {
      if (edge++ % stride != 0) {
        continue;
      }
      check(ring[i].second, ring[i].first);
      check((ring[i].second + ring[i + 1].second) / 2, (ring[i].first + ring[i + 1].first) / 2);
      check(ring[i].second, ring[i + 1].first);
      check(ring[i + 1].second, ring[i].first);
    }
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(inside, 0) << "the differential test should see both answers";
  EXPECT_GT(outside, 0) << "the differential test should see both answers";
}

Area MustLoad(const std::filesystem::path& path, const std::optional<FeatureFilter>& filter = {}) {
  auto area = Area::LoadGeoJson(path, filter);
  EXPECT_TRUE(area.ok()) << (area.ok() ? "" : area.error().message());
  return std::move(area).value();
}

Area MustParse(std::string_view text) {
  auto area = Area::ParseGeoJson(text, "test.geojson");
  EXPECT_TRUE(area.ok()) << (area.ok() ? "" : area.error().message());
  return std::move(area).value();
}

std::string ErrorOf(std::string_view text) {
  const auto area = Area::ParseGeoJson(text, "bad.geojson");
  return area.ok() ? std::string("(no error)") : area.error().message();
}

TEST(AreaRio, ContainsTheCityCentreAndItsIslandsButNotNiteroiOrTheBay) {
  FROTA_REQUIRE_SHARED(path, kRioFile);
  const Area rio = MustLoad(path);
  EXPECT_EQ(rio.rings().size(), 18u);  // the mainland, Governador, Fundão, Paquetá, 14 islets
  EXPECT_TRUE(rio.Contains(-22.9068, -43.1729)) << "Centro";
  EXPECT_TRUE(rio.Contains(-22.9711, -43.1843)) << "Copacabana";
  EXPECT_TRUE(rio.Contains(-22.9166, -43.6837)) << "Santa Cruz (BRT terminal)";
  EXPECT_TRUE(rio.Contains(-22.8000, -43.2000)) << "Ilha do Governador";
  EXPECT_TRUE(rio.Contains(-22.8100, -43.2500)) << "Galeão airport, on Governador";
  EXPECT_TRUE(rio.Contains(-22.7620, -43.1080)) << "Paquetá";
  EXPECT_TRUE(rio.Contains(-22.8600, -43.2300)) << "Ilha do Fundão";
  EXPECT_FALSE(rio.Contains(-22.8832, -43.1034)) << "Niterói";
  EXPECT_FALSE(rio.Contains(-22.8200, -43.1500)) << "Guanabara Bay";
  EXPECT_FALSE(rio.Contains(-22.8700, -43.1600)) << "Guanabara Bay, near the bridge";
  EXPECT_FALSE(rio.Contains(-23.5505, -46.6333)) << "São Paulo";
  EXPECT_FALSE(rio.Contains(-22.7700, -43.4500)) << "Nova Iguaçu / Belford Roxo";
}

TEST(AreaRio, TheStateFileFilteredByIdGivesTheSameArea) {
  FROTA_REQUIRE_SHARED(rio_path, kRioFile);
  FROTA_REQUIRE_SHARED(state_path, kStateFile);
  const Area rio = MustLoad(rio_path);
  const Area from_state = MustLoad(state_path, FeatureFilter{"id", "3304557"});
  EXPECT_EQ(from_state.rings(), rio.rings());
  // The whole state (92 municipalities) contains Niterói, which Rio does not.
  const Area state = MustLoad(state_path);
  EXPECT_TRUE(state.Contains(-22.8832, -43.1034));
  EXPECT_FALSE(from_state.Contains(-22.8832, -43.1034));
  const Area niteroi = MustLoad(state_path, FeatureFilter{"name", "Niterói"});
  EXPECT_TRUE(niteroi.Contains(-22.8832, -43.1034));
  EXPECT_FALSE(niteroi.Contains(-22.9068, -43.1729));
}

TEST(AreaRio, AnUnmatchedFilterIsAnErrorNamingFileAndFilter) {
  FROTA_REQUIRE_SHARED(state_path, kStateFile);
  const auto area = Area::LoadGeoJson(state_path, FeatureFilter{"id", "9999999"});
  ASSERT_FALSE(area.ok());
  EXPECT_NE(area.error().message().find("geojs-33-mun.json"), std::string::npos);
  EXPECT_NE(area.error().message().find("no feature with id=9999999"), std::string::npos);
}

TEST(AreaRio, LoadSpecSelectsAFeatureAfterTheHash) {
  FROTA_REQUIRE_SHARED(state_path, kStateFile);
  const auto area = Area::LoadSpec(state_path.string() + "#id=3304557");
  ASSERT_TRUE(area.ok()) << area.error().message();
  EXPECT_EQ(area->rings().size(), 18u);
  EXPECT_FALSE(Area::LoadSpec(state_path.string() + "#id").ok());
}

TEST(AreaRio, IndexAgreesWithTheNaiveRuleOnRandomPointsAndEveryVertex) {
  FROTA_REQUIRE_SHARED(path, kRioFile);
  ExpectSameAsNaive(MustLoad(path), 200'000, 1);
}

TEST(AreaRio, IndexAgreesWithTheNaiveRuleOnTheNeighbourhoodMultiPolygons) {
  // 164 neighbourhoods, Polygons and MultiPolygons, many shared edges.
  FROTA_REQUIRE_SHARED(path, "rio-boundary/rio_bairros_prefeitura.geojson");
  ExpectSameAsNaive(MustLoad(path), 200, 2, 50);
}

TEST(Area, HolesAreOutsideAndIslandsInHolesInside) {
  // A 10×10 square, a 6×6 hole, and a 2×2 island in the hole, as one Polygon.
  const Area area = MustParse(R"({"type":"Polygon","coordinates":[
      [[0,0],[10,0],[10,10],[0,10],[0,0]],
      [[2,2],[8,2],[8,8],[2,8],[2,2]],
      [[4,4],[6,4],[6,6],[4,6],[4,4]]]})");
  EXPECT_TRUE(area.Contains(1, 1));     // in the square
  EXPECT_FALSE(area.Contains(3, 3));    // in the hole
  EXPECT_TRUE(area.Contains(5, 5));     // on the island
  EXPECT_FALSE(area.Contains(11, 5));   // outside
  EXPECT_FALSE(area.Contains(-1, -1));  // outside
  ExpectSameAsNaive(area, 10'000, 3);
}

TEST(Area, MultiPolygonsAndFeaturesAreUnited) {
  const Area area = MustParse(R"({"type":"FeatureCollection","features":[
      {"type":"Feature","properties":{},"geometry":{"type":"MultiPolygon","coordinates":[
          [[[0,0],[1,0],[1,1],[0,1],[0,0]]], [[[5,5],[6,5],[6,6],[5,6],[5,5]]]]}},
      {"type":"Feature","properties":{},"geometry":null},
      {"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[
          [[10,0],[11,0],[11,1],[10,1],[10,0]]]}}]})");
  EXPECT_EQ(area.rings().size(), 3u);
  EXPECT_TRUE(area.Contains(0.5, 0.5));
  EXPECT_TRUE(area.Contains(5.5, 5.5));
  EXPECT_TRUE(area.Contains(0.5, 10.5));
  EXPECT_FALSE(area.Contains(3, 3));
  EXPECT_EQ(area.bounding_box().min_lon, 0);
  EXPECT_EQ(area.bounding_box().max_lon, 11);
  EXPECT_EQ(area.bounding_box().max_lat, 6);
}

TEST(Area, PointsOnTheBoundaryBelongToTheSideNorthEastOfThem) {
  const Area square =
      MustParse(R"({"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]})");
  // Contains(lat, lon); the square spans lon 0..1 and lat 0..1.
  EXPECT_TRUE(square.Contains(0.5, 0.5));   // centre
  EXPECT_TRUE(square.Contains(0.5, 0.0));   // west edge (lon 0): inside
  EXPECT_FALSE(square.Contains(0.5, 1.0));  // east edge: outside
  EXPECT_TRUE(square.Contains(0.0, 0.5));   // south edge (lat 0): inside
  EXPECT_FALSE(square.Contains(1.0, 0.5));  // north edge: outside
  EXPECT_TRUE(square.Contains(0.0, 0.0));   // south-west corner
  EXPECT_FALSE(square.Contains(0.0, 1.0));  // south-east corner
  EXPECT_FALSE(square.Contains(1.0, 0.0));  // north-west corner
  EXPECT_FALSE(square.Contains(1.0, 1.0));  // north-east corner
  // The same square wound the other way answers the same.
  const Area reversed =
      MustParse(R"({"type":"Polygon","coordinates":[[[0,0],[0,1],[1,1],[1,0],[0,0]]]})");
  for (const double lat : {0.0, 0.5, 1.0}) {
    for (const double lon : {0.0, 0.5, 1.0}) {
      EXPECT_EQ(reversed.Contains(lat, lon), square.Contains(lat, lon)) << lat << "," << lon;
    }
  }
}

TEST(Area, NanIsOutside) {
  const Area square = MustParse(R"({"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]})");
  EXPECT_FALSE(square.Contains(std::nan(""), 0.5));
  EXPECT_FALSE(square.Contains(0.5, std::nan("")));
}

TEST(Area, UnclosedRingsAreClosedAndDegenerateRingsDropped) {
  const Area area = MustParse(R"({"type":"Polygon","coordinates":[
      [[0,0],[4,0],[4,4],[0,4]],
      [[1,1],[2,2],[1,1]],
      [[7,7],[7,7],[7,7],[7,7]]]})");
  ASSERT_EQ(area.rings().size(), 1u);
  EXPECT_EQ(area.rings()[0].size(), 5u);
  EXPECT_EQ(area.rings()[0].front(), area.rings()[0].back());
  EXPECT_TRUE(area.Contains(1.5, 1.0));
}

TEST(Area, SelfIntersectingAndLatticeAlignedPolygonsMatchTheNaiveRule) {
  // Random vertices snapped to a coarse lattice put many query points exactly on
  // vertices, edges and grid-cell borders; random bow-ties exercise even-odd.
  std::mt19937_64 rng(7);
  int compared = 0;
  for (int polygon = 0; polygon < 60; ++polygon) {
    std::uniform_int_distribution<int> lattice(-8, 8);
    std::uniform_int_distribution<int> ring_count(1, 4);
    std::uniform_int_distribution<int> vertex_count(3, 40);
    std::vector<Ring> rings;
    for (int r = ring_count(rng); r > 0; --r) {
      Ring ring;
      for (int v = vertex_count(rng); v > 0; --v) {
        ring.emplace_back(-43.5 + 0.125 * lattice(rng), -22.9 + 0.0625 * lattice(rng));
      }
      rings.push_back(ring);
    }
    auto area = Area::FromRings(rings, "random");
    if (!area.ok()) {
      continue;  // every ring degenerate
    }
    ++compared;
    ExpectSameAsNaive(*area, 500, static_cast<std::uint32_t>(polygon));
    for (int la = -10; la <= 10; ++la) {
      for (int lo = -10; lo <= 10; ++lo) {
        const double lat = -22.9 + 0.0625 * la;
        const double lon = -43.5 + 0.125 * lo;
        ASSERT_EQ(area->Contains(lat, lon), NaiveEvenOdd(area->rings(), lat, lon))
            << "polygon " << polygon << " lat " << lat << " lon " << lon;
      }
    }
  }
  EXPECT_GE(compared, 50) << "of 60 random polygons, the rest degenerate";
}

TEST(Area, ACombWithHundredsOfTeethMatchesTheNaiveRule) {
  // Peaks at every integer longitude from -149 to 150 (lat 10), valleys half-way
  // (lat 1): every row crosses hundreds of edges, so boundary cells fall back to
  // whole rows.
  Ring comb{{-150, 0}, {150, 0}};
  for (int tooth = 299; tooth >= 0; --tooth) {
    comb.emplace_back(-150 + tooth + 1.0, 10.0);
    comb.emplace_back(-150 + tooth + 0.5, 1.0);
  }
  comb.emplace_back(-150, 10);
  auto area = Area::FromRings({comb}, "comb");
  ASSERT_TRUE(area.ok()) << area.error().message();
  EXPECT_TRUE(area->Contains(0.5, 10.3));   // below the valleys
  EXPECT_TRUE(area->Contains(5.0, 0.05));   // in a tooth
  EXPECT_FALSE(area->Contains(5.0, 0.45));  // between two teeth
  ExpectSameAsNaive(*area, 20'000, 11);
}

TEST(AreaErrors, NameTheFileAndThePlace) {
  EXPECT_EQ(ErrorOf(R"({"type":"Polygon","coordinates":[[[0,0],[1,0],["x",1],[0,0]]]})"),
            "bad.geojson: geometry.coordinates[0][2]: expected a position [lon, lat]");
  EXPECT_EQ(ErrorOf(R"({"type":"Polygon","coordinates":[[[0,0],[1,0],[200,1],[0,0]]]})"),
            "bad.geojson: geometry.coordinates[0][2]: [200, 1] is outside lon [-180, 180], lat "
            "[-90, 90]");
  EXPECT_EQ(
      ErrorOf(
          R"({"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]}}]})"),
      "bad.geojson: features[0].geometry: geometry type \"Point\" is not an area (Polygon or "
      "MultiPolygon)");
  EXPECT_EQ(ErrorOf(R"({"type":"Polygon","coordinates":[]})"),
            "bad.geojson: no polygon ring with at least three distinct vertices");
  EXPECT_EQ(ErrorOf(R"({"type":"FeatureCollection","features":[]})"),
            "bad.geojson: no polygon ring with at least three distinct vertices");
  EXPECT_EQ(ErrorOf(R"({"type":"Polygon","coordinates":[[[0,0],[1,1],[0,0]]]})"),
            "bad.geojson: no polygon ring with at least three distinct vertices");
  EXPECT_EQ(ErrorOf(R"([1,2])"), "bad.geojson: expected a GeoJSON object at the top level");
  EXPECT_EQ(ErrorOf(R"({"coordinates":[]})"), "bad.geojson: missing GeoJSON \"type\"");
  EXPECT_NE(
      ErrorOf(R"({"type":"Polygon",)").find("bad.geojson: not valid JSON: parse error at line 1"),
      std::string::npos);
}

TEST(AreaErrors, AMissingFileNamesThePath) {
  const auto area = Area::LoadGeoJson("/nonexistent/area.geojson");
  ASSERT_FALSE(area.ok());
  EXPECT_NE(area.error().message().find("/nonexistent/area.geojson"), std::string::npos);
}

}  // namespace
}  // namespace frota::geo
