#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <shimctl/cache/remote_url.hpp>
#include <shimctl/core/manifest.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/text.hpp>
#include <string>
#include <unistd.h>
#include <vector>

namespace shimctl::cache {

using util::ExitCode;
using util::fail;

using util::all_digits;

namespace {

// The tool and its version for messages (ccache 4.7.5), or the tool alone when the version is
// unknown.
std::string tool_name(const core::CacheSettings& tool) {
  return tool.version.empty() ? tool.kind : fmt::format("{} {}", tool.kind, tool.version);
}

// ccache >= 4.13 (or an unknown version): storage helpers, crsh:, properties as words.
bool has_storage_helpers(std::string_view version) {
  if (version.empty())
    return true;
  int major = 0, minor = 0;
  (void)std::sscanf(std::string(version).c_str(), "%d.%d", &major, &minor);
  return major > 4 || (major == 4 && minor >= 13);
}

// SCHEME of "SCHEME:REST" (RFC 3986: a letter, then letters, digits, + - .), or "".
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

// An attribute or property: KEY or KEY=VALUE, KEY a word ("read-only", "shards=a,b", "@umask=002").
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

struct Authority {
  std::string_view host;
  std::optional<std::string_view> port;
  std::string_view rest; // path, query, fragment
};

// AFTER_COLON = "//[USERINFO@]HOST[:PORT]REST".
Authority authority_of(std::string_view after_colon) {
  Authority a;
  auto text = after_colon.substr(2);
  auto end = text.find_first_of("/?#");
  auto authority = text.substr(0, end);
  a.rest = end == std::string_view::npos ? std::string_view{} : text.substr(end);
  if (auto at = authority.rfind('@'); at != std::string_view::npos)
    authority.remove_prefix(at + 1);
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

// Why A is no HOST[:PORT] ("" when it is one); EXAMPLE shows a form that works.
std::string host_port_problem(const Authority& a, std::string_view example) {
  if (a.host.empty())
    return fmt::format("names no host (e.g. {})", example);
  if (a.port && !(all_digits(*a.port) && a.port->size() <= 5 &&
                  std::stoi(std::string(*a.port)) >= 1 && std::stoi(std::string(*a.port)) <= 65535))
    return fmt::format("has port '{}', not a number from 1 to 65535 (e.g. {})", *a.port, example);
  return {};
}

// redis://[[USER:]PASSWORD@]HOST[:PORT][/DB]: why URL is not one, or "".
std::string redis_problem(std::string_view url) {
  auto rest = url.substr(sizeof "redis:" - 1);
  if (!rest.starts_with("//"))
    return "is not redis://HOST[:PORT][/DB]";
  auto a = authority_of(rest);
  if (auto problem = host_port_problem(a, "redis://HOST:6379"); !problem.empty())
    return problem;
  auto db = a.rest;
  if (db.starts_with('/'))
    db.remove_prefix(1);
  if (!db.empty() && !all_digits(db))
    return fmt::format("has '{}' where the database number goes (redis://HOST[:PORT][/DB], e.g. "
                       "redis://HOST:6379/0)",
                       a.rest);
  return {};
}

// A storage helper for SCHEME (ccache >= 4.13): ccache-storage-SCHEME in a libexec directory,
// beside ccache, or in PATH.
bool storage_helper_installed(std::string_view scheme, const core::CacheSettings& tool) {
  auto helper = "ccache-storage-" + std::string(scheme);
  std::vector<std::string> candidates{ "/usr/libexec/" + helper, "/usr/local/libexec/" + helper };
  if (!tool.path.empty())
    candidates.push_back((std::filesystem::path(tool.path).parent_path() / helper).string());
  for (const auto& candidate : candidates)
    if (::access(candidate.c_str(), X_OK) == 0)
      return true;
  return !util::find_in_path(helper).empty();
}

// One of ccache's storage URLs (attributes cut off): why ccache cannot store to it, or "".
std::string ccache_url_problem(std::string_view url, const core::CacheSettings& tool) {
  auto scheme = scheme_of(url);
  auto rest = url.substr(scheme.size() + 1);
  if (scheme == "redis")
    return redis_problem(url);
  if (scheme == "redis+unix") {
    auto path = rest;
    if (path.starts_with("//")) {
      auto a = authority_of(rest);
      if (!a.host.empty() && a.host != "localhost")
        return "names a host; a unix socket is on this machine (redis+unix:/PATH/TO/SOCKET)";
      path = a.rest;
    }
    if (!path.starts_with('/') || path.substr(0, path.find('?')).size() < 2)
      return "names no socket path (redis+unix:/PATH/TO/SOCKET)";
    return {};
  }
  if (scheme == "http")
    return rest.starts_with("//") ? host_port_problem(authority_of(rest), "http://HOST:8080/cache")
                                  : "is not http://HOST[:PORT][/PATH]";
  if (scheme == "file") {
    auto dir = rest;
    if (dir.starts_with("//")) {
      auto a = authority_of(rest);
      if (!a.host.empty() && a.host != "localhost")
        return fmt::format("names host '{}'; file: storage is a directory of this machine "
                           "(file:/DIR or file:///DIR)",
                           a.host);
      dir = a.rest;
    }
    if (!dir.starts_with('/'))
      return "names no absolute directory (file:/DIR or file:///DIR)";
    return {};
  }
  if (has_storage_helpers(tool.version)) {
    if (scheme == "crsh")
      return rest.empty() ? "names no helper endpoint (crsh:/PATH/TO/SOCKET)" : "";
    if (storage_helper_installed(scheme, tool))
      return {};
    return fmt::format("has scheme '{}': {} has no such built-in storage and no storage helper "
                       "ccache-storage-{} is installed (https://ccache.dev/storage-helpers.html); "
                       "use redis://, http:// or file:, or install the helper",
                       scheme,
                       tool_name(tool),
                       scheme);
  }
  return fmt::format("has scheme '{}', which {} does not store to; use redis://HOST[:PORT], "
                     "http://HOST[:PORT]/PATH, file:/DIR or redis+unix:/SOCKET",
                     scheme,
                     tool_name(tool));
}

// One storage of ccache's list, URL|ATTRIBUTE|..., with PROPERTIES (the words after it, ccache
// >= 4.13): why ccache cannot use it, or "".
std::string ccache_storage_problem(std::string_view storage,
                                   const std::vector<std::string_view>& properties,
                                   const core::CacheSettings& tool) {
  auto bar = storage.find('|');
  auto url = storage.substr(0, bar);
  if (scheme_of(url).empty())
    return "is not a storage URL (e.g. redis://HOST:6379, http://HOST/cache, file:/DIR)";
  if (auto problem = ccache_url_problem(url, tool); !problem.empty())
    return problem;
  auto attributes = properties;
  for (auto at = bar; at != std::string_view::npos;) {
    auto next = storage.find('|', at + 1);
    attributes.push_back(
      storage.substr(at + 1, next == std::string_view::npos ? next : next - at - 1));
    at = next;
  }
  for (auto attribute : attributes) {
    if (!is_attribute(attribute))
      return fmt::format("has attribute '{}', not KEY or KEY=VALUE (e.g. |read-only)", attribute);
    if (attribute.starts_with('@'))
      attribute.remove_prefix(1);
    if (attribute.substr(0, attribute.find('=')) != "shards")
      continue;
    auto eq = attribute.find('=');
    if (eq == std::string_view::npos || eq + 1 == attribute.size())
      return "has shards without names (|shards=A,B, with a '*' in the URL)";
    if (url.find('*') == std::string_view::npos)
      return "has shards but no '*' in the URL for the shard names (e.g. "
             "redis://cache-*.example.com|shards=a,b)";
  }
  return {};
}

util::Status check_ccache_url(std::string_view url, const core::CacheSettings& tool) {
  // Storages are separated by spaces; from 4.13 a word that is no URL is a property of the
  // storage before it.
  auto words = util::words_of(url);
  if (words.empty())
    return fail(ExitCode::usage, "--remote is empty; name a storage URL (e.g. redis://HOST:6379)");
  for (std::size_t i = 0; i < words.size();) {
    std::vector<std::string_view> properties;
    auto next = i + 1;
    for (; next < words.size() && scheme_of(words[next]).empty() && is_attribute(words[next]);
         ++next) {
      if (!has_storage_helpers(tool.version))
        return fail(ExitCode::usage,
                    "--remote: '{}' is no storage URL; {} takes attributes after '|' (e.g. "
                    "http://HOST/cache|read-only)",
                    util::redact_credentials(words[next]),
                    tool_name(tool));
      properties.push_back(words[next]);
    }
    if (auto problem = ccache_storage_problem(words[i], properties, tool); !problem.empty())
      return fail(
        ExitCode::usage, "--remote: '{}' {}", util::redact_credentials(words[i]), problem);
    i = next;
  }
  return {};
}

util::Status check_sccache_url(std::string_view url, const core::CacheSettings& tool) {
  if (url.empty())
    return fail(ExitCode::usage, "--remote is empty; name a Redis server (e.g. redis://HOST:6379)");
  auto shown = util::redact_credentials(url);
  // The message check_sccache_remote (sccache_server.hpp) gives at plan time, up front.
  if (!url.starts_with("redis:"))
    return fail(ExitCode::usage,
                "--remote {}: {} stores remotely only in Redis (redis://HOST:PORT); use --cache "
                "ccache for http:// storage",
                shown,
                tool_name(tool));
  if (url.find_first_of(" |") != std::string_view::npos)
    return fail(ExitCode::usage,
                "--remote: '{}' is not one URL; sccache stores to one Redis server "
                "(redis://HOST[:PORT][/DB])",
                shown);
  if (auto problem = redis_problem(url); !problem.empty())
    return fail(ExitCode::usage, "--remote: '{}' {}", shown, problem);
  return {};
}

} // namespace

util::Status check_ccache_remote_url(std::string_view url, const core::CacheSettings& tool) {
  return check_ccache_url(url, tool);
}

util::Status check_sccache_remote_url(std::string_view url, const core::CacheSettings& tool) {
  return check_sccache_url(url, tool);
}

} // namespace shimctl::cache
