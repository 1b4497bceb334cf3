// The page's hand-written assets, embedded into the binary by frota_embed_files.
#pragma once

#include <string_view>

namespace frota::dashboard::assets {

/// assets/dashboard.html: the page skeleton with {{LANG}}, {{CSP}}, {{STYLE}}, {{SCRIPT}}
/// and {{DATA}} placeholders (render.cc fills them).
extern const std::string_view kDashboardHtml;
extern const std::string_view kDashboardCss;
extern const std::string_view kDashboardJs;

}  // namespace frota::dashboard::assets
