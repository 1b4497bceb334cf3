// HOST:PORT addresses that servers listen on, as given on a command line or in a config.
#pragma once

#include <string>
#include <string_view>

#include "frota/base/status.h"

namespace frota::base {

/// Where a server listens: a host name or address (an IPv6 address without brackets) and
/// a port, 0 for any free one.
struct ListenAddress {
  std::string host;
  int port = 0;
};

/// Parses "127.0.0.1:8080", "0.0.0.0:80", "localhost:0" or "[::1]:9464". Errors quote
/// `text` after `what` (the flag or key it came from).
Result<ListenAddress> ParseListenAddress(std::string_view text, std::string_view what);

/// host:port as a URL writes it (brackets around an IPv6 address).
std::string FormatHostPort(std::string_view host, int port);

}  // namespace frota::base
