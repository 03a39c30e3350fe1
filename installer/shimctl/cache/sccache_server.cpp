#include <shimctl/cache/sccache_server.hpp>
#include <shimctl/util/sha256.hpp>

namespace shimctl::cache {

std::uint16_t sccache_server_port(const core::CacheSettings& settings) {
  auto key = fmt::format("dir={}\nsize={}\nremote={}\nread-only={}\n",
                         settings.dir.value_or(""),
                         settings.max_size.value_or(""),
                         settings.remote.value_or(""),
                         settings.remote_read_only ? 1 : 0);
  auto digest = util::sha256_hex(key);
  auto value = std::stoul(digest.substr(0, 8), nullptr, 16);
  return static_cast<std::uint16_t>(sccache_first_port + value % sccache_port_count);
}

util::Status check_sccache_remote(const core::CacheSettings& settings) {
  if (settings.kind != "sccache" || !settings.remote)
    return {};
  if (!settings.remote->starts_with("redis://"))
    return util::fail(util::ExitCode::usage,
                      "--remote {}: sccache {} stores remotely only in Redis (redis://HOST:PORT); "
                      "use --cache ccache for http:// storage",
                      *settings.remote,
                      settings.version);
  if (settings.remote_read_only)
    return util::fail(util::ExitCode::usage,
                      "--remote-read-only: sccache {} has no read-only mode for Redis and would "
                      "write to it; use --cache ccache for a read-only remote",
                      settings.version);
  return {};
}

} // namespace shimctl::cache
