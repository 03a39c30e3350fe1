// The user's identity snapshot: where the shim's helper keeps the snapshot
// for a user who may not write PREFIX/.shimctl (a toolchain owned by root,
// a read-only image), so that after a toolchain change such a user re-hashes
// once, not on every compile until root runs `shimctl refresh`.
//
// Path: the rule in shim/formats.h, which the shim uses too
// (${XDG_CACHE_HOME:-$HOME/.cache}/shimctl/identity/<PREFIX, '%' and '/' as
// %25 and %2F>). Format: an identity snapshot whose first input is
// PREFIX/.shimctl/manifest.json, so that it is of this prefix and of the
// manifest whose input list it covers (a re-install makes it stale). The
// shim trusts it only as a regular file of its own user that no one else may
// write; the helper writes it only below a cache directory of that user.
#pragma once

#include <optional>
#include <shimctl/identity/identity_snapshot.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::identity {

// The file name for PREFIX; nullopt when it would be longer than NAME_MAX.
[[nodiscard]] std::optional<std::string> user_snapshot_name(std::string_view prefix);

// The cache directory the snapshots go under, from XDG_CACHE_HOME and HOME
// (both only when absolute); nullopt when neither is usable.
[[nodiscard]] std::optional<std::string> user_cache_home(const char* xdg_cache_home,
                                                         const char* home);

// Writes the user's snapshot for PREFIX: FINGERPRINT, then MANIFEST's stat
// data, then INPUTS'. Returns its path. Fails (writing nothing) when there is
// no usable cache directory, or it or a directory on the way below it is a
// symlink, not this user's, or writable by others.
[[nodiscard]] util::Result<std::string> write_user_snapshot(const std::string& prefix,
                                                            const std::string& fingerprint,
                                                            const InputStat& manifest,
                                                            const std::vector<InputStat>& inputs);

} // namespace shimctl::identity
