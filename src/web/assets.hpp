// The web page's files (src/web/assets/), embedded in the binary at build time by
// embed_assets.cmake, so the page needs no files on disk, no build step and no internet.
#pragma once

#include <span>
#include <string_view>

namespace sparse::web {

struct Asset {
  std::string_view name;  // file name, e.g. "app.js"
  std::string_view content_type;
  std::string_view data;
};

std::span<const Asset> Assets();
const Asset* FindAsset(std::string_view name);  // nullptr when there is none
// The Content-Type for a file name, by its extension.
std::string_view ContentTypeFor(std::string_view name);

}  // namespace sparse::web
