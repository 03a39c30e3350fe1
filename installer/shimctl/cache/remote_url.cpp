#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <shimctl/cache/remote_url.hpp>
#include <shimctl/cache/store_kind.hpp>
#include <shimctl/cache/store_url.hpp>
#include <shimctl/core/manifest.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/text.hpp>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace shimctl::cache {

using util::ExitCode;
using util::fail;

namespace {

using store::authority_of;
using store::is_attribute;
using store::scheme_of;
using store::split_attributes;
using store::tool_name;
using store::version_at_least;

// ccache >= 4.13 (or an unknown version): storage helpers, crsh:, properties as words.
bool has_storage_helpers(std::string_view version) {
  return version_at_least(version, 4, 13);
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
  std::string lacks; // what ccache has no built-in storage for ("TLS", "S3")
  if (const auto* kind = store_kind_of(scheme))
    if (auto problem = kind->ccache_problem(url, tool.version, &lacks))
      return *problem;
  if (!lacks.empty() &&
      !(has_storage_helpers(tool.version) && storage_helper_installed(scheme, tool)))
    return fmt::format(
      "has scheme '{}': {} has no {} storage{}; use --cache sccache (>= 0.5: rediss://, https:// "
      "WebDAV, s3://BUCKET/PREFIX|endpoint=URL), or a plain redis:// or http:// store",
      scheme,
      tool_name(tool),
      lacks,
      has_storage_helpers(tool.version)
        ? fmt::format(" without a storage helper (ccache-storage-{} is not installed)", scheme)
        : "");
  if (has_storage_helpers(tool.version)) {
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

// What sccache is told for URL (one store, |attributes): its kind's variables, the CA file, and
// the store's read-only mode; or why URL is no store sccache knows.
SccacheStore sccache_store(std::string_view url, bool read_only) {
  SccacheStore store;
  auto [base, attributes] = split_attributes(url);
  StoreUrl parsed;
  parsed.scheme = scheme_of(base);
  parsed.rest = base.substr(parsed.scheme.size() + (parsed.scheme.empty() ? 0 : 1));
  if (parsed.scheme.empty() || !parsed.rest.starts_with("//")) {
    store.problem = fmt::format("is not a store sccache knows ({})", store::sccache_forms);
    return store;
  }
  parsed.authority = authority_of(parsed.rest);
  if (parsed.authority.userinfo)
    std::tie(parsed.user, parsed.password) = store::user_and_password(*parsed.authority.userinfo);
  parsed.attributes = attributes;
  const auto* kind = store_kind_of(parsed.scheme);
  auto& env = store.environment;
  for (auto [key, value] : attributes) {
    if (key == "read-only" && value.empty()) {
      read_only = true;
    } else if (key == "ca" && value.starts_with('/')) {
      env.push_back(fmt::format("SSL_CERT_FILE={}", value));
    } else if (key == "ca") {
      store.problem =
        "has |ca= without an absolute path to a CA file (e.g. |ca=/etc/ssl/team-ca.crt)";
      return store;
    } else if (!kind || !kind->takes_attribute(parsed.scheme, key, value)) {
      store.problem = fmt::format(
        "has attribute '{}{}{}', which sccache's {} store does not take (|read-only, |ca=FILE{})",
        key,
        value.empty() ? "" : "=",
        value,
        parsed.scheme,
        kind ? kind->attribute_list(parsed.scheme) : "");
      return store;
    }
  }
  if (!kind) {
    store.problem = store::sccache_has_no(parsed.scheme);
    return store;
  }
  auto kind_store = kind->sccache_store(parsed);
  if (!kind_store.problem.empty())
    return kind_store;
  env.insert(env.end(), kind_store.environment.begin(), kind_store.environment.end());
  if (read_only)
    env.push_back(fmt::format("SCCACHE_{}_RW_MODE=READ_ONLY", kind->sccache_backend()));
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
                store::sccache_forms);
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

bool sccache_has_tiers(std::string_view version) {
  return version_at_least(version, 0, 15);
}

std::string sccache_tier_chain(std::string_view url, std::string_view version) {
  const auto* kind = store_kind_of(scheme_of(split_attributes(url).first));
  if (!sccache_has_tiers(version) || !kind || kind->sccache_backend().empty())
    return {};
  std::string level(kind->sccache_backend());
  std::ranges::transform(level, level.begin(), [](unsigned char c) { return std::tolower(c); });
  return "SCCACHE_MULTILEVEL_CHAIN=disk," + level;
}

bool names_read_only(std::string_view url) {
  for (auto storage : util::words_of(url))
    for (auto [key, value] : split_attributes(storage).second)
      if (key == "read-only")
        return true;
  return false;
}

std::string with_environment_keys(std::string url) {
  const auto* kind = store_kind_of(scheme_of(url));
  return kind ? kind->with_environment_credential(std::move(url)) : url;
}

} // namespace shimctl::cache
