// sccache as a cache::Tool (tool.hpp): each user's own server per
// configuration (sccache_server.hpp), the identity in its cache buster and
// SCCACHE_EXTRAFILES, a Redis remote in SCCACHE_REDIS, statistics from its
// server's --show-stats, hits from a statistics delta.
#pragma once

#include <shimctl/cache/tool.hpp>

namespace shimctl::cache {

[[nodiscard]] const Tool& sccache_tool();

} // namespace shimctl::cache
