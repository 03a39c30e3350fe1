// The shim's configuration file (DIR/.shimctl.conf), one per directory that
// holds shims. Format: ARCHITECTURE.md, "The shim contract".
#pragma once

#include <optional>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/core/manifest.hpp>
#include <string>
#include <vector>

namespace shimctl::cache {

// The environment variables a compiler FAMILY's driver reads that change the
// object: the shim puts their values into the cache key (keyenv lines).
[[nodiscard]] std::vector<std::string> key_environment(const std::string& family);

// The program, beside the compiler, whose output names the GPU targets the
// driver picks when the command line names none (target-probe lines).
[[nodiscard]] std::optional<std::string> target_probe(const std::string& family);

// The program the compiler runs for --offload-arch=native (nvcc: -arch=native),
// absolute: amdgpu-arch beside clang (for hipcc: beside the clang among the
// toolchain's identity inputs), __nvcc_device_query beside nvcc (native-probe
// lines). DIR: the compiler's directory, relative to the prefix.
[[nodiscard]] std::optional<std::string> native_probe(const core::Manifest& manifest,
                                                      const std::string& family,
                                                      const std::string& dir);

// Renders the config for the shims in DIR (relative to the prefix).
[[nodiscard]] std::string render_shim_config(const core::Manifest& manifest,
                                             const std::string& dir,
                                             const ShimEnvironment& env);

// The directories (relative) that hold shims, in order of first appearance.
[[nodiscard]] std::vector<std::string> shim_directories(const core::Manifest& manifest);

// Absolute paths of the identity inputs inside the prefix, for sccache's
// SCCACHE_EXTRAFILES (hashed on every compile: the system's shared libraries,
// hundreds of MB, are left to the fingerprint in its cache buster).
[[nodiscard]] std::vector<std::string> identity_paths(const core::Manifest& manifest);

} // namespace shimctl::cache
