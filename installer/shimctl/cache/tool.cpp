#include <shimctl/cache/tool.hpp>

namespace shimctl::cache {

std::uint64_t CacheStats::get(const std::string& name) const {
  auto it = counters.find(name);
  return it == counters.end() ? 0 : it->second;
}

std::uint64_t CacheStats::hits() const {
  return get("direct_cache_hit") + get("preprocessed_cache_hit") + get("cache_hits");
}

std::uint64_t CacheStats::misses() const {
  return get("cache_miss") + get("cache_misses");
}

} // namespace shimctl::cache
