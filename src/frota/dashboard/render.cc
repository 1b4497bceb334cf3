#include "frota/dashboard/render.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <zlib.h>

#include "frota/dashboard/assets.h"

namespace frota::dashboard {

namespace {

// SHA-256 as FIPS 180-4 defines it; only the page's CSP hashes need it.
class Sha256 {
 public:
  void Update(std::string_view bytes) {
    for (const char c : bytes) {
      block_[block_size_++] = static_cast<std::uint8_t>(c);
      if (block_size_ == 64) {
        Compress();
        block_size_ = 0;
      }
    }
    length_bits_ += static_cast<std::uint64_t>(bytes.size()) * 8;
  }

  std::array<std::uint8_t, 32> Finish() {
    const std::uint64_t length_bits = length_bits_;
    block_[block_size_++] = 0x80;
    if (block_size_ > 56) {
      while (block_size_ < 64) {
        block_[block_size_++] = 0;
      }
      Compress();
      block_size_ = 0;
    }
    while (block_size_ < 56) {
      block_[block_size_++] = 0;
    }
    for (int i = 7; i >= 0; --i) {
      block_[block_size_++] = static_cast<std::uint8_t>(length_bits >> (i * 8));
    }
    Compress();
    std::array<std::uint8_t, 32> digest{};
    for (std::size_t i = 0; i < 8; ++i) {
      for (std::size_t b = 0; b < 4; ++b) {
        digest[i * 4 + b] = static_cast<std::uint8_t>(state_[i] >> (24 - b * 8));
      }
    }
    return digest;
  }

 private:
  static std::uint32_t Rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

  void Compress() {
    static constexpr std::array<std::uint32_t, 64> kRound = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};
    std::array<std::uint32_t, 64> w{};
    for (std::size_t i = 0; i < 16; ++i) {
      w[i] = (static_cast<std::uint32_t>(block_[i * 4]) << 24) |
             (static_cast<std::uint32_t>(block_[i * 4 + 1]) << 16) |
             (static_cast<std::uint32_t>(block_[i * 4 + 2]) << 8) |
             static_cast<std::uint32_t>(block_[i * 4 + 3]);
    }
    for (std::size_t i = 16; i < 64; ++i) {
      const std::uint32_t s0 = Rotr(w[i - 15], 7) ^ Rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = Rotr(w[i - 2], 17) ^ Rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3], e = state_[4],
                  f = state_[5], g = state_[6], h = state_[7];
    for (std::size_t i = 0; i < 64; ++i) {
      const std::uint32_t s1 = Rotr(e, 6) ^ Rotr(e, 11) ^ Rotr(e, 25);
      const std::uint32_t choose = (e & f) ^ (~e & g);
      const std::uint32_t t1 = h + s1 + choose + kRound[i] + w[i];
      const std::uint32_t s0 = Rotr(a, 2) ^ Rotr(a, 13) ^ Rotr(a, 22);
      const std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
      const std::uint32_t t2 = s0 + majority;
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    state_[0] += a;
    state_[1] += b;
    state_[2] += c;
    state_[3] += d;
    state_[4] += e;
    state_[5] += f;
    state_[6] += g;
    state_[7] += h;
  }

  std::array<std::uint32_t, 8> state_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<std::uint8_t, 64> block_{};
  std::size_t block_size_ = 0;
  std::uint64_t length_bits_ = 0;
};

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
std::string Fill(std::string_view page,
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
  Sha256 hash;
  hash.Update(bytes);
  const auto digest = hash.Finish();
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
