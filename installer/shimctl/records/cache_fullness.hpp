// How full the cache a record's compile used is now: the evidence for "evicted" when a miss had
// the same inputs as the compile before it.
#pragma once

#include <cstdint>
#include <optional>
#include <shimctl/records/compile_record.hpp>
#include <string_view>

namespace shimctl::records {

struct CacheFullness {
  std::uint64_t size = 0;     // bytes of the cache directory's files
  std::uint64_t max = 0;      // its limit
  std::uint64_t cleanups = 0; // ccache's count of cleanups in it (sccache: 0)
  // The cache evicts: near its limit (ccache cleans down to 80 %, in 16 parts), or ccache has
  // cleaned it up.
  [[nodiscard]] bool evicts() const {
    return (max > 0 && size * 10 >= max * 7) || cleanups > 0;
  }
};

// A size as ccache or sccache read it ("5G", "500M", "1.5Gi", "10": G); nullopt when not one.
[[nodiscard]] std::optional<std::uint64_t> parse_size(std::string_view text);

// RECORD's cache now (its directory walked once per directory and process); nullopt when unknown.
[[nodiscard]] std::optional<CacheFullness> cache_fullness(const CompileRecord& record);

} // namespace shimctl::records
