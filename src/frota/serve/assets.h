// The live page's hand-written assets, embedded into the binary by frota_embed_files.
#pragma once

#include <string_view>

namespace frota::serve::assets {

extern const std::string_view kLiveHtml;
extern const std::string_view kLiveJs;
extern const std::string_view kLiveCss;

}  // namespace frota::serve::assets
