// What one build needs of its caches: the bytes of the entries it wrote or used. A cache tool
// touches an entry it serves (ccache and sccache keep their LRU order by mtime), so after a build
// the entries whose mtime is not older than the build's start are the build's, hit or miss.
// `shimctl measure` learns them (the shim names each call's cache dir in its log) and keeps them
// per cache dir; `shimctl install --max-size` warns when its limit is below them.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace shimctl::build {

struct BuildNeed {
  std::string dir;         // the cache directory
  std::uint64_t bytes = 0; // its entries the build wrote or used
  std::uint64_t files = 0; // how many
  long long measured = 0;  // when (unix seconds)
};

// The cache dirs the shim named in measure's log (SHIMCTL_MEASURE_CACHE_DIR).
[[nodiscard]] std::set<std::string> cache_dirs_in_measure_log(const std::string& text);

// DIR's entries (not the tool's bookkeeping: cache::travels) modified at or after SINCE_NS
// (nanoseconds since the epoch).
[[nodiscard]] BuildNeed build_need(const std::string& dir, long long since_ns);

// Kept in the user's cache home (build-needs/, one file per cache dir), replacing the last.
void keep_build_need(const BuildNeed& need);

// The last one kept for DIR, nullopt when none (or unreadable).
[[nodiscard]] std::optional<BuildNeed> kept_build_need(const std::string& dir);

} // namespace shimctl::build
