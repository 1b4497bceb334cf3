#include <gtest/gtest.h>

#include <set>

#include "frota/model/mode.h"
#include "frota/model/rejection.h"
#include "frota/model/source.h"

namespace frota::model {
namespace {

TEST(RejectReason, EveryReasonHasAUniqueNameThatParsesBack) {
  std::set<std::string_view> names;
  for (const auto reason : kAllRejectReasons) {
    const auto name = RejectReasonName(reason);
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_EQ(ParseRejectReason(name), reason);
  }
  EXPECT_EQ(names.size(), kRejectReasonCount);
  EXPECT_EQ(RejectReasonName(RejectReason::kTimestampInMilliseconds), "timestamp_in_milliseconds");
}

TEST(Mode, GtfsRouteTypesMapToModes) {
  EXPECT_EQ(ModeFromGtfsRouteType(3), Mode::kBus);
  EXPECT_EQ(ModeFromGtfsRouteType(2), Mode::kRail);
  EXPECT_EQ(ModeFromGtfsRouteType(4), Mode::kFerry);
  EXPECT_EQ(ModeFromGtfsRouteType(700), Mode::kBus);
  EXPECT_EQ(ParseMode("brt"), Mode::kBrt);
  EXPECT_EQ(ParseMode("tram"), std::nullopt);
}

TEST(SourceCatalog, InterningTheSameNameGivesTheSameId) {
  SourceCatalog catalog;
  const auto a = catalog.Intern("13.csv.gz");
  const auto b = catalog.Intern("18.csv.gz");
  EXPECT_NE(a, b);
  EXPECT_EQ(catalog.Intern("13.csv.gz"), a);
  EXPECT_EQ(catalog.Name(b), "18.csv.gz");
}

}  // namespace
}  // namespace frota::model
