// The compile commands a configured CMake build tree runs, per language, read from the files
// CMake generated: Ninja (CMakeFiles/rules.ninja + build.ninja), Makefiles (*/build.make), or
// compile_commands.json. `check-build` judges these, not CMakeCache.txt's compilers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <shimctl/build/compile_command.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::build {

// The languages check-build knows (CMake's names).
[[nodiscard]] const std::vector<std::string>& build_languages();

struct LanguageCompiles {
  std::uint64_t sources = 0;            // compiles of this language in the build files
  std::vector<CompileCommand> commands; // what they run (Ninja: one per build statement)
};

using CompilesByLanguage = std::map<std::string, LanguageCompiles>;
using HintsByLanguage = std::map<std::string, CompileHints>; // from CMakeCache.txt

// Ninja: each build statement of a `<LANG>_COMPILER__*` rule, with the rule's command expanded
// by that statement's variables (CMake >= 3.27 writes `${LAUNCHER}${CODE_CHECK}/path/cc ...` in
// the rule and `LAUNCHER = ccache ` in the build statement).
[[nodiscard]] CompilesByLanguage scan_ninja(const std::filesystem::path& build_dir,
                                            const HintsByLanguage& hints);

// Makefiles: in every build.make, the compile line after each `Building <LANG> object`.
[[nodiscard]] CompilesByLanguage scan_makefiles(const std::filesystem::path& build_dir,
                                                const HintsByLanguage& hints);

// compile_commands.json, which CMake writes without launchers: an entry's launcher is the one
// its command shows, else the cached CMAKE_<LANG>_COMPILER_LAUNCHER. Its language: that of the
// cached compiler it runs, else `-x hip`/`-x cuda`, else the source's extension.
[[nodiscard]] CompilesByLanguage scan_compile_commands(const std::filesystem::path& file,
                                                       const HintsByLanguage& hints);

// TEXT with Ninja's escapes ($$, $ , $:) resolved and `$NAME`/`${NAME}` replaced by
// VARIABLES[NAME]; unbound, a variable is empty (as in Ninja), except `$in`, `$out` and
// `$in_newline`, which stay as written (file names: arguments).
[[nodiscard]] std::string expand_ninja(std::string_view text,
                                       const std::map<std::string, std::string>& variables);

} // namespace shimctl::build
