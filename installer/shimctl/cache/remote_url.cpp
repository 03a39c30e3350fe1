#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
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

// VERSION ("4.7.5", "0.4.0-pre.6") is MAJOR.MINOR or later; an unknown (empty) version is taken
// to be recent.
bool version_at_least(std::string_view version, int major, int minor) {
  if (version.empty())
    return true;
  int has_major = 0, has_minor = 0;
  (void)std::sscanf(std::string(version).c_str(), "%d.%d", &has_major, &has_minor);
  return has_major > major || (has_major == major && has_minor >= minor);
}

// ccache >= 4.13 (or an unknown version): storage helpers, crsh:, properties as words.
bool has_storage_helpers(std::string_view version) {
  return version_at_least(version, 4, 13);
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
  std::optional<std::string_view> userinfo; // USER:PASSWORD, PASSWORD, :PASSWORD
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
  if (a.port && a.port->find('*') != std::string_view::npos)
    a.port.reset(); // ccache's shard names (|shards=P1,P2) go where the '*' is
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
  const bool tls_or_s3 = scheme == "rediss" || scheme == "https" || scheme == "s3";
  if (tls_or_s3 && !(has_storage_helpers(tool.version) && storage_helper_installed(scheme, tool)))
    return fmt::format(
      "has scheme '{}': {} has no {} storage{}; use --cache sccache (>= 0.5: rediss://, https:// "
      "WebDAV, s3://BUCKET/PREFIX|endpoint=URL), or a plain redis:// or http:// store",
      scheme,
      tool_name(tool),
      scheme == "s3" ? "S3" : "TLS",
      has_storage_helpers(tool.version)
        ? fmt::format(" without a storage helper (ccache-storage-{} is not installed)", scheme)
        : "");
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

// USERINFO as USER:PASSWORD, :PASSWORD or PASSWORD (ccache's redis://PASSWORD@HOST).
std::pair<std::string, std::string> user_and_password(std::string_view userinfo) {
  auto colon = userinfo.find(':');
  if (colon == std::string_view::npos)
    return { "", percent_decoded(userinfo) };
  return { percent_decoded(userinfo.substr(0, colon)),
           percent_decoded(userinfo.substr(colon + 1)) };
}

// The store sccache is told about; PROBLEM says why URL names none.
struct SccacheStore {
  std::vector<std::string> environment;
  std::string problem;
};

// The attributes of STORE ("URL|KEY=VALUE|KEY"): its URL and (KEY, VALUE) pairs in order.
std::pair<std::string_view, std::vector<std::pair<std::string_view, std::string_view>>>
split_attributes(std::string_view store) {
  std::vector<std::pair<std::string_view, std::string_view>> attributes;
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

constexpr std::string_view sccache_forms =
  "redis://[USER:PASSWORD@]HOST:PORT, rediss://..., redis://HOST:PORT|cluster, "
  "http(s)://[USER:PASSWORD@]HOST/PATH (WebDAV), s3://BUCKET/PREFIX|endpoint=URL|region=R";

SccacheStore sccache_store(std::string_view url, bool read_only) {
  SccacheStore store;
  auto& env = store.environment;
  auto [base, attributes] = split_attributes(url);
  auto scheme = scheme_of(base);
  auto rest = base.substr(scheme.size() + (scheme.empty() ? 0 : 1));
  if (scheme.empty() || !rest.starts_with("//")) {
    store.problem = fmt::format("is not a store sccache knows ({})", sccache_forms);
    return store;
  }
  auto a = authority_of(rest);
  auto [user, password] =
    a.userinfo ? user_and_password(*a.userinfo) : std::pair<std::string, std::string>{};
  // RW_MODE's name: SCCACHE_<BACKEND>_RW_MODE.
  std::string backend;
  std::optional<std::string_view> cluster;
  for (auto [key, value] : attributes) {
    if (key == "read-only" && value.empty()) {
      read_only = true;
    } else if (key == "ca" && value.starts_with('/')) {
      env.push_back(fmt::format("SSL_CERT_FILE={}", value));
    } else if (key == "ca") {
      store.problem =
        "has |ca= without an absolute path to a CA file (e.g. |ca=/etc/ssl/team-ca.crt)";
      return store;
    } else if (key == "cluster" && (scheme == "redis" || scheme == "rediss")) {
      cluster = value;
    } else if (scheme == "s3" &&
               ((key == "endpoint" || key == "region")
                  ? !value.empty()
                  : (key == "virtual-host" || key == "no-credentials") && value.empty())) {
      continue; // below
    } else {
      store.problem = fmt::format(
        "has attribute '{}{}{}', which sccache's {} store does not take (|read-only, |ca=FILE{})",
        key,
        value.empty() ? "" : "=",
        value,
        scheme,
        scheme == "s3"                            ? ", |endpoint=URL, |region=R, |virtual-host, "
                                                    "|no-credentials"
        : scheme == "redis" || scheme == "rediss" ? ", |cluster"
                                                  : "");
      return store;
    }
  }
  if (scheme == "redis" || scheme == "rediss") {
    if (auto problem = host_port_problem(a, "redis://HOST:6379"); !problem.empty()) {
      store.problem = problem;
      return store;
    }
    auto db = a.rest.starts_with('/') ? a.rest.substr(1) : a.rest;
    if (!db.empty() && !all_digits(db)) {
      store.problem =
        fmt::format("has '{}' where the database number goes (e.g. redis://HOST:6379/0)", a.rest);
      return store;
    }
    auto node = fmt::format("{}://{}{}{}", scheme, a.host, a.port ? ":" : "", a.port.value_or(""));
    if (cluster) {
      if (!db.empty()) {
        store.problem = "names a database; a Redis Cluster has only database 0";
        return store;
      }
      std::string nodes = node;
      for (auto seed : util::fields_of(*cluster, ','))
        nodes +=
          fmt::format(",{}{}",
                      seed.find("://") == std::string_view::npos ? std::string(scheme) + "://" : "",
                      seed);
      env.push_back("SCCACHE_REDIS_CLUSTER_ENDPOINTS=" + nodes);
    } else {
      env.push_back("SCCACHE_REDIS_ENDPOINT=" + node);
      if (!db.empty())
        env.push_back(fmt::format("SCCACHE_REDIS_DB={}", db));
    }
    if (!user.empty())
      env.push_back("SCCACHE_REDIS_USERNAME=" + user);
    if (!password.empty())
      env.push_back("SCCACHE_REDIS_PASSWORD=" + password);
    backend = "REDIS";
  } else if (scheme == "http" || scheme == "https") {
    if (auto problem = host_port_problem(a, "https://HOST/cache"); !problem.empty()) {
      store.problem = problem;
      return store;
    }
    auto path = a.rest.substr(0, a.rest.find_first_of("?#"));
    env.push_back(fmt::format("SCCACHE_WEBDAV_ENDPOINT={}://{}{}{}{}",
                              scheme,
                              a.host,
                              a.port ? ":" : "",
                              a.port.value_or(""),
                              path));
    if (!user.empty())
      env.push_back("SCCACHE_WEBDAV_USERNAME=" + user);
    if (!password.empty())
      env.push_back("SCCACHE_WEBDAV_PASSWORD=" + password);
    backend = "WEBDAV";
  } else if (scheme == "s3") {
    auto bucket = rest.substr(2, rest.find_first_of("/?#", 2) - 2);
    if (auto at = bucket.rfind('@'); at != std::string_view::npos)
      bucket.remove_prefix(at + 1);
    if (bucket.empty()) {
      store.problem = "names no bucket (s3://BUCKET/PREFIX|endpoint=URL|region=R)";
      return store;
    }
    env.push_back(fmt::format("SCCACHE_BUCKET={}", bucket));
    auto prefix = a.rest;
    while (prefix.starts_with('/'))
      prefix.remove_prefix(1);
    while (prefix.ends_with('/'))
      prefix.remove_suffix(1);
    if (!prefix.empty())
      env.push_back(fmt::format("SCCACHE_S3_KEY_PREFIX={}", prefix));
    std::string_view region = "us-east-1"; // what S3-compatible servers expect when unsaid
    for (auto [key, value] : attributes) {
      if (key == "endpoint") {
        auto endpoint_scheme = scheme_of(value);
        if (endpoint_scheme != "http" && endpoint_scheme != "https") {
          store.problem = fmt::format("has |endpoint={}, not http(s)://HOST[:PORT]", value);
          return store;
        }
        env.push_back(fmt::format("SCCACHE_ENDPOINT={}", value));
        env.push_back(fmt::format("SCCACHE_S3_USE_SSL={}", endpoint_scheme == "https"));
      } else if (key == "region") {
        region = value;
      } else if (key == "virtual-host") {
        env.push_back("SCCACHE_S3_ENABLE_VIRTUAL_HOST_STYLE=true");
      } else if (key == "no-credentials") {
        env.push_back("SCCACHE_S3_NO_CREDENTIALS=true");
      }
    }
    env.push_back(fmt::format("SCCACHE_REGION={}", region));
    if (!user.empty())
      env.push_back("AWS_ACCESS_KEY_ID=" + user);
    if (!password.empty())
      env.push_back("AWS_SECRET_ACCESS_KEY=" + password);
    backend = "S3";
  } else {
    store.problem =
      fmt::format("has scheme '{}', which sccache does not store to ({})", scheme, sccache_forms);
    return store;
  }
  if (read_only)
    env.push_back(fmt::format("SCCACHE_{}_RW_MODE=READ_ONLY", backend));
  return store;
}

util::Status check_sccache_url(std::string_view url, const core::CacheSettings& tool) {
  if (url.empty())
    return fail(ExitCode::usage, "--remote is empty; name a store (e.g. redis://HOST:6379)");
  auto shown = util::redact_credentials(url);
  if (!sccache_has_remote_storage(tool.version))
    return fail(ExitCode::usage,
                "--remote: {} has no remote storage (Debian's 0.4 build has none): {} would fail "
                "every compile; use --cache ccache, or an sccache >= 0.5 with --cache-tool PATH",
                tool_name(tool),
                shown);
  if (url.find(' ') != std::string_view::npos)
    return fail(ExitCode::usage,
                "--remote: '{}' is not one URL; sccache stores to one store ({})",
                shown,
                sccache_forms);
  if (auto store = sccache_store(url, false); !store.problem.empty())
    return fail(ExitCode::usage, "--remote: '{}' {}", shown, store.problem);
  return {};
}

} // namespace

util::Status check_ccache_remote_url(std::string_view url, const core::CacheSettings& tool) {
  return check_ccache_url(url, tool);
}

util::Status check_sccache_remote_url(std::string_view url, const core::CacheSettings& tool) {
  return check_sccache_url(url, tool);
}

bool sccache_has_remote_storage(std::string_view version) {
  return version_at_least(version, 0, 5);
}

std::vector<std::string> sccache_store_environment(std::string_view url, bool read_only) {
  return sccache_store(url, read_only).environment;
}

std::string ccache_storage_form(std::string_view storage, std::string_view version) {
  auto [url, attributes] = split_attributes(storage);
  if (!url.starts_with("redis://"))
    return std::string(storage);
  auto a = authority_of(url.substr(sizeof "redis:" - 1));
  if (a.userinfo && a.userinfo->starts_with(':'))
    return fmt::format("redis://default{}", storage.substr(sizeof "redis://" - 1));
  if (a.port != "*" || version_at_least(version, 4, 14) || a.userinfo || !a.rest.empty())
    return std::string(storage);
  std::string shards;
  for (auto [key, value] : attributes)
    if (key == "shards")
      for (auto shard : util::fields_of(value, ','))
        shards += fmt::format("{}{}:{}", shards.empty() ? "" : ",", a.host, shard);
  if (shards.empty())
    return std::string(storage);
  std::string out = "redis://*";
  for (auto [key, value] : attributes)
    out += key == "shards" ? "|shards=" + shards
                           : fmt::format("|{}{}{}", key, value.empty() ? "" : "=", value);
  return out;
}

bool names_read_only(std::string_view url) {
  for (auto storage : util::words_of(url))
    for (auto [key, value] : split_attributes(storage).second)
      if (key == "read-only")
        return true;
  return false;
}

std::string with_environment_keys(std::string url) {
  const char* id = std::getenv("AWS_ACCESS_KEY_ID");
  const char* secret = std::getenv("AWS_SECRET_ACCESS_KEY");
  if (!url.starts_with("s3://") || !id || !*id || !secret || !*secret)
    return url;
  auto [base, attributes] = split_attributes(url);
  if (base.substr(0, base.find_first_of("/?#", 5)).find('@') != std::string_view::npos)
    return url;
  for (auto [key, value] : attributes)
    if (key == "no-credentials")
      return url;
  auto encoded = [](std::string_view text) {
    std::string out;
    for (char c : text)
      out += std::isalnum(static_cast<unsigned char>(c)) ||
                 std::string_view("-._~").find(c) != std::string_view::npos
               ? std::string(1, c)
               : fmt::format("%{:02X}", static_cast<unsigned char>(c));
    return out;
  };
  return fmt::format("s3://{}:{}@{}", encoded(id), encoded(secret), url.substr(5));
}

} // namespace shimctl::cache
