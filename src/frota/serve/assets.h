// The live page's hand-written assets and the API's OpenAPI description, embedded into the
// binary by frota_embed_files.
#pragma once

#include <string_view>

namespace frota::serve::assets {

extern const std::string_view kLiveHtml;
extern const std::string_view kLiveJs;
extern const std::string_view kLiveCss;
/// openapi.json: the OpenAPI 3.1 description of the JSON routes, served at /openapi.json.
extern const std::string_view kOpenapiJson;

}  // namespace frota::serve::assets
