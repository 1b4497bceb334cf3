// The dashboard page: the embedded assets and the data model assembled into one safe HTML file.
#pragma once

#include <string>
#include <string_view>

namespace frota::dashboard {

struct RenderOptions {
  /// The language the page opens in: "pt-BR" or "en" (the reader can switch; the URL keeps it).
  std::string lang = "pt-BR";
  /// Embed the data gzip-compressed and base64-encoded (the page inflates it with the
  /// browser's DecompressionStream): about a fifth of the size, which keeps a city-scale
  /// day under the size budget. Off: the JSON text itself, escaped.
  bool compress = true;
};

/// One self-contained HTML document: the hand-written HTML, CSS and JavaScript of
/// assets/ with `data_json` (BuildDataModel's document) embedded as a data block
/// (`<script id="frota-data" type="application/octet-stream" data-encoding="...">`).
///
/// Safety, in layers: (1) the JSON text is escaped so that no string in the data can end
/// the script element or start a comment (EscapeJsonForScript); (2) the script only ever
/// puts data into the page as text (textContent, attributes), never as markup; (3) a
/// Content-Security-Policy allows exactly the embedded script and style (by SHA-256) and
/// no network at all, so even markup that slipped in could not run or call home.
std::string RenderHtml(std::string_view data_json, const RenderOptions& options = {});

/// JSON text made inert inside `<script type="application/json">`: `<`, `>` and `&` become
/// \u003c, \u003e, \u0026 and U+2028/U+2029 become \u2028/\u2029. Still the same JSON value:
/// those characters can only occur inside JSON strings, where the escapes mean the same.
std::string EscapeJsonForScript(std::string_view json);

/// The CSP source hash form of `bytes`: base64 of its SHA-256 digest.
std::string Sha256Base64(std::string_view bytes);

/// `bytes` as a gzip member (deflate level 9, no name, modification time 0: the same bytes
/// give the same output), base64-encoded.
std::string GzipBase64(std::string_view bytes);

}  // namespace frota::dashboard
