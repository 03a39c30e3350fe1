// `shimctl measure`: one build's own cache statistics. The build runs with a private
// CCACHE_STATSLOG (the shim passes the environment through to ccache), so the counts are that
// build's alone and nobody's statistics are zeroed.
#pragma once

#include <cstdint>
#include <map>
#include <shimctl/util/error.hpp>
#include <string>
#include <vector>

namespace shimctl::build {

struct BuildStats {
  int exit_code = 0;       // the build's (128+N when killed by signal N)
  std::uint64_t calls = 0; // ccache invocations (one record each in the log)
  std::uint64_t hits = 0;  // direct + preprocessed hits
  std::uint64_t misses = 0;
  std::map<std::string, std::uint64_t> uncacheable; // called_for_link, no_input_file, ...
  [[nodiscard]] std::uint64_t compiles() const {
    return hits + misses;
  }
  [[nodiscard]] double hit_rate() const {
    return compiles() ? static_cast<double>(hits) / static_cast<double>(compiles()) : 0.0;
  }
};

// Counts outcomes in a ccache stats log ("# <input>" then one counter per line).
[[nodiscard]] BuildStats parse_stats_log(const std::string& text);

enum class BuildStdout { inherit, to_stderr };

// Runs ARGV (searched in PATH) with stdin/stderr inherited and a private stats log.
[[nodiscard]] util::Result<BuildStats> measure_build(const std::vector<std::string>& argv,
                                                     BuildStdout out);

} // namespace shimctl::build
