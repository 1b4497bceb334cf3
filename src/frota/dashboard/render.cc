#include "frota/dashboard/render.h"

#include <zlib.h>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <utility>

#include "frota/base/sha256.h"
#include "frota/dashboard/assets.h"

namespace frota::dashboard {

namespace {

std::string Base64(const std::uint8_t* data, std::size_t size) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  for (std::size_t i = 0; i < size; i += 3) {
    const std::uint32_t chunk = (static_cast<std::uint32_t>(data[i]) << 16) |
                                (i + 1 < size ? static_cast<std::uint32_t>(data[i + 1]) << 8 : 0) |
                                (i + 2 < size ? static_cast<std::uint32_t>(data[i + 2]) : 0);
    out += kAlphabet[(chunk >> 18) & 63];
    out += kAlphabet[(chunk >> 12) & 63];
    out += i + 1 < size ? kAlphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < size ? kAlphabet[chunk & 63] : '=';
  }
  return out;
}

/// Replaces each `{{NAME}}` of `page` with its value in one pass, so nothing inserted is
/// ever scanned for placeholders again.
std::string Fill(
    std::string_view page,
    const std::initializer_list<std::pair<std::string_view, std::string_view>>& values) {
  std::string out;
  std::size_t at = 0;
  while (true) {
    const auto open = page.find("{{", at);
    if (open == std::string_view::npos) {
      out.append(page.substr(at));
      return out;
    }
    const auto close = page.find("}}", open + 2);
    if (close == std::string_view::npos) {
      out.append(page.substr(at));
      return out;
    }
    const auto name = page.substr(open + 2, close - open - 2);
    out.append(page.substr(at, open - at));
    bool found = false;
    for (const auto& [key, value] : values) {
      if (key == name) {
        out.append(value);
        found = true;
        break;
      }
    }
    if (!found) {
      out.append(page.substr(open, close + 2 - open));
    }
    at = close + 2;
  }
}

}  // namespace

std::string Sha256Base64(std::string_view bytes) {
  const auto digest = base::Sha256(bytes);
  return Base64(digest.data(), digest.size());
}

std::string GzipBase64(std::string_view bytes) {
  z_stream stream{};
  // windowBits 15 + 16: a gzip wrapper with a zeroed header (no name, time 0).
  if (deflateInit2(&stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
    return {};
  }
  std::string out(deflateBound(&stream, static_cast<uLong>(bytes.size())) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) {
    return {};
  }
  return Base64(reinterpret_cast<const std::uint8_t*>(out.data()), out.size());
}

std::string EscapeJsonForScript(std::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 64);
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xe2' && i + 2 < json.size() && json[i + 1] == '\x80' &&
               (json[i + 2] == '\xa8' || json[i + 2] == '\xa9')) {
      out += json[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string RenderHtml(std::string_view data_json, const RenderOptions& options) {
  const std::string lang = options.lang == "en" ? "en" : "pt-BR";
  const std::string csp = "default-src 'none'; script-src 'sha256-" +
                          Sha256Base64(assets::kDashboardJs) + "'; style-src 'sha256-" +
                          Sha256Base64(assets::kDashboardCss) +
                          "'; img-src data:; base-uri 'none'; form-action 'none'";
  const std::string data =
      options.compress ? GzipBase64(data_json) : EscapeJsonForScript(data_json);
  return Fill(assets::kDashboardHtml, {{"LANG", lang},
                                       {"CSP", csp},
                                       {"STYLE", assets::kDashboardCss},
                                       {"SCRIPT", assets::kDashboardJs},
                                       {"ENCODING", options.compress ? "gzip+base64" : "json"},
                                       {"DATA", data}});
}

}  // namespace frota::dashboard
