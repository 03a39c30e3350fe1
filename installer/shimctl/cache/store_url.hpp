// The parts of a team store's URL that every store kind reads alike: the scheme, the authority
// ([USER:PASSWORD@]HOST[:PORT]), the attributes after '|' (URL|read-only|KEY=VALUE), the
// credential. Each kind (store_kind.hpp) judges and renders the rest; util::redact_credentials
// masks what these name as the credential, for every kind.
#pragma once

#include <optional>
#include <shimctl/core/manifest.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shimctl::cache::store {

// SCHEME of "SCHEME:REST" (RFC 3986: a letter, then letters, digits, + - .), or "".
[[nodiscard]] std::string_view scheme_of(std::string_view text);

// An attribute or property: KEY or KEY=VALUE, KEY a word ("read-only", "shards=a,b", "@umask=002").
[[nodiscard]] bool is_attribute(std::string_view word);

struct Authority {
  std::optional<std::string_view> userinfo; // USER:PASSWORD, PASSWORD, :PASSWORD
  std::string_view host;
  std::optional<std::string_view> port;
  std::string_view rest; // path, query, fragment
};

// AFTER_COLON = "//[USERINFO@]HOST[:PORT]REST".
[[nodiscard]] Authority authority_of(std::string_view after_colon);

// Why A is no HOST[:PORT] ("" when it is one); EXAMPLE shows a form that works.
[[nodiscard]] std::string host_port_problem(const Authority& a, std::string_view example);

// HOST[:PORT] of A as the URL names them ("cache:6379").
[[nodiscard]] std::string host_and_port(const Authority& a);

// HOST:PORT of A, DEFAULT_PORT when it names none (the store line's address, shim/formats.h).
[[nodiscard]] std::string address_of(const Authority& a, std::string_view default_port);

using Attributes = std::vector<std::pair<std::string_view, std::string_view>>;

// STORE ("URL|KEY=VALUE|KEY"): its URL and its (KEY, VALUE) pairs in order.
[[nodiscard]] std::pair<std::string_view, Attributes> split_attributes(std::string_view store);

// USERINFO as USER:PASSWORD, :PASSWORD or PASSWORD (ccache's redis://PASSWORD@HOST), %XX decoded.
[[nodiscard]] std::pair<std::string, std::string> user_and_password(std::string_view userinfo);

// The stores sccache knows, for its messages.
inline constexpr std::string_view sccache_forms =
  "redis://[USER:PASSWORD@]HOST:PORT, rediss://..., redis://HOST:PORT|cluster, "
  "http(s)://[USER:PASSWORD@]HOST/PATH (WebDAV), s3://BUCKET/PREFIX|endpoint=URL|region=R";

// Why a store of SCHEME is none for sccache ("has scheme 'file', which sccache does not store
// to (FORMS)").
[[nodiscard]] std::string sccache_has_no(std::string_view scheme);

// The tool and its version for messages (ccache 4.7.5), or the tool alone when it is unknown.
[[nodiscard]] std::string tool_name(const core::CacheSettings& tool);

// VERSION ("4.7.5", "0.4.0-pre.6") is MAJOR.MINOR or later; an unknown (empty) version is taken
// to be recent.
[[nodiscard]] bool version_at_least(std::string_view version, int major, int minor);

} // namespace shimctl::cache::store
