// Small text helpers for messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::util {

// The first line of TEXT without trailing spaces or CR; longer than MAX_CHARS, cut there with
// "..." appended (a tool's stderr quoted in a one-line message).
[[nodiscard]] std::string first_line(std::string_view text,
                                     std::size_t max_chars = std::string_view::npos);

// The whole file at PATH; "" when it cannot be read (callers treat a missing file as empty).
[[nodiscard]] std::string read_text_file(const std::string& path);

// TEXT's lines, without their newlines.
[[nodiscard]] std::vector<std::string> lines_of(const std::string& text);

} // namespace shimctl::util
