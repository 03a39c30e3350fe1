#include <shimctl/cache/max_size.hpp>
#include <shimctl/util/text.hpp>

namespace shimctl::cache {

using util::ExitCode;
using util::fail;

using util::is_digit;

namespace {

// ccache's size: digits with an optional fraction, then k/K/M/G/T, i, B (each optional, in
// that order, i and B only after a unit).
bool is_ccache_size(std::string_view s) {
  std::size_t i = 0, digits = 0;
  for (; i < s.size() && is_digit(s[i]); ++i)
    ++digits;
  if (i < s.size() && s[i] == '.')
    for (++i; i < s.size() && is_digit(s[i]); ++i)
      ++digits;
  if (digits == 0)
    return false;
  if (i == s.size())
    return true;
  if (std::string_view("kKMGT").find(s[i++]) == std::string_view::npos)
    return false;
  if (i < s.size() && s[i] == 'i')
    ++i;
  if (i < s.size() && s[i] == 'B')
    ++i;
  return i == s.size();
}

// sccache's SCCACHE_CACHE_SIZE: digits, then optionally K, M, G or T (what sccache 0.4 and 0.17
// both parse; anything else leaves sccache at its 10 GiB default without a word).
bool is_sccache_size(std::string_view s) {
  if (!s.empty() && std::string_view("KMGT").find(s.back()) != std::string_view::npos)
    s.remove_suffix(1);
  if (s.empty())
    return false;
  for (char c : s)
    if (!is_digit(c))
      return false;
  return true;
}

} // namespace

util::Status check_sccache_max_size(std::string_view value) {
  if (!is_sccache_size(value))
    return fail(ExitCode::usage,
                "--max-size: '{}' is not a size sccache reads (a whole number with K, M, G or "
                "T, e.g. 5G, 500M)",
                value);
  return {};
}

util::Status check_ccache_max_size(std::string_view value) {
  if (!is_ccache_size(value))
    return fail(ExitCode::usage,
                "--max-size: '{}' is not a size (e.g. 5G, 500M, 1.5G, 5GiB; 0 for no limit)",
                value);
  return {};
}

} // namespace shimctl::cache
