#include <doctest/doctest.h>
#include <shimctl/build/build_files.hpp>
#include <shimctl/build/compile_command.hpp>

using namespace shimctl::build;

TEST_SUITE_BEGIN("core::compile_command");

TEST_CASE("shell_words: blanks, quotes, escapes") {
  using V = std::vector<std::string>;
  CHECK(shell_words("  a  b\tc ") == V{ "a", "b", "c" });
  CHECK(shell_words(R"("/opt/my rocm/bin/hipcc" -c 'x y.cpp')") ==
        V{ "/opt/my rocm/bin/hipcc", "-c", "x y.cpp" });
  CHECK(shell_words(R"(--launcher="env;A=1;ccache" a\ b "q\"x")") ==
        V{ "--launcher=env;A=1;ccache", "a b", "q\"x" });
  CHECK(shell_words("").empty());
}

// The commands below are what CMake 3.25 (Debian 12) and 4.3 (sid) wrote for a project that
// sets CMAKE_CXX_COMPILER to hipcc after project(): CMakeCache.txt says /usr/bin/c++.
TEST_CASE("split_compile_command: the compiler the rule runs, not the cached one") {
  CompileHints cached{ "/usr/bin/c++", "" };
  SUBCASE("Ninja rule, no launcher") {
    auto c = split_compile_command("/opt/rocm/bin/hipcc $DEFINES $INCLUDES $FLAGS -MD -MT $out "
                                   "-MF $DEP_FILE -o $out -c $in",
                                   cached);
    CHECK(c.compiler == "/opt/rocm/bin/hipcc");
    CHECK(c.launcher.empty());
  }
  SUBCASE("Ninja rule with a launcher") {
    auto c = split_compile_command("ccache /opt/rocm/bin/hipcc $DEFINES -c $in", cached);
    CHECK(c.compiler == "/opt/rocm/bin/hipcc");
    CHECK(c.launcher == "ccache");
  }
  SUBCASE("a launcher with an environment, from the cached list") {
    CompileHints with_list{ "/usr/bin/c++", "env;CCACHE_SLOPPINESS=time_macros;ccache" };
    auto c = split_compile_command(
      "env CCACHE_SLOPPINESS=time_macros ccache /opt/rocm/bin/hipcc $DEFINES -c $in", with_list);
    CHECK(c.compiler == "/opt/rocm/bin/hipcc");
    CHECK(c.launcher == "env CCACHE_SLOPPINESS=time_macros ccache");
  }
  SUBCASE("a launcher with a flag: only the cached list tells where it ends") {
    auto cmd = "/usr/bin/time -v /opt/rocm/bin/hipcc $DEFINES -c $in";
    CHECK(split_compile_command(cmd, { "", "/usr/bin/time;-v" }).compiler == "/opt/rocm/bin/hipcc");
    CHECK(split_compile_command(cmd, {}).compiler == "/usr/bin/time");
  }
  SUBCASE("the cached compiler, when the rule runs it") {
    auto c = split_compile_command("ccache /usr/bin/c++ $DEFINES -c $in", cached);
    CHECK(c.compiler == "/usr/bin/c++");
    CHECK(c.launcher == "ccache");
  }
  SUBCASE("Makefile recipe in a subdirectory") {
    auto c = split_compile_command("\tcd /b/sub && ccache /opt/rocm/bin/hipcc $(CXX_DEFINES) "
                                   "$(CXX_INCLUDES) $(CXX_FLAGS) -o x.o -c /s/sub/x.cpp",
                                   cached);
    CHECK(c.compiler == "/opt/rocm/bin/hipcc");
    CHECK(c.launcher == "ccache");
  }
  SUBCASE("co-compile (clang-tidy): the launcher is cmake's --launcher") {
    auto c = split_compile_command(
      R"(/usr/bin/cmake -E __run_co_compile --launcher="env;A=1;ccache" )"
      R"(--tidy="/bin/true;--extra-arg-before=--driver-mode=g++" --source=$in -- )"
      "/opt/rocm/bin/hipcc $DEFINES -c $in",
      cached);
    CHECK(c.compiler == "/opt/rocm/bin/hipcc");
    CHECK(c.launcher == "env A=1 ccache");
    auto bare = split_compile_command("$(CMAKE_COMMAND) -E __run_co_compile --tidy=/bin/true "
                                      "--source=x.cpp -- /opt/rocm/bin/hipcc -c x.cpp",
                                      cached);
    CHECK(bare.compiler == "/opt/rocm/bin/hipcc");
    CHECK(bare.launcher.empty());
  }
  SUBCASE("nothing before the arguments") {
    CHECK(split_compile_command("$FLAGS -c $in", cached).compiler.empty());
  }
}

TEST_CASE("launcher_cache_name: ccache or sccache anywhere in the launcher") {
  CHECK(launcher_cache_name("ccache") == "ccache");
  CHECK(launcher_cache_name("/usr/bin/sccache") == "sccache");
  CHECK(launcher_cache_name("env CCACHE_SLOPPINESS=x /usr/local/bin/ccache") == "ccache");
  CHECK(launcher_cache_name("env;A=1;sccache") == "sccache");
  CHECK(launcher_cache_name("distcc").empty());
  CHECK(launcher_cache_name("").empty());
  CHECK(launcher_is_cache("ccache"));
  CHECK_FALSE(launcher_is_cache("/usr/bin/time -v"));
}

TEST_CASE("expand_ninja: build variables in, unbound ones empty, $in and $out kept") {
  std::map<std::string, std::string> vars{ { "LAUNCHER", "ccache " }, { "DEFINES", "-DA=1" } };
  CHECK(expand_ninja("${LAUNCHER}${CODE_CHECK}/usr/bin/hipcc $DEFINES -o $out -c $in", vars) ==
        "ccache /usr/bin/hipcc -DA=1 -o $out -c $in");
  CHECK(expand_ninja("${LAUNCHER}${CODE_CHECK}/usr/bin/hipcc $FLAGS -c $in", {}) ==
        "/usr/bin/hipcc  -c $in");
  CHECK(expand_ninja("a$$b$ c$:d", {}) == "a$b c:d");
  CHECK(expand_ninja("x ${unterminated", {}) == "x ${unterminated");
}

TEST_SUITE_END();
