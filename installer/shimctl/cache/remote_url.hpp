// The remote storage URL forms each cache tool stores to, checked before any
// work: `install --remote URL` that the tool would refuse at the first compile
// (or read as a server without a host) is bad input, refused with exit 2 and
// one line naming --remote and a form that works. URLs are shown redacted
// (util::redact_credentials): a password never reaches a message.
#pragma once

#include <shimctl/core/manifest.hpp>
#include <shimctl/util/error.hpp>
#include <string_view>

namespace shimctl::cache {

// URL in the forms ccache reads at TOOL.version ("4.7.5"; empty: unknown, every
// form of a recent version is accepted; TOOL.path's directory may hold storage
// helpers): a space-separated list of storages, each
//   redis://[[USER:]PASSWORD@]HOST[:PORT][/DB], redis+unix:/SOCKET[?db=N]
//   (or redis+unix://[PASSWORD@localhost]/SOCKET), http://HOST[:PORT][/PATH],
//   file:/DIR or file://[localhost]/DIR,
// followed by |ATTRIBUTE[=VALUE] (|read-only, |shards=A,B with a '*' in the URL
// for the shard names, |umask=002, ...). From 4.13 also crsh:ENDPOINT, any
// scheme whose storage helper ccache-storage-SCHEME is installed, and
// properties as separate words ("http://HOST/* shards=a,b").
[[nodiscard]] util::Status check_ccache_remote_url(std::string_view url,
                                                   const core::CacheSettings& tool);

// URL in a form sccache (>= 0.5: its Redis, WebDAV and S3 stores) reads:
//   redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] (PASSWORD@ alone: ccache's form), rediss://...,
//   redis://HOST:PORT|cluster[=HOST:PORT,...] (a Redis Cluster, given its seed nodes),
//   http(s)://[USER:PASSWORD@]HOST[:PORT]/PATH (WebDAV; the server must answer PROPFIND),
//   s3://[KEY_ID:SECRET@]BUCKET[/PREFIX]|endpoint=URL|region=R|virtual-host|no-credentials,
// each with |read-only and |ca=/ABSOLUTE/CA.crt (the CA sccache checks the store's certificate
// against: SSL_CERT_FILE). Refused for an sccache without remote storage (Debian's 0.4).
[[nodiscard]] util::Status check_sccache_remote_url(std::string_view url,
                                                    const core::CacheSettings& tool);

// sccache at VERSION has remote storage built in; Debian's 0.4.0-pre.6 has none (every compile
// fails with "cache type is not enabled"). An unknown version is taken to have it.
[[nodiscard]] bool sccache_has_remote_storage(std::string_view version);

// What tells sccache to store to URL (checked by check_sccache_remote_url): NAME=VALUE lines
// (SCCACHE_REDIS_ENDPOINT, SCCACHE_REDIS_PASSWORD, SCCACHE_WEBDAV_ENDPOINT, SCCACHE_BUCKET,
// AWS_SECRET_ACCESS_KEY, SSL_CERT_FILE, SCCACHE_*_RW_MODE=READ_ONLY with READ_ONLY, ...).
[[nodiscard]] std::vector<std::string> sccache_store_environment(std::string_view url,
                                                                 bool read_only);

// sccache at VERSION keeps its local disk cache in front of a store (SCCACHE_MULTILEVEL_CHAIN,
// sccache >= 0.15): hits read the disk first, a hit from the store is back-filled, every compile
// writes both; the local level is sccache's preprocessor cache too.
[[nodiscard]] bool sccache_has_tiers(std::string_view version);
// The chain for URL's store (one check_sccache_remote_url accepts) under the local disk cache
// ("SCCACHE_MULTILEVEL_CHAIN=disk,redis"), or "" when sccache at VERSION has no tiers or URL's
// scheme names no sccache store.
[[nodiscard]] std::string sccache_tier_chain(std::string_view url, std::string_view version);

// URL (any tool's form) asks to read only: one of its storages has the attribute |read-only
// (the same as --remote-read-only).
[[nodiscard]] bool names_read_only(std::string_view url);

// URL with the credential its store kind takes from install's environment (s3_store.cpp:
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, for an s3:// URL that names none and has no
// |no-credentials): the secrets file then carries it (secrets.hpp). Any other URL as given.
[[nodiscard]] std::string with_environment_keys(std::string url);

} // namespace shimctl::cache
