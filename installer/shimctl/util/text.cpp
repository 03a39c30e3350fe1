#include <algorithm>
#include <fmt/format.h>
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

std::string first_error_line(std::string_view text, std::size_t max_chars) {
  std::string_view fallback;
  for (std::string_view rest = text; !rest.empty();) {
    auto end = rest.find('\n');
    auto line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (line.find("error:") != std::string_view::npos ||
        line.find("error :") != std::string_view::npos)
      return first_line(line, max_chars);
    if (fallback.empty() && line.find_first_not_of(" \r\t") != std::string_view::npos)
      fallback = line;
  }
  return first_line(fallback, max_chars);
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

std::vector<std::string_view> fields_of(std::string_view text, char separator) {
  std::vector<std::string_view> fields;
  for (std::size_t at = 0; at < text.size();) {
    auto end = std::min(text.find(separator, at), text.size());
    if (end > at)
      fields.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return fields;
}

std::vector<std::string_view> words_of(std::string_view text) {
  return fields_of(text, ' ');
}

namespace {

constexpr std::string_view masked = "***";

bool is_scheme_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '-' || c == '.';
}

// Where a URL's authority (or an attribute's value) ends: a path, query, fragment, the next
// ccache attribute, or whitespace.
std::size_t end_of_field(std::string_view text, std::size_t from, std::string_view stops) {
  auto end = text.find_first_of(stops, from);
  return end == std::string_view::npos ? text.size() : end;
}

// An attribute name whose value is a credential: password, token, bearer-token, ...-secret.
bool is_credential_attribute(std::string_view name) {
  return name.ends_with("password") || name.ends_with("token") || name.ends_with("secret");
}

} // namespace

std::string redact_credentials(std::string_view text) {
  std::string out;
  std::size_t copied = 0;
  auto mask = [&](std::size_t from, std::size_t to) {
    out.append(text.substr(copied, from - copied));
    out.append(masked);
    copied = to;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i).starts_with("://") && i > 0 && is_scheme_char(text[i - 1])) {
      auto start = i + 3;
      auto end = end_of_field(text, start, "/?#| \t\n");
      auto at = text.substr(start, end - start).rfind('@');
      if (at != std::string_view::npos && text.substr(start, at) != masked)
        mask(start, start + at);
      i = end - 1;
    } else if (text[i] == '|') {
      auto eq = text.find('=', i + 1);
      auto end = end_of_field(text, i + 1, "| \t\n");
      if (eq == std::string_view::npos || eq >= end)
        continue;
      auto value = text.substr(eq + 1, end - eq - 1);
      if (is_credential_attribute(text.substr(i + 1, eq - i - 1)) && !value.empty() &&
          value != masked) {
        mask(eq + 1, end);
        i = end - 1;
      }
    }
  }
  out.append(text.substr(copied));
  return out;
}

bool has_credentials(std::string_view text) {
  return redact_credentials(text) != text;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_digit);
}

std::string size_text(std::uint64_t bytes) {
  if (bytes < 1024)
    return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  const char* unit = "B";
  for (const char* next : { "KiB", "MiB", "GiB", "TiB" }) {
    if (value < 1024)
      break;
    value /= 1024;
    unit = next;
  }
  return fmt::format("{:.1f} {}", value, unit);
}

} // namespace shimctl::util
