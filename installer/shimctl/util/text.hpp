// Small text helpers for messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace shimctl::util {

// The first line of TEXT without trailing spaces or CR; longer than MAX_CHARS, cut there with
// "..." appended (a tool's stderr quoted in a one-line message).
[[nodiscard]] std::string first_line(std::string_view text,
                                     std::size_t max_chars = std::string_view::npos);

} // namespace shimctl::util
