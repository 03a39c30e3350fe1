// One build's counts of a cache tool (`shimctl measure`, build/build_stats.hpp), as the tool
// itself counted them, and how each tool watches a build for them (cache::Tool::watch_build):
// ccache through a stats log of the build's own, sccache through the servers the shims started
// for the build (and the one the user chose, read before and after).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shimctl::cache {

struct BuildCounts {
  std::uint64_t calls = 0;  // calls the tool saw (ccache's records; sccache's compile_requests)
  std::uint64_t hits = 0;   // ccache: direct + preprocessed hits; sccache: cache_hits
  std::uint64_t misses = 0; // ccache: cache_miss; sccache: cache_misses
  std::map<std::string, std::uint64_t> uncacheable; // the tool's own counter names
  [[nodiscard]] std::uint64_t compiles() const {
    return hits + misses;
  }
  void add(const BuildCounts& other);
};

class BuildWatch {
public:
  virtual ~BuildWatch() = default;
  // NAME=VALUE entries the build runs with (each replaces its name in the build's environment).
  [[nodiscard]] virtual std::vector<std::string> environment() const {
    return {};
  }
  // After the build, with the text of the shim's log (SHIMCTL_MEASURE_LOG): the tool's counts,
  // nullopt when none of the build's calls reached it. NOT_SENT gets what older shims wrote into
  // the tool's own log, by the shim's reason names; WARNINGS what makes the counts more than
  // the build's alone.
  [[nodiscard]] virtual std::optional<BuildCounts> counts(
    const std::string& shim_log,
    std::map<std::string, std::uint64_t>& not_sent,
    std::vector<std::string>& warnings) = 0;
};

} // namespace shimctl::cache
