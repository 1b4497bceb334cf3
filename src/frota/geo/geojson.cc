// Area's GeoJSON reader: walks the document by hand so every error says where it is.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "frota/base/file.h"
#include "frota/geo/area.h"

namespace frota::geo {
namespace {

using Json = nlohmann::json;

// Collects the rings of the selected polygons; `where` is a JSONPath-like location
// ("features[3].geometry.coordinates[0][5]") for messages.
class RingCollector {
 public:
  explicit RingCollector(std::string_view name) : name_(name) {}

  base::Status Geometry(const Json& geometry, const std::string& where) {
    if (geometry.is_null()) {
      return base::Status::Ok();  // a feature without location: nothing to add
    }
    if (!geometry.is_object()) {
      return Fail(where, "expected a geometry object");
    }
    const std::string type = TypeOf(geometry);
    if (type == "GeometryCollection") {
      const auto it = geometry.find("geometries");
      if (it == geometry.end() || !it->is_array()) {
        return Fail(where, "GeometryCollection without a \"geometries\" array");
      }
      for (std::size_t i = 0; i < it->size(); ++i) {
        FROTA_RETURN_IF_ERROR(Geometry((*it)[i], fmt::format("{}.geometries[{}]", where, i)));
      }
      return base::Status::Ok();
    }
    if (type != "Polygon" && type != "MultiPolygon") {
      return Fail(
          where,
          fmt::format("geometry type \"{}\" is not an area (Polygon or MultiPolygon)", type));
    }
    const auto coordinates = geometry.find("coordinates");
    if (coordinates == geometry.end() || !coordinates->is_array()) {
      return Fail(where, "missing \"coordinates\" array");
    }
    const std::string at = where + ".coordinates";
    if (type == "Polygon") {
      return Polygon(*coordinates, at);
    }
    for (std::size_t p = 0; p < coordinates->size(); ++p) {
      const Json& polygon = (*coordinates)[p];
      if (!polygon.is_array()) {
        return Fail(fmt::format("{}[{}]", at, p), "expected an array of rings");
      }
      FROTA_RETURN_IF_ERROR(Polygon(polygon, fmt::format("{}[{}]", at, p)));
    }
    return base::Status::Ok();
  }

  [[nodiscard]] base::Error Fail(std::string_view where, std::string_view what) const {
    if (where.empty()) {
      return base::InvalidInput("{}: {}", name_, what);
    }
    return base::InvalidInput("{}: {}: {}", name_, where, what);
  }

  static std::string TypeOf(const Json& object) {
    const auto it = object.find("type");
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
  }

  std::vector<Ring> TakeRings() { return std::move(rings_); }

 private:
  base::Status Polygon(const Json& polygon, const std::string& at) {
    for (std::size_t r = 0; r < polygon.size(); ++r) {
      const Json& ring_json = polygon[r];
      const std::string ring_at = fmt::format("{}[{}]", at, r);
      if (!ring_json.is_array()) {
        return Fail(ring_at, "expected a ring (an array of positions)");
      }
      Ring ring;
      ring.reserve(ring_json.size());
      for (std::size_t i = 0; i < ring_json.size(); ++i) {
        const Json& position = ring_json[i];
        if (!position.is_array() || position.size() < 2 || !position[0].is_number() ||
            !position[1].is_number()) {
          return Fail(fmt::format("{}[{}]", ring_at, i), "expected a position [lon, lat]");
        }
        const double lon = position[0].get<double>();
        const double lat = position[1].get<double>();
        if (!(lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90)) {
          return Fail(fmt::format("{}[{}]", ring_at, i),
                      fmt::format("[{}, {}] is outside lon [-180, 180], lat [-90, 90]", lon, lat));
        }
        ring.emplace_back(lon, lat);
      }
      rings_.push_back(std::move(ring));
    }
    return base::Status::Ok();
  }

  std::string name_;
  std::vector<Ring> rings_;
};

bool JsonEqualsText(const Json& value, std::string_view text) {
  if (value.is_string()) {
    return value.get_ref<const std::string&>() == text;
  }
  if (value.is_number() || value.is_boolean()) {
    return value.dump() == text;
  }
  return false;
}

bool FeatureMatches(const Json& feature, const FeatureFilter& filter) {
  if (const auto properties = feature.find("properties");
      properties != feature.end() && properties->is_object()) {
    if (const auto it = properties->find(filter.property); it != properties->end()) {
      return JsonEqualsText(*it, filter.value);
    }
  }
  const auto it = feature.find(filter.property);
  return it != feature.end() && JsonEqualsText(*it, filter.value);
}

}  // namespace

base::Result<Area> Area::ParseGeoJson(std::string_view text, std::string_view name_for_errors,
                                      const std::optional<FeatureFilter>& filter) {
  RingCollector collector(name_for_errors);
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::exception& e) {
    // Syntax errors and number overflow (1e999). e.what() is
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ...".
    std::string_view what = e.what();
    if (const auto pos = what.find("] "); pos != std::string_view::npos) {
      what.remove_prefix(pos + 2);
    }
    return collector.Fail("", fmt::format("not valid JSON: {}", what));
  }
  if (!root.is_object()) {
    return collector.Fail("", "expected a GeoJSON object at the top level");
  }
  const std::string type = RingCollector::TypeOf(root);
  std::size_t matched = 0;
  if (type == "FeatureCollection") {
    const auto features = root.find("features");
    if (features == root.end() || !features->is_array()) {
      return collector.Fail("", "FeatureCollection without a \"features\" array");
    }
    for (std::size_t i = 0; i < features->size(); ++i) {
      const Json& feature = (*features)[i];
      const std::string where = fmt::format("features[{}]", i);
      if (!feature.is_object()) {
        return collector.Fail(where, "expected a Feature object");
      }
      if (filter && !FeatureMatches(feature, *filter)) {
        continue;
      }
      ++matched;
      const auto geometry = feature.find("geometry");
      if (geometry == feature.end()) {
        return collector.Fail(where, "Feature without a \"geometry\" member");
      }
      FROTA_RETURN_IF_ERROR(collector.Geometry(*geometry, where + ".geometry"));
    }
  } else if (type == "Feature") {
    if (!filter || FeatureMatches(root, *filter)) {
      ++matched;
      const auto geometry = root.find("geometry");
      if (geometry == root.end()) {
        return collector.Fail("", "Feature without a \"geometry\" member");
      }
      FROTA_RETURN_IF_ERROR(collector.Geometry(*geometry, "geometry"));
    }
  } else if (type == "Polygon" || type == "MultiPolygon" || type == "GeometryCollection") {
    if (filter) {
      return collector.Fail("", fmt::format("a feature filter ({}={}) needs a Feature or "
                                            "FeatureCollection, not a bare {}",
                                            filter->property, filter->value, type));
    }
    matched = 1;
    FROTA_RETURN_IF_ERROR(collector.Geometry(root, "geometry"));
  } else if (type.empty()) {
    return collector.Fail("", "missing GeoJSON \"type\"");
  } else {
    return collector.Fail("", fmt::format("GeoJSON type \"{}\" is not an area", type));
  }
  if (filter && matched == 0) {
    return collector.Fail("",
                          fmt::format("no feature with {}={}", filter->property, filter->value));
  }
  return FromRings(collector.TakeRings(), name_for_errors);
}

base::Result<Area> Area::LoadGeoJson(const std::filesystem::path& path,
                                     const std::optional<FeatureFilter>& filter) {
  FROTA_ASSIGN_OR_RETURN(const std::string text, base::ReadFile(path));
  return ParseGeoJson(text, path.string(), filter);
}

base::Result<Area> Area::LoadSpec(std::string_view spec) {
  const auto hash = spec.rfind('#');
  if (hash == std::string_view::npos) {
    return LoadGeoJson(std::filesystem::path(spec));
  }
  const std::string_view selector = spec.substr(hash + 1);
  const auto equals = selector.find('=');
  if (equals == std::string_view::npos || equals == 0) {
    return base::InvalidInput("{}: expected PATH or PATH#PROPERTY=VALUE", spec);
  }
  return LoadGeoJson(std::filesystem::path(spec.substr(0, hash)),
                     FeatureFilter{std::string(selector.substr(0, equals)),
                                   std::string(selector.substr(equals + 1))});
}

}  // namespace frota::geo
