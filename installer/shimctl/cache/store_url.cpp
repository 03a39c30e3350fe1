#include <algorithm>
#include <cctype>
#include <cstdio>
#include <shimctl/cache/store_url.hpp>
#include <shimctl/util/text.hpp>

namespace shimctl::cache::store {

std::string_view scheme_of(std::string_view text) {
  auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0)
    return {};
  auto scheme = text.substr(0, colon);
  if (!std::isalpha(static_cast<unsigned char>(scheme[0])))
    return {};
  for (char c : scheme)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.')
      return {};
  return scheme;
}

bool is_attribute(std::string_view word) {
  if (word.starts_with('@'))
    word.remove_prefix(1);
  auto key = word.substr(0, word.find('='));
  if (key.empty() || !std::isalpha(static_cast<unsigned char>(key[0])))
    return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
}

Authority authority_of(std::string_view after_colon) {
  Authority a;
  auto text = after_colon.substr(2);
  auto end = text.find_first_of("/?#");
  auto authority = text.substr(0, end);
  a.rest = end == std::string_view::npos ? std::string_view{} : text.substr(end);
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    a.userinfo = authority.substr(0, at);
    authority.remove_prefix(at + 1);
  }
  if (authority.starts_with('[')) { // [IPv6]
    auto close = authority.find(']');
    a.host = authority.substr(0, close == std::string_view::npos ? authority.size() : close + 1);
    authority.remove_prefix(a.host.size());
    if (authority.starts_with(':'))
      a.port = authority.substr(1);
    return a;
  }
  auto colon = authority.rfind(':');
  a.host = authority.substr(0, colon);
  if (colon != std::string_view::npos)
    a.port = authority.substr(colon + 1);
  return a;
}

std::string host_port_problem(const Authority& a, std::string_view example) {
  if (a.host.empty())
    return fmt::format("names no host (e.g. {})", example);
  if (a.port && !(util::all_digits(*a.port) && a.port->size() <= 5 &&
                  std::stoi(std::string(*a.port)) >= 1 && std::stoi(std::string(*a.port)) <= 65535))
    return fmt::format("has port '{}', not a number from 1 to 65535 (e.g. {})", *a.port, example);
  return {};
}

std::string host_and_port(const Authority& a) {
  return fmt::format("{}{}{}", a.host, a.port ? ":" : "", a.port.value_or(""));
}

std::string address_of(const Authority& a, std::string_view default_port) {
  return fmt::format("{}:{}", a.host, a.port.value_or(default_port));
}

std::pair<std::string_view, Attributes> split_attributes(std::string_view store) {
  Attributes attributes;
  auto bar = store.find('|');
  auto url = store.substr(0, bar);
  while (bar != std::string_view::npos) {
    auto next = store.find('|', bar + 1);
    auto attribute = store.substr(bar + 1, next == std::string_view::npos ? next : next - bar - 1);
    auto eq = attribute.find('=');
    attributes.emplace_back(attribute.substr(0, eq),
                            eq == std::string_view::npos ? std::string_view{}
                                                         : attribute.substr(eq + 1));
    bar = next;
  }
  return { url, attributes };
}

namespace {

// %XX escapes of a URL's user or password decoded ("p%40ss" -> "p@ss").
std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() &&
        std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

} // namespace

std::pair<std::string, std::string> user_and_password(std::string_view userinfo) {
  auto colon = userinfo.find(':');
  if (colon == std::string_view::npos)
    return { "", percent_decoded(userinfo) };
  return { percent_decoded(userinfo.substr(0, colon)),
           percent_decoded(userinfo.substr(colon + 1)) };
}

std::string sccache_has_no(std::string_view scheme) {
  return fmt::format(
    "has scheme '{}', which sccache does not store to ({})", scheme, sccache_forms);
}

std::string tool_name(const core::CacheSettings& tool) {
  return tool.version.empty() ? tool.kind : fmt::format("{} {}", tool.kind, tool.version);
}

bool version_at_least(std::string_view version, int major, int minor) {
  if (version.empty())
    return true;
  int has_major = 0, has_minor = 0;
  (void)std::sscanf(std::string(version).c_str(), "%d.%d", &has_major, &has_minor);
  return has_major > major || (has_major == major && has_minor >= minor);
}

} // namespace shimctl::cache::store
