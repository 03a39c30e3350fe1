#include <shimctl/cache/tool.hpp>

namespace shimctl::cache {

std::uint64_t CacheStats::get(const std::string& name) const {
  auto it = counters.find(name);
  return it == counters.end() ? 0 : it->second;
}

} // namespace shimctl::cache
