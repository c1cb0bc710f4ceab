// The dashboard's page, scripts and styles, built into the binary from
// dashboard/web/ (cmake/EmbedAssets.cmake), so nothing is fetched from
// anywhere at run time and the report can inline them.
#pragma once

#include <string_view>
#include <vector>

namespace sweep {

struct Asset {
  std::string_view name;          // "app.js", served as /assets/app.js
  std::string_view content_type;  // with its charset
  std::string_view body;
};

// Every asset, the page (index.html) first.
const std::vector<Asset>& Assets();
// The asset named `name`, or nullptr.
const Asset* FindAsset(std::string_view name);
// The scripts in the order the page loads them.
const std::vector<std::string_view>& ScriptOrder();

}  // namespace sweep
