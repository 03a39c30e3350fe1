#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <shimctl/cache/link_store_place.hpp>
#include <shimctl/cache/tool.hpp>
#include <shimctl/core/state_files.hpp>
#include <shimctl/core/user_cache_dir.hpp>
#include <shimctl/util/text.hpp>

namespace shimctl::cache {

namespace {

// The build's environment makes the compile cache read-only: SETTINGS' tool says so; without
// settings (no install named), any tool of the table.
bool environment_reads_only(const core::CacheSettings* settings) {
  if (settings)
    return tool_of(*settings).environment_reads_only();
  return std::ranges::any_of(tool_names(), [](std::string_view name) {
    const Tool* tool = tool_named(name);
    return tool && tool->environment_reads_only();
  });
}

} // namespace

LinkStorePlace link_store_place(const core::CacheSettings* settings) {
  LinkStorePlace place;
  place.read_only = environment_reads_only(settings) || (settings && settings->remote_read_only);
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
