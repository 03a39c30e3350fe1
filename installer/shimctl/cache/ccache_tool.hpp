// ccache as a cache::Tool (tool.hpp): keyed by the identity snapshot through
// CCACHE_COMPILERCHECK, depend mode and sloppiness for HIP, remote storage in
// CCACHE_REMOTE_STORAGE, statistics from --print-stats, hits from its debug log.
#pragma once

#include <map>
#include <optional>
#include <shimctl/cache/build_watch.hpp>
#include <shimctl/cache/tool.hpp>
#include <string>
#include <string_view>
#include <vector>

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

// The files ccache's debug log says it served from its local storage ("Retrieved KEY from local
// storage (PATH)": the manifest, then the result) and stored there ("Stored KEY in local storage
// (PATH)"), each with a result's raw files beside it (PATH's name without ccache 4.7's "R", then
// a number and "W").
[[nodiscard]] LoggedEntries ccache_logged_entries(std::string_view log);

// ccache's stats log ("# <input>" then one counter per line): ccache's counts. Records an older
// shim wrote there ("# shimctl-shim: ran without the cache", then ccache's counter name of the
// reason) go to NOT_SENT under the shim's names, never to ccache's counts.
[[nodiscard]] BuildCounts parse_ccache_stats_log(const std::string& text,
                                                 std::map<std::string, std::uint64_t>& not_sent);
// ccache's watch of one build (ccache_build_watch.cpp).
[[nodiscard]] util::Result<std::unique_ptr<BuildWatch>> ccache_build_watch();

} // namespace shimctl::cache
