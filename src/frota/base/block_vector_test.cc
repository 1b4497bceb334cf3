#include "frota/base/block_vector.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace frota::base {
namespace {

TEST(BlockVector, KeepsElementsInPlaceAcrossBlocks) {
  BlockVector<std::string, 3> v;  // blocks of 8
  std::vector<const std::string*> addresses;
  for (int i = 0; i < 100; ++i) {
    v.emplace_back() = "element " + std::to_string(i);
    addresses.push_back(&v[static_cast<std::size_t>(i)]);
  }
  ASSERT_EQ(v.size(), 100U);
  for (std::size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(v[i], "element " + std::to_string(i));
    EXPECT_EQ(&v[i], addresses[i]) << "element " << i << " moved";
  }
}

TEST(BlockVector, ValueInitialisesAndDestroysEveryElement) {
  auto counter = std::make_shared<int>(0);
  {
    BlockVector<std::shared_ptr<int>, 2> v;
    for (int i = 0; i < 9; ++i) {
      EXPECT_EQ(v.emplace_back(), nullptr);
      v[static_cast<std::size_t>(i)] = counter;
    }
    EXPECT_EQ(counter.use_count(), 10);
    BlockVector<std::shared_ptr<int>, 2> moved = std::move(v);
    EXPECT_EQ(v.size(), 0U);  // NOLINT(bugprone-use-after-move): moved-from is empty
    EXPECT_EQ(moved.size(), 9U);
    EXPECT_EQ(counter.use_count(), 10);
    v = std::move(moved);
    EXPECT_EQ(v.size(), 9U);
    v.clear();
    EXPECT_EQ(counter.use_count(), 1);
    v.emplace_back() = counter;
  }
  EXPECT_EQ(counter.use_count(), 1);
}

}  // namespace
}  // namespace frota::base
