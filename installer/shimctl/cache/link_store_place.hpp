// Where the device links' store is, and whether a link may write it (issue 36). Beside a shared
// cache (install --shared-cache DIR --group G) it is DIR/shimctl-device-links: the group's
// (setgid, inherited from DIR), directories 2770 and entries 0660, so that one member's link is
// another's hit; a user outside the group links uncached. Without a shared cache it is the user's
// own (<cache home>/shimctl/device-links, 0700). Only files are shared: every link runs as the
// user who asked for it. Read-only where the compile cache is: an install with
// --remote-read-only (an untrusted build's), or a build's environment that makes its cache tool
// read-only (Tool::environment_reads_only: CCACHE_READONLY, sccache's SCCACHE_LOCAL_RW_MODE); a
// read-only link may hit but changes nothing in the store.
#pragma once

#include <shimctl/core/manifest.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <string_view>

namespace shimctl::cache {

inline constexpr std::string_view shared_store_name = "shimctl-device-links";
inline constexpr std::string_view users_store_name = "device-links"; // core::user_cache_dir's

struct LinkStorePlace {
  std::string dir;        // "" when the user has no cache home
  bool shared = false;    // beside a shared cache: the group's modes
  bool read_only = false; // find and copy out only
};

// The store of the install whose cache settings are SETTINGS; the user's own without them.
[[nodiscard]] LinkStorePlace link_store_place(const core::CacheSettings* settings);

// The store of a link the shim hands over: the install's, whose state directory the shim names
// in SHIMCTL_LINK_STATE (the user's own when it is unset); an error naming the manifest when it
// cannot be read.
[[nodiscard]] util::Result<LinkStorePlace> link_store_place_of_link();

} // namespace shimctl::cache
