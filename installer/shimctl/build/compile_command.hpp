// What one generated compile command runs: the launcher before the compiler, and the compiler.
// Read from the command itself (a Ninja rule's `command = `, a Makefile recipe line, an entry
// of compile_commands.json), not from CMakeCache.txt: a project may set CMAKE_CXX_COMPILER
// after project() (HIP's own CMakeLists does), and then every rule runs a compiler the cache
// does not name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shimctl::build {

struct CompileCommand {
  std::string launcher; // the words run before the compiler, one space apart ("" = none)
  std::string compiler; // the program run as the compiler ("" = none found)
};

// What CMakeCache.txt says, to split a command where the generated text alone is ambiguous.
struct CompileHints {
  std::string compiler; // CMAKE_<LANG>_COMPILER
  std::string launcher; // CMAKE_<LANG>_COMPILER_LAUNCHER (a CMake list: "env;A=1;ccache")
};

// The words of a shell command line: blanks separate, '...' and "..." quote, a backslash
// escapes the next character (outside '...').
[[nodiscard]] std::vector<std::string> shell_words(std::string_view line);

// The launcher and the compiler of COMMAND. Leading `cd DIR &&` (Makefiles in a subdirectory)
// is skipped; `cmake -E __run_co_compile --launcher=L ... -- CC ARGS` (with clang-tidy,
// cppcheck, include-what-you-use) gives L and CC. Otherwise the words before the first
// argument (a word starting with '-' or a build variable: `$FLAGS`, `$(CXX_FLAGS)`) are the
// launcher then the compiler: the cached launcher's words when the command starts with them,
// else everything before the cached compiler when it is one of those words, else everything
// before the last of them.
[[nodiscard]] CompileCommand split_compile_command(std::string_view command,
                                                   const CompileHints& hints);

// True when LAUNCHER runs a compiler cache: one of its words (a CMake list's items too) is
// ccache or sccache by name (ccache, /usr/bin/sccache, env CCACHE_SLOPPINESS=x ccache).
[[nodiscard]] bool launcher_is_cache(std::string_view launcher);

// The name of the cache tool a launcher runs (cache::tool_launched_by); "" when none.
[[nodiscard]] std::string launcher_cache_name(std::string_view launcher);

} // namespace shimctl::build
