#include <shimctl/util/text.hpp>

namespace shimctl::util {

std::string first_line(std::string_view text, std::size_t max_chars) {
  auto line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
    line.remove_suffix(1);
  if (line.size() > max_chars)
    return std::string(line.substr(0, max_chars)) + "...";
  return std::string(line);
}

} // namespace shimctl::util
