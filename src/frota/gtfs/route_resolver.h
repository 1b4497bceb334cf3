// Maps the route names a position feed uses to GTFS routes (the Rio "53B" → "B53" join).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "frota/gtfs/static_feed.h"

namespace frota::gtfs {

/// Which rule of RouteResolver matched (see README.md for the rules).
enum class RouteMatch : std::uint8_t {
  kUnresolved,           // no rule matched, or the matching rule was ambiguous
  kRouteId,              // 1: exact route_id
  kShortName,            // 2: exact route_short_name
  kLettersMovedToFront,  // 3: trailing letters moved to the front ("53B" → "B53")
  kSameDigits,           // 4: the same digits ("38N" → "38", "35" → "A35")
};

/// "route_id", "short_name", "letters_moved_to_front", "same_digits" or "unresolved".
std::string_view RouteMatchName(RouteMatch match);

struct RouteResolution {
  const Route* route = nullptr;  // nullptr when unresolved
  RouteMatch match = RouteMatch::kUnresolved;
};

/// Resolves a feed's route identifier (GTFS-RT route_id, Rio `linha`/`servico`) to a
/// route of a StaticFeed by the first rule that matches:
///   1. an exact route_id;
///   2. an exact route_short_name;
///   3. the Rio rule: trailing ASCII letters moved to the front ("53B" → short name "B53");
///   4. the same digits: drop the ASCII letters; if what is left is digits D, the route
///      whose short name is exactly D ("38N" → "38", "11N" → "11"), else the only route
///      whose short name is D once its letters are dropped ("35" → "A35").
/// A rule that finds two or more routes (two routes share a short name; "53" has
/// both A53 and B53) stops the search: the answer is unresolved, never a guess.
/// Matching is case-sensitive.
///
/// Every rule is precomputed in the constructor: rules 1–3 into one hash map keyed by
/// every name that resolves through them, rule 4 into a map keyed by digits. A
/// lookup is one hash probe (two when it falls through to rule 4), allocates nothing
/// for names up to 15 bytes, and mutates nothing, so Resolve() is safe to call from
/// any number of threads.
///
/// Lifecycle: holds pointers into `feed`, which must outlive the resolver (moving the
/// feed is fine; see StaticFeed).
class RouteResolver {
 public:
  explicit RouteResolver(const StaticFeed& feed);

  [[nodiscard]] RouteResolution Resolve(std::string_view feed_route_id) const;
  /// Resolve(...).route.
  [[nodiscard]] const Route* Find(std::string_view feed_route_id) const {
    return Resolve(feed_route_id).route;
  }

 private:
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const {
      return std::hash<std::string_view>{}(text);
    }
  };
  // route == nullptr with a rule set: that rule found several routes (ambiguous).
  using Map = std::unordered_map<std::string, RouteResolution, StringHash, std::equal_to<>>;
  Map by_name_;    // rules 1–3
  Map by_digits_;  // rule 4
};

}  // namespace frota::gtfs
