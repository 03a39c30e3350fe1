// Small text helpers for messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::util {

// The first line of TEXT without trailing spaces or CR; longer than MAX_CHARS, cut there with
// "..." appended (a tool's stderr quoted in a one-line message).
[[nodiscard]] std::string first_line(std::string_view text,
                                     std::size_t max_chars = std::string_view::npos);

// A compiler's diagnostics summed up in one line: the first line that reports an error
// (clang's "k.hip:3:1: error: ...", "clang: error: ...", nvcc's "... error : ..."), else the
// first non-empty line ("In file included from k.hip:1:" alone says nothing); cut at MAX_CHARS
// as first_line is.
[[nodiscard]] std::string first_error_line(std::string_view text,
                                           std::size_t max_chars = std::string_view::npos);

// The whole file at PATH; "" when it cannot be read (callers treat a missing file as empty).
[[nodiscard]] std::string read_text_file(const std::string& path);

// TEXT's lines, without their newlines.
[[nodiscard]] std::vector<std::string> lines_of(const std::string& text);

// TEXT's non-empty runs between SEPARATORs ("a,,b" -> a, b).
[[nodiscard]] std::vector<std::string_view> fields_of(std::string_view text, char separator);

// TEXT's words: the non-empty runs between spaces (ccache's storage list "URL|attr URL ...").
[[nodiscard]] std::vector<std::string_view> words_of(std::string_view text);

// TEXT with every credential a storage URL can carry masked: a URL's userinfo
// ("redis://PASSWORD@host:6379", "http://user:pw@host/c" -> "redis://***@host:6379",
// "http://***@host/c") and a credential attribute of ccache's storage syntax
// ("|bearer-token=TOKEN", "|password=PW" -> "|bearer-token=***"). TEXT may be one URL, a storage
// list or a whole message. The one redaction everything shown or stored goes through: the
// credential itself lives only in the prefix's secrets file (shim/formats.h).
[[nodiscard]] std::string redact_credentials(std::string_view text);

// True when TEXT holds a credential redact_credentials masks (and is not masked already).
[[nodiscard]] bool has_credentials(std::string_view text);

// An ASCII digit (std::isdigit depends on the locale); TEXT non-empty and all digits.
[[nodiscard]] constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
[[nodiscard]] bool all_digits(std::string_view text);

// BYTES for a person: "512 B", "3.2 KiB", "1.5 MiB", "2.0 GiB".
[[nodiscard]] std::string size_text(std::uint64_t bytes);

} // namespace shimctl::util
