#include "frota/base/listen_address.h"

#include <gtest/gtest.h>

namespace frota::base {
namespace {

TEST(ListenAddress, ParsesHostAndPort) {
  const auto any = ParseListenAddress("0.0.0.0:8000", "--listen");
  ASSERT_TRUE(any.ok()) << any.error().message();
  EXPECT_EQ(any->host, "0.0.0.0");
  EXPECT_EQ(any->port, 8000);
  const auto free = ParseListenAddress("localhost:0", "--listen");
  ASSERT_TRUE(free.ok());
  EXPECT_EQ(free->host, "localhost");
  EXPECT_EQ(free->port, 0);
}

TEST(ListenAddress, TakesAnIpv6AddressInBrackets) {
  const auto v6 = ParseListenAddress("[::1]:9464", "metrics_listen");
  ASSERT_TRUE(v6.ok()) << v6.error().message();
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 9464);
  EXPECT_EQ(FormatHostPort(v6->host, v6->port), "[::1]:9464");
  EXPECT_EQ(FormatHostPort("127.0.0.1", 80), "127.0.0.1:80");
}

TEST(ListenAddress, RefusesWhatIsNotHostColonPort) {
  for (const char* text :
       {"8000", ":8000", "host:", "host:http", "host:65536", "host:-1", "host:80x", "::1:80"}) {
    const auto parsed = ParseListenAddress(text, "--listen");
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_NE(parsed.error().message().find(text), std::string::npos) << parsed.error().message();
    EXPECT_EQ(parsed.error().message().rfind("--listen '", 0), 0U) << parsed.error().message();
  }
}

}  // namespace
}  // namespace frota::base
