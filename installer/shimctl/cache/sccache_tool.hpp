// sccache as a cache::Tool (tool.hpp): each user's own server per
// configuration (sccache_server.hpp), the identity in its cache buster and
// SCCACHE_EXTRAFILES, a Redis remote in SCCACHE_REDIS, statistics from its
// server's --show-stats, hits from a statistics delta.
#pragma once

#include <shimctl/cache/build_watch.hpp>
#include <shimctl/cache/tool.hpp>

namespace shimctl::cache {

[[nodiscard]] const Tool& sccache_tool();

// sccache's own default cache directory for this process's user: <cache home>/sccache (the cache
// home ${XDG_CACHE_HOME:-$HOME/.cache}, the one rule the shim uses too: shim/formats.h); "" when
// neither variable names one.
[[nodiscard]] std::string sccache_default_dir();

// The sccache servers the shim's measure log names (its "# shimctl-shim: sccache" records).
struct SccacheServer {
  std::string sccache; // the binary the shim ran
  std::string entry;   // SCCACHE_SERVER_UDS=<path> or SCCACHE_SERVER_PORT=<port>
  bool own = false;    // a server of this build's own (measure reads and stops it)
  std::uint64_t calls = 0;
};
// Distinct (sccache, entry), first seen first.
[[nodiscard]] std::vector<SccacheServer> sccache_servers_in_measure_log(const std::string& text);
// sccache's counts from its statistics AFTER the build, less BEFORE (nullptr: none).
[[nodiscard]] BuildCounts sccache_build_counts(const CacheStats& after, const CacheStats* before);
// sccache's watch of one build (sccache_build_watch.cpp).
[[nodiscard]] util::Result<std::unique_ptr<BuildWatch>> sccache_build_watch();

} // namespace shimctl::cache
