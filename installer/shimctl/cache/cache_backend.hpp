// The cache tool of a prefix: finding it, the environment the shim gives it, and the
// environment shimctl's own calls of it use (the rest is asked of its cache::Tool, tool.hpp).
#pragma once

#include <map>
#include <optional>
#include <shimctl/cache/tool.hpp>
#include <shimctl/core/manifest.hpp>
#include <shimctl/util/error.hpp>
#include <shimctl/util/process.hpp>
#include <string>
#include <vector>

namespace shimctl::cache {

// Finds the tool (`kind` in PATH unless PATH_OVERRIDE) and reads its version.
[[nodiscard]] util::Result<core::CacheSettings> find_cache_tool(
  const std::string& kind,
  const std::optional<std::string>& path);

// The shim's environment for SETTINGS: cache location and size, the modes
// that make HIP builds hit (depend mode, sloppiness), and the toolchain
// identity (IDENTITY_FILES: absolute paths of every input that decides the
// output; FINGERPRINT: their combined hash at install time).
[[nodiscard]] ShimEnvironment shim_environment(const core::CacheSettings& settings,
                                               const std::string& fingerprint,
                                               const std::vector<std::string>& identity_files);

// The environment a shimctl process uses to talk to the same cache as the
// shim (ccache -s, sccache --show-stats): the shim's defaults, with the
// caller's own settings taking precedence.
[[nodiscard]] std::map<std::string, std::optional<std::string>> tool_environment(
  const ShimEnvironment& env);

} // namespace shimctl::cache
