// What per-target pieces did, counted apart from the cache tool's whole-object counts: in a
// file beside the cache (status reads it) and, under `shimctl measure`, in its log.
#pragma once
#include <cstdint>
#include <map>
#include <shimctl/util/counter_file.hpp>
#include <string>
#include <string_view>

namespace shimctl::pieces {

// The counters' file in a cache directory.
inline constexpr std::string_view counts_file_name = "shimctl-pieces";
// Measure's log record: this header line, then one "<counter> <target> <tool>" line.
inline constexpr std::string_view measure_record = "# shimctl-pieces";

// The counters (names below), each 0 when absent.
using PieceCounts = util::Counts;
inline constexpr std::string_view piece_hit = "piece_hit";           // a target's piece served
inline constexpr std::string_view piece_miss = "piece_miss";         // a target's piece compiled
inline constexpr std::string_view split_compile = "split_compile";   // an object from pieces
inline constexpr std::string_view whole_compile = "whole_compile";   // a miss that ran whole
inline constexpr std::string_view checked_same = "checked_same";     // first split == one step
inline constexpr std::string_view checked_differ = "checked_differ"; // first split != one step
inline constexpr std::string_view host_hit = "host_hit";             // a host half served
inline constexpr std::string_view host_miss = "host_miss";           // a host half compiled
// An object derived from an earlier target set's (derive.hpp), the lookups of that object
// (counted by the cache tool: a hit as a hit, a miss as a failed compile) and the targets
// compiled for it (stored nowhere but in the derived object).
inline constexpr std::string_view derived = "derived";
inline constexpr std::string_view lookup_hit = "lookup_hit";
inline constexpr std::string_view lookup_miss = "lookup_miss";
inline constexpr std::string_view target_compiled = "target_compiled";

// What the cache tool counted for the pieces and host halves (each a compile of its own to the
// tool), not for whole objects: hits, misses.
[[nodiscard]] std::uint64_t tool_hits_of(const PieceCounts& counts);
[[nodiscard]] std::uint64_t tool_misses_of(const PieceCounts& counts);

// NAME's count in COUNTS (0 when absent).
[[nodiscard]] std::uint64_t count_of(const PieceCounts& counts, std::string_view name);

// Adds ADD to the counts in CACHE_DIR's file (locked; created with UMASK, the cache tool's:
// cache::Tool::file_umask); best effort.
void add_counts(const std::string& cache_dir, unsigned umask, const PieceCounts& add);
// The counts in CACHE_DIR's file (empty when there is none).
[[nodiscard]] PieceCounts read_counts(const std::string& cache_dir);
// The counts of measure's log TEXT (its "# shimctl-pieces" records), of TOOL's pieces only
// when TOOL is given.
[[nodiscard]] PieceCounts counts_in_measure_log(const std::string& text,
                                                std::string_view tool = {});
// Appends one record (COUNTER, TARGET, TOOL) to measure's log LOG; best effort.
void record_for_measure(const std::string& log,
                        std::string_view counter,
                        std::string_view target,
                        std::string_view tool);

} // namespace shimctl::pieces
