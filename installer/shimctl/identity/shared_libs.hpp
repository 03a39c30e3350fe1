// The shared libraries a toolchain's executables load. Their code decides
// the output as much as the executables' own (Debian's clang is a small
// binary over libLLVM and libclang-cpp in /usr/lib; LLVM even folds
// constants with the host's libm), so they are identity inputs too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shimctl::identity {

// Libraries in a dynamic loader's `--list` output (what ldd prints), as
// absolute paths, in order: "libX.so => /lib/libX.so (0x...)" and the loader's
// own "/lib64/ld-linux-x86-64.so.2 (0x...)"; the vDSO and "not found" are left out.
[[nodiscard]] std::vector<std::string> parse_loader_list(std::string_view output);

// The libraries the dynamically linked ELF executables among FILES load
// (absolute, symlinks resolved, each once), as the system's dynamic loader
// resolves them now: `PT_INTERP --list FILE`, which runs no code of FILE.
// Files that are not dynamically linked ELF executables (scripts, bitcode,
// static binaries) contribute nothing.
[[nodiscard]] std::vector<std::string> shared_libraries(const std::vector<std::string>& files);

} // namespace shimctl::identity
