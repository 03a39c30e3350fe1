// A cache directory shared by several users without cache poisoning: owned by
// one group, setgid (new entries inherit the group), no access for others.
// The shim then gives it to ccache as file storage (CCACHE_REMOTE_STORAGE=
// file:DIR|umask=002, CCACHE_REMOTE_ONLY=1) so that members reuse and
// replace each other's entries, while a user outside the group can neither
// write nor read anything in it -- and still compiles: ccache counts a
// storage it cannot use as a miss, where an unwritable cache_dir would fail. A world-writable
// directory (1777, the usual "shared cache" mount) lets any local user plant objects that other
// users' builds link, so it is refused unless the caller accepts that explicitly.
#pragma once

#include <shimctl/util/error.hpp>
#include <string>
#include <sys/types.h>

namespace shimctl::cache {

inline constexpr mode_t shared_cache_mode = 02770;

struct SharedCacheRequest {
  std::string dir;   // --shared-cache DIR (absolute, or relative to the working directory)
  std::string group; // --group NAME
  bool allow_world_writable = false;
  bool create = true; // false: only check (dry run)
};

struct SharedCache {
  std::string dir; // canonical absolute path ("" in a dry run when DIR does not exist yet)
  gid_t gid = 0;
  std::string action; // what was done: "created ...", "set ...", "" when DIR was fine as it was
};

// The id of group NAME (--group); a usage error naming it when there is none.
[[nodiscard]] util::Result<gid_t> group_id(const std::string& name);

// Validates DIR, or creates it as group-owned setgid 2770; an existing DIR
// gets the group and the group bits it lacks. Refuses a world-writable DIR
// unless ALLOW_WORLD_WRITABLE.
[[nodiscard]] util::Result<SharedCache> prepare_shared_cache(const SharedCacheRequest& request);

} // namespace shimctl::cache
