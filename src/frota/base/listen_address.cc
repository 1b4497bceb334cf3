#include "frota/base/listen_address.h"

#include <fmt/format.h>

#include <charconv>

namespace frota::base {

Result<ListenAddress> ParseListenAddress(std::string_view text, std::string_view what) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return InvalidInput("{} '{}': expected HOST:PORT", what, text);
  }
  ListenAddress address;
  address.host = std::string(text.substr(0, colon));
  if (address.host.size() > 2 && address.host.front() == '[' && address.host.back() == ']') {
    address.host = address.host.substr(1, address.host.size() - 2);
  } else if (address.host.find(':') != std::string::npos) {
    return InvalidInput("{} '{}': write an IPv6 address in brackets, [::1]:PORT", what, text);
  }
  const std::string_view port = text.substr(colon + 1);
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), address.port);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || address.port < 0 ||
      address.port > 65535) {
    return InvalidInput("{} '{}': bad port (0 to 65535)", what, text);
  }
  return address;
}

std::string FormatHostPort(std::string_view host, int port) {
  if (host.find(':') != std::string_view::npos) {
    return fmt::format("[{}]:{}", host, port);
  }
  return fmt::format("{}:{}", host, port);
}

}  // namespace frota::base
