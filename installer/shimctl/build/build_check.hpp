// `shimctl check-build BUILD_DIR`: does each language a CMake build tree compiles go through a
// compiler cache? Judges the compile commands the generated build files really run
// (build/build_files.*: Ninja, Makefiles, else compile_commands.json): each must run a cache
// as its launcher or a shimmed compiler. CMakeCache.txt gives the generator, the cached
// compilers and launchers (CMAKE_<LANG>_COMPILER[_LAUNCHER]): hints to split a command, the
// launcher of compile_commands.json entries, and what the report compares against.
#pragma once

#include <cstdint>
#include <shimctl/core/context.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <vector>

namespace shimctl::build {

struct LanguageCheck {
  std::string language;       // C, CXX, HIP, CUDA
  std::string compiler;       // what the compile commands run (the first uncached one's, if any)
  std::string cache_compiler; // CMAKE_<LANG>_COMPILER in CMakeCache.txt (may differ: a project
                              // can set CMAKE_<LANG>_COMPILER after project())
  std::string launcher;       // what runs before the compiler in the compile commands ("" = none)
  std::uint64_t sources = 0;  // compiles of this language in the build files
  bool compiler_is_shim = false;
  bool cached = false;
  std::string how; // "launcher ccache", "shimmed compiler", or why not
};

struct BuildCheck {
  std::string build_dir;
  std::string generator;                // Ninja | Unix Makefiles | compile_commands.json
  std::vector<LanguageCheck> languages; // only languages with compiles
  std::vector<std::string> warnings;
  [[nodiscard]] bool ok() const;
};

[[nodiscard]] util::Result<BuildCheck> check_build(const core::Context& context,
                                                   const std::string& build_dir);

// True when PATH (after symlinks) is a shimctl shim: listed as a compiler in the
// .shimctl.conf beside it, with the bytes of this shimctl's shim or of the one its
// prefix's manifest records.
[[nodiscard]] bool is_shim_path(const core::Context& context, const std::string& path);

} // namespace shimctl::build
