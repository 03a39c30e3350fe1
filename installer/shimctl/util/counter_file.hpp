// A file of named counters ("<name> <count>" lines), added to under an exclusive lock by every
// process that counts: the per-target pieces beside the cache, the device links in their store.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace shimctl::util {

using Counts = std::map<std::string, std::uint64_t>;

// NAME's count in COUNTS (0 when absent).
[[nodiscard]] std::uint64_t count_in(const Counts& counts, std::string_view name);

// Adds ADD to the counts in the file at PATH (made with UMASK when missing); best effort.
void add_to_counter_file(const std::string& path, unsigned umask, const Counts& add);
// The counts in the file at PATH (empty when there is none).
[[nodiscard]] Counts read_counter_file(const std::string& path);

} // namespace shimctl::util
