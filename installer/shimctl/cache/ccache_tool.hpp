// ccache as a cache::Tool (tool.hpp): keyed by the identity snapshot through
// CCACHE_COMPILERCHECK, depend mode and sloppiness for HIP, remote storage in
// CCACHE_REMOTE_STORAGE, statistics from --print-stats, hits from its debug log.
#pragma once

#include <optional>
#include <shimctl/cache/tool.hpp>
#include <string>

namespace shimctl::cache {

[[nodiscard]] const Tool& ccache_tool();

// ccache's CCACHE_REMOTE_STORAGE for SETTINGS with REMOTE as its remote (none: nullopt): the
// shared cache's file storage, then each of REMOTE's storages ("|read-only" with
// remote_read_only). Nullopt when there is no storage at all.
[[nodiscard]] std::optional<std::string> ccache_remote_storage(
  const core::CacheSettings& settings,
  const std::optional<std::string>& remote);

// What ccache's debug log (CCACHE_LOGFILE) of one compile says about it: a hit
// ("Succeeded getting cached result", logged by every ccache 4.x whether or
// not statistics are on), else the lines that tell why not.
struct CcacheLogOutcome {
  bool hit = false;
  std::string why; // empty for a hit
};
[[nodiscard]] CcacheLogOutcome ccache_log_outcome(const std::string& log);

} // namespace shimctl::cache
