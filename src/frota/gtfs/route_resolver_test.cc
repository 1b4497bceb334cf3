#include "frota/gtfs/route_resolver.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "frota/testing/shared_data.h"

namespace frota::gtfs {
namespace {

StaticFeed MustLoad(const std::filesystem::path& path) {
  auto feed = StaticFeed::Load(path);
  EXPECT_TRUE(feed.ok()) << (feed.ok() ? "" : feed.error().message());
  return std::move(feed).value();
}

// "route_id/rule" or "unresolved", to compare resolutions in one line.
std::string Describe(const RouteResolution& resolution) {
  if (resolution.route == nullptr) {
    return std::string(RouteMatchName(resolution.match));
  }
  return resolution.route->id + "/" + std::string(RouteMatchName(resolution.match));
}

TEST(RouteResolverBrt2022, ResolvesTheArchiveServiceNames) {
  FROTA_REQUIRE_SHARED(path, "rio-brt-2022/gtfs");
  const StaticFeed feed = MustLoad(path);
  const RouteResolver resolver(feed);
  // The GPS archive's `servico` values (data/README.md) against the GTFS short names.
  EXPECT_EQ(Describe(resolver.Resolve("11N")), "B0011AAB0A/same_digits");  // → 11
  EXPECT_EQ(Describe(resolver.Resolve("13")), "B0013AAF0A/short_name");
  EXPECT_EQ(Describe(resolver.Resolve("17")), "B0017AAB0A/short_name");
  EXPECT_EQ(Describe(resolver.Resolve("18")), "B0018AAF0A/short_name");
  EXPECT_EQ(Describe(resolver.Resolve("19")), "B0019AAF0A/short_name");
  EXPECT_EQ(Describe(resolver.Resolve("35")), "B0035AABAA/same_digits");              // → A35
  EXPECT_EQ(Describe(resolver.Resolve("38N")), "B0038AAB0A/same_digits");             // → 38
  EXPECT_EQ(Describe(resolver.Resolve("53B")), "B0053AABBA/letters_moved_to_front");  // → B53
  EXPECT_EQ(Describe(resolver.Resolve("9999")), "unresolved") << "a training line";
  // Independent checks of the targets' short names.
  EXPECT_EQ(resolver.Find("35")->short_name, "A35");
  EXPECT_EQ(resolver.Find("53B")->short_name, "B53");
  EXPECT_EQ(resolver.Find("38N")->short_name, "38");
  EXPECT_EQ(resolver.Find("11N")->short_name, "11");
  // Other names.
  EXPECT_EQ(Describe(resolver.Resolve("B0053AABBA")), "B0053AABBA/route_id");
  EXPECT_EQ(Describe(resolver.Resolve("53")), "unresolved") << "A53 and B53";
  EXPECT_EQ(Describe(resolver.Resolve("53A")), "B0053AAFAA/letters_moved_to_front");
  EXPECT_EQ(Describe(resolver.Resolve("51")), "B0051AAB0A/short_name") << "51, not A51";
  EXPECT_EQ(Describe(resolver.Resolve("51X")), "B0051AAB0A/same_digits") << "the plain 51 wins";
  EXPECT_EQ(Describe(resolver.Resolve("")), "unresolved");
}

TEST(RouteResolver, AppliesTheRulesInOrderAndNeverGuesses) {
  const StaticFeed feed = MustLoad(std::filesystem::path(FROTA_GTFS_FIXTURES) / "resolver");
  const RouteResolver resolver(feed);
  EXPECT_EQ(Describe(resolver.Resolve("R_B53")), "R_B53/route_id");
  EXPECT_EQ(Describe(resolver.Resolve("B53")), "R_B53/short_name");
  EXPECT_EQ(Describe(resolver.Resolve("53B")), "R_B53/letters_moved_to_front");
  EXPECT_EQ(Describe(resolver.Resolve("53A")), "R_A53/letters_moved_to_front");
  EXPECT_EQ(Describe(resolver.Resolve("53")), "unresolved") << "A53 and B53 share the digits";
  EXPECT_EQ(Describe(resolver.Resolve("38")), "R_38/short_name");
  EXPECT_EQ(Describe(resolver.Resolve("38N")), "R_38/same_digits") << "38 beats A38X";
  EXPECT_EQ(Describe(resolver.Resolve("35")), "R_A35/same_digits");
  EXPECT_EQ(Describe(resolver.Resolve("35A")), "R_A35/letters_moved_to_front");
  EXPECT_EQ(Describe(resolver.Resolve("A35")), "A35/route_id") << "a route_id beats a short name";
  EXPECT_EQ(Describe(resolver.Resolve("11N")), "R_11/same_digits");
  EXPECT_EQ(Describe(resolver.Resolve("77")), "unresolved") << "two routes are called 77";
  EXPECT_EQ(Describe(resolver.Resolve("77X")), "unresolved");
  EXPECT_EQ(Describe(resolver.Resolve("BRT 10")), "R_BRT/short_name");
  EXPECT_EQ(Describe(resolver.Resolve("10")), "unresolved") << "'BRT 10' has more than letters";
  EXPECT_EQ(Describe(resolver.Resolve("9999")), "unresolved");
  EXPECT_EQ(Describe(resolver.Resolve("x")), "unresolved");
  EXPECT_EQ(Describe(resolver.Resolve("1-1")), "unresolved");
  EXPECT_EQ(Describe(resolver.Resolve(std::string(100, '3'))), "unresolved");
}

TEST(RouteResolver, IsSafeToShareBetweenThreads) {
  const StaticFeed feed = MustLoad(std::filesystem::path(FROTA_GTFS_FIXTURES) / "resolver");
  const RouteResolver resolver(feed);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20'000; ++i) {
        if (resolver.Find("53B") == nullptr || resolver.Find("53") != nullptr) {
          ++wrong;
        }
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace frota::gtfs
