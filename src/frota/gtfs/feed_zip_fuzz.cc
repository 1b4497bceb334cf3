// Fuzz target: loading a GTFS zip from arbitrary bytes fails cleanly or yields a
// feed whose counts agree with its tables.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "frota/gtfs/route_resolver.h"
#include "frota/gtfs/static_feed.h"
#include "frota/gtfs/terminals.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto feed = frota::gtfs::StaticFeed::LoadZipBytes(
      std::string(reinterpret_cast<const char*>(data), size), "fuzz.zip");
  if (!feed.ok()) {
    return 0;
  }
  const auto counts = feed->counts();
  if (counts.routes != static_cast<std::int64_t>(feed->routes().size()) || counts.agencies < 1 ||
      counts.stop_times < static_cast<std::int64_t>(feed->first_stop_departures().size())) {
    std::abort();
  }
  const frota::gtfs::RouteResolver resolver(*feed);
  const frota::gtfs::TerminalIndex terminals(*feed, resolver);
  for (const auto& route : feed->routes()) {
    if (resolver.Find(route.id) == nullptr) {
      std::abort();  // rule 1 always finds a route by its own id
    }
    (void)terminals.NearTerminal(route.short_name, 0, 0);
  }
  (void)feed->ActiveServices(frota::base::LocalDate(std::chrono::days(19'000)));
  return 0;
}
