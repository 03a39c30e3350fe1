// The shim's configuration file (DIR/.shimctl.conf), one per directory that
// holds shims. Format: ARCHITECTURE.md, "The shim contract".
#pragma once

#include <shimctl/core/cache_backend.hpp>
#include <shimctl/core/manifest.hpp>
#include <string>
#include <vector>

namespace shimctl::core {

// Renders the config for the shims in DIR (relative to the prefix).
[[nodiscard]] std::string render_shim_config(const Manifest& manifest,
                                             const std::string& dir,
                                             const ShimEnvironment& env);

// The directories (relative) that hold shims, in order of first appearance.
[[nodiscard]] std::vector<std::string> shim_directories(const Manifest& manifest);

// Absolute paths of the identity inputs inside the prefix, for sccache's
// SCCACHE_EXTRAFILES (hashed on every compile: the system's shared libraries,
// hundreds of MB, are left to the fingerprint in its cache buster).
[[nodiscard]] std::vector<std::string> identity_paths(const Manifest& manifest);

} // namespace shimctl::core
