// `shimctl measure`: one build's own cache statistics, each tool's counts from the tool itself.
// Each cache tool watches the build (cache/build_watch.hpp: ccache through a stats log of the
// build's own, sccache through the servers the shims start for it), and the build runs with the
// shim's log in its environment too (SHIMCTL_MEASURE_LOG, shim/formats.h): the shim appends a
// record per call it ran without the cache tool (a link, -E, a fallback such as an unwritable
// cache dir: `not_sent`, by reason) and per call it handed to sccache. Nobody's statistics are
// zeroed. The shim's own calls never count as a tool's. Under SHIMCTL_DISABLE=1 the shims
// record nothing (a warning says so).
#pragma once
#include <cstdint>
#include <map>
#include <shimctl/build/build_needs.hpp>
#include <shimctl/cache/build_watch.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <vector>

namespace shimctl::build {

struct BuildStats {
  int exit_code = 0; // the build's (128+N when killed by signal N)
  // Per tool (keyed by cache::Tool::name()): those the build's calls reached.
  std::map<std::string, cache::BuildCounts> tools;
  // Calls the shim ran without the cache tool, by reason (formats.h: link, preprocess, ...).
  std::map<std::string, std::uint64_t> not_sent;
  // Per-target pieces (pieces/piece_counts.hpp: piece_hit, piece_miss, split_compile), apart
  // from TOOLS' counts, which are of whole objects.
  std::map<std::string, std::uint64_t> pieces;
  // Device links per GPU target (links/link_store.hpp: link_hit, link_miss, link_uncached).
  std::map<std::string, std::uint64_t> device_links;
  // The compile records the build's misses wrote (records/, `shimctl explain`), by path.
  std::vector<std::string> miss_records;
  // What the build needed of each cache dir its calls used (build_needs.hpp); kept when it ran
  // to its end (exit code 0).
  std::vector<BuildNeed> needs;
  std::vector<std::string> warnings;
  // The sums over TOOLS.
  [[nodiscard]] cache::BuildCounts total() const;
  // The tools' names joined with '+' (e.g. ccache+sccache); "none" when no call reached a tool.
  [[nodiscard]] std::string tool() const;
  [[nodiscard]] double hit_rate() const;
};

// The shim's log (SHIMCTL_MEASURE_LOG): the calls it ran without the cache tool, by reason.
[[nodiscard]] std::map<std::string, std::uint64_t> not_sent_in_measure_log(const std::string& text);

// The shim's log: the paths of the compile records its misses wrote.
[[nodiscard]] std::vector<std::string> miss_records_in_measure_log(const std::string& text);

enum class BuildStdout { inherit, to_stderr };

// Runs ARGV (searched in PATH) with stdin/stderr inherited and the private logs.
[[nodiscard]] util::Result<BuildStats> measure_build(const std::vector<std::string>& argv,
                                                     BuildStdout out);

} // namespace shimctl::build
