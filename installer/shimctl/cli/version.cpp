// `shimctl --version`: shimctl's version, the shim's (read from the binary's
// embedded "@(#)shimctl-shim X" string, never by running it) and the cache
// tool `install` would use by default.
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/cli/version.hpp>
#include <shimctl/core/test_hooks.hpp>

namespace shimctl::cli {

std::string shim_version(const std::string& shim_binary) {
  std::ifstream in(shim_binary, std::ios::binary);
  if (!in)
    return "";
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  constexpr std::string_view marker = "@(#)shimctl-shim ";
  auto at = bytes.find(marker);
  if (at == std::string::npos)
    return "";
  auto start = at + marker.size();
  auto end = bytes.find('\0', start);
  if (end == std::string::npos || end - start > 64)
    return "";
  return bytes.substr(start, end - start);
}

std::string version_text(const core::Context& context) {
  std::string text = fmt::format("shimctl {}\n", context.version);
  auto shim = shim_version(context.shim_binary);
  text += shim.empty()
            ? fmt::format("shim: not found at {} (reinstall shimctl)\n", context.shim_binary)
            : fmt::format("shim: shimctl-shim {} ({})\n", shim, context.shim_binary);
  auto cache = cache::find_cache_tool(std::string(cache::default_tool().name()), std::nullopt);
  text += cache ? fmt::format("cache: {} {} ({})", cache->kind, cache->version, cache->path)
                : std::string("cache: ccache not found (apt-get install ccache, or pass "
                              "--cache-tool PATH / --cache sccache to install)");
  if (core::test_hooks::enabled()) // a test build (-DSHIMCTL_TEST_HOOKS=ON), never a release
    text += "\ntest hooks: on (faults injected from the environment: not for production use)";
  return text;
}

} // namespace shimctl::cli
