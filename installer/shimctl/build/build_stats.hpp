// `shimctl measure`: one build's own cache statistics, each tool's counts from the tool itself.
// The build runs with two private logs in its environment (the shim passes it on):
// - CCACHE_STATSLOG: ccache appends a record per call (the input file, then its counters);
//   ccache's calls, hits, misses and not-cacheable counters are these records' alone.
// - SHIMCTL_MEASURE_LOG (shim/formats.h): the shim appends a record per call it ran without the
//   cache tool (a link, -E, a fallback such as an unwritable cache dir: `not_sent`, by reason)
//   and per call it handed to sccache, naming the sccache binary and the server it used. Under
//   measure the shim starts fresh sccache servers named after that log (same settings and
//   store: hits are real hits), so their statistics are the build's alone: measure reads each
//   one's (`sccache --show-stats`, cache::read_stats) after the build, then stops it.
// A server the user chose (SCCACHE_SERVER_UDS/PORT in the environment) is left running: its
// statistics are read before the build (with the sccache in PATH) and after it, and the
// difference is reported with a warning that other clients' compiles in that time count too.
// Nobody's statistics are zeroed. The shim's own calls never count as a tool's. Under
// SHIMCTL_DISABLE=1 the shims record nothing (a warning says so).
#pragma once

#include <cstdint>
#include <map>
#include <shimctl/util/error.hpp>
#include <string>
#include <vector>

namespace shimctl::cache {
struct CacheStats;
}

namespace shimctl::build {

// One cache tool's counts for the build, as the tool counted them.
struct ToolCounts {
  std::uint64_t calls = 0;  // calls the tool saw (ccache's records; sccache's compile_requests)
  std::uint64_t hits = 0;   // ccache: direct + preprocessed hits; sccache: cache_hits
  std::uint64_t misses = 0; // ccache: cache_miss; sccache: cache_misses
  std::map<std::string, std::uint64_t> uncacheable; // the tool's own counter names
  [[nodiscard]] std::uint64_t compiles() const {
    return hits + misses;
  }
  void add(const ToolCounts& other);
};

struct BuildStats {
  int exit_code = 0; // the build's (128+N when killed by signal N)
  // Per tool (keyed by cache::Tool::name()): those the build's calls reached.
  std::map<std::string, ToolCounts> tools;
  // Calls the shim ran without the cache tool, by reason (formats.h: link, preprocess, ...).
  std::map<std::string, std::uint64_t> not_sent;
  // Per-target pieces (pieces/piece_counts.hpp: piece_hit, piece_miss, split_compile), apart
  // from TOOLS' counts, which are of whole objects.
  std::map<std::string, std::uint64_t> pieces;
  std::vector<std::string> warnings;
  // The sums over TOOLS.
  [[nodiscard]] ToolCounts total() const;
  // The tools' names joined with '+' (e.g. ccache+sccache); "none" when no call reached a tool.
  [[nodiscard]] std::string tool() const;
  [[nodiscard]] double hit_rate() const;
};

// ccache's stats log ("# <input>" then one counter per line): ccache's counts. Records an older
// shim wrote there ("# shimctl-shim: ran without the cache", then ccache's counter name of the
// reason) go to NOT_SENT under the shim's names, never to ccache's counts.
[[nodiscard]] ToolCounts parse_stats_log(const std::string& text,
                                         std::map<std::string, std::uint64_t>& not_sent);

// The shim's log (SHIMCTL_MEASURE_LOG).
struct SccacheServer {
  std::string sccache; // the binary the shim ran
  std::string entry;   // SCCACHE_SERVER_UDS=<path> or SCCACHE_SERVER_PORT=<port>
  bool own = false;    // a server of this build's own (measure reads and stops it)
  std::uint64_t calls = 0;
};
struct ShimRecords {
  std::map<std::string, std::uint64_t> not_sent;
  std::vector<SccacheServer> sccache_servers; // distinct (sccache, entry), first seen first
};
[[nodiscard]] ShimRecords parse_measure_log(const std::string& text);

// sccache's counts from its statistics AFTER the build, less BEFORE (nullptr: none).
[[nodiscard]] ToolCounts sccache_counts(const cache::CacheStats& after,
                                        const cache::CacheStats* before);

enum class BuildStdout { inherit, to_stderr };

// Runs ARGV (searched in PATH) with stdin/stderr inherited and the private logs.
[[nodiscard]] util::Result<BuildStats> measure_build(const std::vector<std::string>& argv,
                                                     BuildStdout out);

} // namespace shimctl::build
