#include <fstream>
#include <shimctl/util/text.hpp>
#include <sstream>

namespace shimctl::util {

std::string first_line(std::string_view text, std::size_t max_chars) {
  auto line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
    line.remove_suffix(1);
  if (line.size() > max_chars)
    return std::string(line.substr(0, max_chars)) + "...";
  return std::string(line);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

} // namespace shimctl::util
