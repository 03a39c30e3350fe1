// The cache tools the shim can hand compiles to (ccache, sccache): finding
// them, the environment the shim gives them, and reading their statistics.
#pragma once

#include <map>
#include <optional>
#include <shimctl/core/manifest.hpp>
#include <shimctl/util/error.hpp>
#include <shimctl/util/process.hpp>
#include <string>
#include <vector>

namespace shimctl::cache {

struct ShimEnvironment {
  std::vector<std::string> defaults; // NAME=VALUE, applied where NAME is unset
  std::vector<std::string> appends;  // NAME=VALUE, appended with ':' to NAME
  // NAME=VALUE lines of the prefix's secrets file (secrets.hpp), where a caller
  // read them: never rendered into a config; they win over DEFAULTS.
  std::vector<std::string> secrets;
  // ccache: the shim keys the cache by the identity snapshot and asks this
  // shimctl to re-check a stale one (identity/identity_snapshot.hpp).
  std::string identity_helper;
  // sccache: each user's own server for this configuration (sccache_server.hpp):
  // transport (SHIMCTL_SCCACHE_UNIX or _TCP) and key; empty for ccache.
  std::string sccache_transport;
  std::string sccache_key;
};

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

// Counters of the cache the tool uses under ENV: hits, misses and so on.
struct CacheStats {
  std::map<std::string, std::uint64_t> counters;
  [[nodiscard]] std::uint64_t get(const std::string& name) const;
  [[nodiscard]] std::uint64_t hits() const;
  [[nodiscard]] std::uint64_t misses() const;
};
[[nodiscard]] util::Result<CacheStats> read_stats(const core::CacheSettings& settings,
                                                  const util::RunOptions& options);

// Where the cache keeps its files for this settings/environment.
[[nodiscard]] std::string cache_location(const core::CacheSettings& settings,
                                         const util::RunOptions& options);

} // namespace shimctl::cache
