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

// URL in the form sccache reads: one redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]
// (the SCCACHE_REDIS shimctl sets; sccache_tool.cpp).
[[nodiscard]] util::Status check_sccache_remote_url(std::string_view url,
                                                    const core::CacheSettings& tool);

} // namespace shimctl::cache
