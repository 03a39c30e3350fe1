// Each user's own sccache server. sccache runs every compile in its server,
// with the rights of whoever started it and the storage settings it started
// with, and trusts whoever connects; so the shim gives every user a server of
// their own per cache configuration (shim/sccache_server.c): a unix socket in
// the user's private runtime directory (sccache >= 0.9), or a TCP port derived
// from the configuration and the uid whose listener must be the user's
// (sccache 0.4). This side names the configuration, finds the calling user's
// server for shimctl's own sccache calls, and stops the servers a prefix's
// shims started.
#pragma once

#include <cstddef>
#include <optional>
#include <shimctl/core/manifest.hpp>
#include <shimctl/util/error.hpp>
#include <string>

namespace shimctl::cache {

// SHIMCTL_SCCACHE_UNIX for sccache >= 0.9 (SCCACHE_SERVER_UDS), else
// SHIMCTL_SCCACHE_TCP.
[[nodiscard]] std::string sccache_transport(const core::CacheSettings& settings);

// 16 hex digits naming the configuration a server starts with (dir, size,
// remote, read-only, the secret's id): the same settings, the same server.
[[nodiscard]] std::string sccache_server_key(const core::CacheSettings& settings);

// "SCCACHE_SERVER_UDS=<private dir>/sccache-KEY.sock" or
// "SCCACHE_SERVER_PORT=<port>": where the calling user's server for KEY is,
// as the shim computes it; empty when the user has no usable private dir.
[[nodiscard]] std::string own_sccache_server(const std::string& transport, const std::string& key);

// Whether this user's server at SCCACHE_SERVER_UDS (when set) or else
// SCCACHE_SERVER_PORT (default 4226) runs; another user's listener on that
// port is another_users. Nothing connects to a port.
enum class ServerState { not_running, running, another_users };
[[nodiscard]] ServerState sccache_server_state(const std::optional<std::string>& uds,
                                               const std::optional<std::string>& port);

// Stops every sccache server whose environment says the shims of STATE_DIR
// started it (SHIMCTL_SCCACHE_SERVER_OF), whoever's: `SCCACHE --stop-server`
// at its socket or port (which lets it finish what it is doing), then SIGTERM
// for one that is still running after WAIT_SECONDS. Returns how many it
// stopped.
std::size_t stop_sccache_servers(const std::string& state_dir,
                                 const std::string& sccache,
                                 int wait_seconds = 15);

} // namespace shimctl::cache
