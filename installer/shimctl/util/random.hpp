// Random identifiers from OpenSSL's CSPRNG (RAND_bytes).
#pragma once

#include <cstddef>
#include <shimctl/util/error.hpp>
#include <string>

namespace shimctl::util {

// DIGITS lowercase hex digits (DIGITS even), unpredictable.
[[nodiscard]] Result<std::string> random_hex(std::size_t digits);

} // namespace shimctl::util
