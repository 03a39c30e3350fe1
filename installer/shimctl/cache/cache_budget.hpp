// A size limit kept over the whole cache (issue 44, item 2). ccache cleans each of its 16
// subdirectories apart once that one passes 1/16 of max_size, so a build that fits the limit
// evicts its own entries when its keys fall unevenly among them (the fewer the files, the more:
// 58 files at 3x one build's bytes evicted 6). With --max-size a tool whose own cleanup goes by
// parts (Tool::cleans_by_parts: ccache) gets 4 times the limit, its own cleanup then a safety net
// only, and the limit itself in SHIMCTL_CACHE_BUDGET="BYTES TOOL-LIMIT TOOL": after each miss
// (`record-miss`, shim/formats/miss_record.h) shimctl asks the tool for the cache's size and, over
// the limit, has it evict the entries used least recently across the whole cache down to 90 % of
// the limit (ccache --evict-older-than: its own counters stay right). A user's own CCACHE_MAXSIZE
// (another TOOL-LIMIT) turns this off. An entry a newer one supersedes goes first (supersede).
#pragma once
#include <cstdint>
#include <optional>
#include <shimctl/cache/tool.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::cache {

inline constexpr std::string_view budget_variable = "SHIMCTL_CACHE_BUDGET";
// The tool's own limit, in multiples of the budget, where shimctl keeps the budget.
inline constexpr std::uint64_t parts_limit_multiple = 4;
// Where an eviction leaves the cache, in % of the budget.
inline constexpr std::uint64_t evicted_down_to_percent = 90;

struct CacheBudget {
  std::uint64_t bytes = 0;
  std::string tool_limit; // the tool's own limit as install set it (its size spelling)
  std::string tool_path;
};

// The budget of --max-size MAX_SIZE for TOOL at TOOL_PATH; nullopt when there is none to keep
// (no limit: 0, or a size that cannot be read).
[[nodiscard]] std::optional<CacheBudget> budget_of(std::string_view max_size,
                                                   const std::string& tool_path);
// SHIMCTL_CACHE_BUDGET's value for BUDGET, and back.
[[nodiscard]] std::string budget_value(const CacheBudget& budget);
[[nodiscard]] std::optional<CacheBudget> parse_budget(std::string_view text);

// Which of the entries (FILES: their last use and bytes on disk) go so that the rest fit in
// BYTES_LEFT: the age in seconds (at NOW) beyond which every entry goes; nullopt when none has
// to, or when the line would fall within the last second (the newest entries are never evicted).
struct CacheEntryFile {
  std::int64_t used = 0; // mtime, seconds
  std::uint64_t bytes = 0;
};
[[nodiscard]] std::optional<std::int64_t> eviction_age(std::vector<CacheEntryFile> files,
                                                       std::uint64_t bytes_left,
                                                       std::int64_t now);

// Makes the entry FILES (a derived object's earlier one, Tool::logged_entries) the first the
// budget, or the tool's own cleanup, evicts: their last use goes back to superseded_used. A hit
// on them makes them recent again. Best effort (a file another user owns keeps its time).
inline constexpr std::int64_t superseded_used = 1; // the first second of 1970
void supersede(const std::vector<std::string>& files);

// After a miss of TOOL (record-miss's): keeps the budget SHIMCTL_CACHE_BUDGET names, if any and
// not overridden; best effort, silent (a compile never fails for it).
void keep_budget_after_miss(std::string_view tool);

} // namespace shimctl::cache
