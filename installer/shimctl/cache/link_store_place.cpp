#include <array>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <shimctl/cache/link_store_place.hpp>
#include <shimctl/cache/tool.hpp>
#include <shimctl/core/state_files.hpp>
#include <shimctl/core/user_cache_dir.hpp>
#include <shimctl/util/text.hpp>
#include <strings.h>

namespace shimctl::cache {

bool ccache_reads_only(const char* value) {
  if (!value)
    return false;
  constexpr std::array<const char*, 4> false_values = { "0", "false", "disable", "no" };
  for (const char* no : false_values)
    if (::strcasecmp(value, no) == 0)
      return false;
  return true;
}

LinkStorePlace link_store_place(const core::CacheSettings* settings) {
  LinkStorePlace place;
  place.read_only =
    ccache_reads_only(std::getenv("CCACHE_READONLY")) || (settings && settings->remote_read_only);
  if (settings && settings->shared_group && settings->dir) {
    place.dir = fmt::format("{}/{}", *settings->dir, shared_store_name);
    place.shared = true;
  } else {
    place.dir = core::user_cache_dir(users_store_name);
  }
  return place;
}

util::Result<LinkStorePlace> link_store_place_of_link() {
  const char* state = std::getenv("SHIMCTL_LINK_STATE");
  if (!state || !*state)
    return link_store_place(nullptr);
  std::string path = fmt::format("{}/{}", state, core::manifest_file);
  std::string prefix = std::filesystem::path(state).parent_path().string();
  std::vector<std::string> tools;
  for (auto name : cache::tool_names())
    tools.emplace_back(name);
  auto manifest = core::parse_manifest(util::read_text_file(path), prefix, tools);
  if (!manifest)
    return std::unexpected(util::Error{
      fmt::format("cannot read {}: {}", path, manifest.error().message), util::ExitCode::failure });
  return link_store_place(&manifest->cache);
}

} // namespace shimctl::cache
