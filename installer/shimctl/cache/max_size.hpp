// The cache size forms each cache tool reads, checked before any work:
// `install --max-size foo` would be written into every shim config and fail
// each compile (ccache) or be ignored (sccache keeps its default); it is
// refused with exit 2 and one line naming --max-size instead.
#pragma once

#include <shimctl/util/error.hpp>
#include <string_view>

namespace shimctl::cache {

// VALUE in the form ccache reads (4.7 and 4.14 alike): a decimal number, optionally followed by k,
// K, M, G or T, then optionally i (powers of 1024) and B: 5G, 500M, 1.5G, 5Gi, 5GiB, 10 (no suffix:
// G), 0 (no limit). ccache itself also reads hex, exponents and anything after the suffix ("5Gfoo"
// is 5G); shimctl holds the value it writes into every shim config to the documented form.
[[nodiscard]] util::Status check_ccache_max_size(std::string_view value);

// VALUE in the form sccache reads: a whole number, optionally followed by K, M,
// G or T (5G, 500M).
[[nodiscard]] util::Status check_sccache_max_size(std::string_view value);

} // namespace shimctl::cache
