// sccache runs a server per port; the server reads its configuration
// (SCCACHE_DIR, SCCACHE_CACHE_SIZE, SCCACHE_REDIS) once, from the environment
// of the client that started it. The shim's defaults reach only the client,
// so every distinct cache configuration gets its own server port: a shim
// never hands its compiles to a server started with another cache.
#pragma once

#include <cstdint>
#include <shimctl/core/manifest.hpp>
#include <shimctl/util/error.hpp>
#include <string>

namespace shimctl::cache {

// A port in [first_port, first_port + port_count) derived from the cache
// configuration (dir, size, remote, read-only): the same settings, the same
// server. Below Linux's ephemeral range (32768-60999).
inline constexpr std::uint16_t sccache_first_port = 10000;
inline constexpr std::uint16_t sccache_port_count = 20000;
[[nodiscard]] std::uint16_t sccache_server_port(const core::CacheSettings& settings);

// Refuses remote settings sccache 0.4 cannot honour: only redis:// URLs
// (no WebDAV/HTTP backend), and no read-only Redis (it would write).
[[nodiscard]] util::Status check_sccache_remote(const core::CacheSettings& settings);

} // namespace shimctl::cache
