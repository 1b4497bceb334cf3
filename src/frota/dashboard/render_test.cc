// The page: hostile data stays inert, the CSP allows exactly the embedded assets, no network.
#include "frota/dashboard/render.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "frota/dashboard/assets.h"

namespace frota::dashboard {
namespace {

std::size_t Count(std::string_view text, std::string_view needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

TEST(Sha256, MatchesTheStandardTestVectors) {
  EXPECT_EQ(Sha256Base64(""), "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
  EXPECT_EQ(Sha256Base64("abc"), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
  // 56 bytes: the padding needs a second block.
  EXPECT_EQ(Sha256Base64("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "JI1qYdIGOLjlwCaTDD5gOaM85Flk/yFn9uzt1BnbBsE=");
}

TEST(EscapeJsonForScript, LeavesNoCharacterThatHtmlOrJavaScriptWouldReadSpecially) {
  const std::string json = nlohmann::json({{"route", "</script><script>alert('x')</script>"},
                                           {"note", "a & b <!-- c --> \xE2\x80\xA8 \xE2\x80\xA9"}})
                               .dump();
  const std::string escaped = EscapeJsonForScript(json);
  EXPECT_EQ(escaped.find('<'), std::string::npos);
  EXPECT_EQ(escaped.find('>'), std::string::npos);
  EXPECT_EQ(escaped.find('&'), std::string::npos);
  EXPECT_EQ(escaped.find("\xE2\x80\xA8"), std::string::npos);
  EXPECT_EQ(escaped.find("\xE2\x80\xA9"), std::string::npos);
  // Still the same JSON value.
  EXPECT_EQ(nlohmann::json::parse(escaped), nlohmann::json::parse(json));
}

TEST(RenderHtml, HostileDataCannotCloseTheDataBlock) {
  const std::string data =
      nlohmann::json({{"version", 1}, {"x", "</script><script>alert(1)</script>{{SCRIPT}}"}})
          .dump();
  const std::string html = RenderHtml(data, {"pt-BR", /*compress=*/false});
  EXPECT_NE(html.find("data-encoding=\"json\""), std::string::npos);
  // Exactly the two script elements of the template: the data block and the code.
  EXPECT_EQ(Count(html, "</script>"), 2U);
  EXPECT_EQ(Count(html, "<script"), 2U);
  // The data is inserted once, as data: its placeholder text is not expanded again.
  EXPECT_NE(html.find("{{SCRIPT}}"), std::string::npos);
  EXPECT_EQ(Count(html, "{{"), 1U);
}

std::string Inflate(const std::string& base64) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (const char c : base64) {
    if (c == '=') {
      break;
    }
    buffer = (buffer << 6) | static_cast<std::uint32_t>(kAlphabet.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  z_stream stream{};
  inflateInit2(&stream, 15 + 16);
  std::string out(1 << 20, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  inflateEnd(&stream);
  return out;
}

TEST(RenderHtml, CompressedDataInflatesToTheDocumentAndIsDeterministic) {
  const std::string data =
      nlohmann::json({{"version", 1}, {"x", "</script> \xF0\x9F\x9A\x8C"}, {"n", 12345}}).dump();
  const std::string html = RenderHtml(data);
  std::smatch block;
  ASSERT_TRUE(std::regex_search(
      html, block, std::regex("data-encoding=\"gzip\\+base64\">([A-Za-z0-9+/=]*)</script>")));
  EXPECT_EQ(Inflate(block[1]), data);
  EXPECT_EQ(RenderHtml(data), html);
  EXPECT_EQ(Count(html, "</script>"), 2U);
}

TEST(RenderHtml, ContentSecurityPolicyPinsTheEmbeddedScriptAndStyleAndAllowsNoNetwork) {
  const std::string html = RenderHtml(R"({"version":1})");
  std::smatch csp;
  ASSERT_TRUE(std::regex_search(html, csp, std::regex("content=\"(default-src[^\"]*)\"")));
  const std::string policy = csp[1];
  EXPECT_NE(policy.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(policy.find("'sha256-" + Sha256Base64(assets::kDashboardJs) + "'"), std::string::npos);
  EXPECT_NE(policy.find("'sha256-" + Sha256Base64(assets::kDashboardCss) + "'"), std::string::npos);
  EXPECT_EQ(policy.find("unsafe"), std::string::npos);
  EXPECT_EQ(policy.find("connect-src"), std::string::npos);  // falls back to 'none'
  // The script element holds the asset byte for byte, so the hash matches.
  EXPECT_NE(html.find("<script>" + std::string(assets::kDashboardJs) + "</script>"),
            std::string::npos);
}

TEST(RenderHtml, OpensInTheRequestedLanguage) {
  EXPECT_NE(RenderHtml("{}").find("<html lang=\"pt-BR\">"), std::string::npos);
  EXPECT_NE(RenderHtml("{}", {"en"}).find("<html lang=\"en\">"), std::string::npos);
  EXPECT_NE(RenderHtml("{}", {"\"><script>"}).find("<html lang=\"pt-BR\">"), std::string::npos);
}

TEST(DashboardAssets, ScriptNeverTurnsDataIntoMarkupOrCode) {
  const std::string_view js = assets::kDashboardJs;
  for (const char* sink : {".innerHTML", ".outerHTML", "insertAdjacentHTML", "document.write",
                           "eval(", "new Function", "setTimeout(\"", "srcdoc", "javascript:"}) {
    EXPECT_EQ(js.find(sink), std::string_view::npos) << "dashboard.js uses " << sink;
  }
  EXPECT_EQ(js.find("</script"), std::string_view::npos);
  EXPECT_EQ(assets::kDashboardCss.find("</style"), std::string_view::npos);
}

TEST(DashboardAssets, MakeNoNetworkRequests) {
  for (const std::string_view asset :
       {assets::kDashboardJs, assets::kDashboardCss, assets::kDashboardHtml}) {
    for (const char* call : {"fetch(", "XMLHttpRequest", "WebSocket", "EventSource", "import(",
                             "sendBeacon", "url(", "@import", "https://"}) {
      EXPECT_EQ(asset.find(call), std::string_view::npos) << call;
    }
    // The only URL is the SVG namespace, which is a name, not a request.
    std::string rest(asset);
    for (auto at = rest.find("http://"); at != std::string::npos;
         at = rest.find("http://", at + 1)) {
      EXPECT_EQ(rest.compare(at, 26, "http://www.w3.org/2000/svg"), 0) << rest.substr(at, 40);
    }
  }
}

}  // namespace
}  // namespace frota::dashboard
