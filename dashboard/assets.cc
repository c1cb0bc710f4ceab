// The table of built-in assets over the arrays cmake/EmbedAssets.cmake wrote.
#include "dashboard/assets.h"

#include <cstddef>

namespace sweep::assets {
#define SWEEP_ASSET(id)                     \
  extern const unsigned char kAsset_##id[]; \
  extern const size_t kAsset_##id##_size;
SWEEP_ASSET(index_html)
SWEEP_ASSET(style_css)
SWEEP_ASSET(boot_js)
SWEEP_ASSET(plot_js)
SWEEP_ASSET(views_js)
SWEEP_ASSET(front_js)
SWEEP_ASSET(study_js)
SWEEP_ASSET(compare_js)
SWEEP_ASSET(app_js)
#undef SWEEP_ASSET
}  // namespace sweep::assets

namespace sweep {
namespace {

std::string_view Bytes(const unsigned char* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace

const std::vector<Asset>& Assets() {
  using namespace assets;
  // Types carry a charset; nothing is compressed on the fly (on loopback,
  // where the dashboard usually runs, it would cost more than it gains).
  static const std::vector<Asset> all = {
      {"index.html", "text/html; charset=utf-8", Bytes(kAsset_index_html, kAsset_index_html_size)},
      {"style.css", "text/css; charset=utf-8", Bytes(kAsset_style_css, kAsset_style_css_size)},
      {"boot.js", "application/javascript; charset=utf-8",
       Bytes(kAsset_boot_js, kAsset_boot_js_size)},
      {"plot.js", "application/javascript; charset=utf-8",
       Bytes(kAsset_plot_js, kAsset_plot_js_size)},
      {"views.js", "application/javascript; charset=utf-8",
       Bytes(kAsset_views_js, kAsset_views_js_size)},
      {"front.js", "application/javascript; charset=utf-8",
       Bytes(kAsset_front_js, kAsset_front_js_size)},
      {"study.js", "application/javascript; charset=utf-8",
       Bytes(kAsset_study_js, kAsset_study_js_size)},
      {"compare.js", "application/javascript; charset=utf-8",
       Bytes(kAsset_compare_js, kAsset_compare_js_size)},
      {"app.js", "application/javascript; charset=utf-8", Bytes(kAsset_app_js, kAsset_app_js_size)},
  };
  return all;
}

const Asset* FindAsset(std::string_view name) {
  for (const Asset& a : Assets())
    if (a.name == name) return &a;
  return nullptr;
}

const std::vector<std::string_view>& ScriptOrder() {
  static const std::vector<std::string_view> order = {"plot.js",  "views.js",   "front.js",
                                                      "study.js", "compare.js", "app.js"};
  return order;
}

}  // namespace sweep
