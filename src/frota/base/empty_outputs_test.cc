#include "frota/base/empty_outputs.h"

#include <gtest/gtest.h>

namespace frota::base {
namespace {

TEST(EmptyOutputs, NamesExactlyTheOutputsWithNoRecordsInTheOrderGiven) {
  EXPECT_EQ(EmptyOutputs({{"valid", 0}, {"rejected", 3}}), std::vector<std::string>{"valid"});
  EXPECT_EQ(EmptyOutputs({{"valid", 5}, {"rejected", 0}}), std::vector<std::string>{"rejected"});
  EXPECT_EQ(EmptyOutputs({{"valid", 0}, {"rejected", 0}}),
            (std::vector<std::string>{"valid", "rejected"}));
  EXPECT_TRUE(EmptyOutputs({{"valid", 1}, {"rejected", 1}}).empty());
}

}  // namespace
}  // namespace frota::base
