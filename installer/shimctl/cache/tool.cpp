#include <shimctl/cache/tool.hpp>

namespace shimctl::cache {

std::uint64_t CacheStats::get(const std::string& name) const {
  auto it = counters.find(name);
  return it == counters.end() ? 0 : it->second;
}

void BuildCounts::add(const BuildCounts& other) {
  calls += other.calls;
  hits += other.hits;
  misses += other.misses;
  for (const auto& [name, count] : other.uncacheable)
    uncacheable[name] += count;
}

} // namespace shimctl::cache
