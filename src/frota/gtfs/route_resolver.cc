#include "frota/gtfs/route_resolver.h"

#include <map>
#include <optional>
#include <vector>

namespace frota::gtfs {
namespace {

bool IsLetter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// `text` without ASCII letters, if that leaves a non-empty string of digits.
std::optional<std::string> DigitsOf(std::string_view text) {
  std::string digits;
  for (const char c : text) {
    if (IsDigit(c)) {
      digits += c;
    } else if (!IsLetter(c)) {
      return std::nullopt;
    }
  }
  if (digits.empty()) {
    return std::nullopt;
  }
  return digits;
}

// Adds `name` → `route` by `rule` unless an earlier rule already claimed the name; two
// routes for one name under the same rule make the name ambiguous.
template <typename Map>
void Claim(Map& map, std::string_view name, const Route* route, RouteMatch rule) {
  const auto [it, inserted] = map.try_emplace(std::string(name), RouteResolution{route, rule});
  if (!inserted && it->second.match == rule && it->second.route != route) {
    it->second.route = nullptr;
  }
}

}  // namespace

std::string_view RouteMatchName(RouteMatch match) {
  switch (match) {
    case RouteMatch::kRouteId:
      return "route_id";
    case RouteMatch::kShortName:
      return "short_name";
    case RouteMatch::kLettersMovedToFront:
      return "letters_moved_to_front";
    case RouteMatch::kSameDigits:
      return "same_digits";
    case RouteMatch::kUnresolved:
      break;
  }
  return "unresolved";
}

RouteResolver::RouteResolver(const StaticFeed& feed) {
  const auto& routes = feed.routes();
  for (const Route& route : routes) {
    Claim(by_name_, route.id, &route, RouteMatch::kRouteId);
  }
  for (const Route& route : routes) {
    if (!route.short_name.empty()) {
      Claim(by_name_, route.short_name, &route, RouteMatch::kShortName);
    }
  }
  // Rule 3 inverted: a short name L + R (L letters, R ending in a non-letter) is what
  // the feed name R + L turns into, since L is then exactly R + L's trailing letters.
  for (const Route& route : routes) {
    const std::string& name = route.short_name;
    for (std::size_t split = 1; split < name.size() && IsLetter(name[split - 1]); ++split) {
      if (!IsLetter(name.back())) {
        Claim(by_name_, name.substr(split) + name.substr(0, split), &route,
              RouteMatch::kLettersMovedToFront);
      }
    }
  }
  // Rule 4: group short names by their digits.
  std::map<std::string, std::vector<const Route*>> by_digits;
  for (const Route& route : routes) {
    if (auto digits = DigitsOf(route.short_name)) {
      by_digits[*digits].push_back(&route);
    }
  }
  for (const auto& [digits, candidates] : by_digits) {
    const Route* plain = nullptr;
    int plain_count = 0;
    for (const Route* route : candidates) {
      if (route->short_name == digits) {
        plain = route;
        ++plain_count;
      }
    }
    const Route* chosen = plain_count == 1                             ? plain
                          : plain_count == 0 && candidates.size() == 1 ? candidates.front()
                                                                       : nullptr;
    by_digits_.emplace(digits, RouteResolution{chosen, RouteMatch::kSameDigits});
  }
}

RouteResolution RouteResolver::Resolve(std::string_view feed_route_id) const {
  if (feed_route_id.empty()) {
    return {};
  }
  if (const auto it = by_name_.find(feed_route_id); it != by_name_.end()) {
    return it->second.route != nullptr ? it->second : RouteResolution{};
  }
  // Rule 4: the digits of the name, letters dropped (on the stack for short names).
  char digits[32];
  std::size_t size = 0;
  for (const char c : feed_route_id) {
    if (IsDigit(c)) {
      if (size == sizeof(digits)) {  // absurdly long: take the allocating path
        const auto long_digits = DigitsOf(feed_route_id);
        const auto it = long_digits ? by_digits_.find(*long_digits) : by_digits_.end();
        return it != by_digits_.end() && it->second.route != nullptr ? it->second
                                                                     : RouteResolution{};
      }
      digits[size++] = c;
    } else if (!IsLetter(c)) {
      return {};
    }
  }
  if (size == 0) {
    return {};
  }
  if (const auto it = by_digits_.find(std::string_view(digits, size)); it != by_digits_.end()) {
    return it->second.route != nullptr ? it->second : RouteResolution{};
  }
  return {};
}

}  // namespace frota::gtfs
