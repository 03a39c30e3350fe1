#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <shim/formats.h>
#include <shimctl/build/build_check.hpp>

using namespace shimctl;
using test::make_temp_dir;
using test::write_text;

TEST_SUITE_BEGIN("build::check_build");

namespace {

// A temp dir with a fake "shim binary" (the bytes check-build compares), SHIMMED/bin/hipcc (a
// copy of it, listed in the .shimctl.conf beside it), PLAIN/bin/hipcc (a compiler), and a build
// tree BUILD with a CMakeCache.txt that names /usr/bin/c++, as after a project() that sets
// CMAKE_CXX_COMPILER later.
struct Tree {
  std::string root = make_temp_dir();
  std::string shimmed = root + "/shimmed/bin/hipcc";
  std::string plain = root + "/plain/bin/hipcc";
  std::string build = root + "/build";
  core::Context context;

  explicit Tree(const std::string& cache_extra = "") {
    context.shim_binary = root + "/shimctl-shim";
    write_text(context.shim_binary, "#!fake shim bytes\n");
    write_text(shimmed, "#!fake shim bytes\n");
    write_text(root + "/shimmed/bin/" SHIMCTL_CONFIG_NAME,
               std::string(SHIMCTL_CONFIG_HEADER "\n") + shimctl_directive_name(SHIMCTL_COMPILER) +
                 " hipcc hipcc.real\n");
    write_text(plain, "#!/bin/sh\n");
    write_text(build + "/CMakeCache.txt",
               "CMAKE_GENERATOR:INTERNAL=Ninja\n"
               "CMAKE_CXX_COMPILER:FILEPATH=/usr/bin/c++\n" +
                 cache_extra);
  }

  // rules.ninja with one CXX compile rule running COMMAND, build.ninja with two objects
  // (each followed by BINDINGS).
  void ninja(const std::string& command, const std::string& bindings = "") const {
    write_text(build + "/CMakeFiles/rules.ninja",
               "rule CXX_COMPILER__k_unscanned_\n"
               "  depfile = $DEP_FILE\n"
               "  command = " +
                 command +
                 "\n"
                 "  description = Building CXX object $out\n\n"
                 "rule CXX_EXECUTABLE_LINKER__k_\n"
                 "  command = $PRE_LINK && /usr/bin/c++ $in -o $TARGET_FILE && $POST_BUILD\n");
    std::string statements;
    for (const char* src : { "k.cpp", "util.cpp" })
      statements += std::string("build CMakeFiles/k.dir/") + src +
                    ".o: CXX_COMPILER__k_unscanned_ /src/" + src + "\n  DEFINES = -DX=1\n" +
                    bindings + "\n";
    write_text(build + "/build.ninja",
               statements + "build k: CXX_EXECUTABLE_LINKER__k_ CMakeFiles/k.dir/k.cpp.o\n");
  }

  [[nodiscard]] build::LanguageCheck only_language() const {
    auto check = build::check_build(context, build);
    REQUIRE(check);
    REQUIRE(check->languages.size() == 1);
    return check->languages.front();
  }
};

std::string rule_for(const std::string& compiler) {
  return compiler + " $DEFINES $INCLUDES $FLAGS -MD -MT $out -MF $DEP_FILE -o $out -c $in";
}

} // namespace

TEST_CASE("Ninja, CMAKE_CXX_COMPILER set after project(): the rules' hipcc is judged") {
  SUBCASE("shimmed hipcc: cached") {
    Tree t;
    t.ninja(rule_for(t.shimmed));
    auto l = t.only_language();
    CHECK(l.cached);
    CHECK(l.how == "shimmed compiler");
    CHECK(l.compiler == t.shimmed);
    CHECK(l.cache_compiler == "/usr/bin/c++");
    CHECK(l.compiler_is_shim);
    CHECK(l.sources == 2);
  }
  SUBCASE("plain hipcc, no launcher: UNCACHED") {
    Tree t;
    t.ninja(rule_for(t.plain));
    auto l = t.only_language();
    CHECK_FALSE(l.cached);
    CHECK(l.how == "no launcher, compiler is not a shim");
    CHECK(l.compiler == t.plain);
  }
  SUBCASE("plain hipcc behind ccache (CMake 3.25: the launcher in the rule)") {
    Tree t("CMAKE_CXX_COMPILER_LAUNCHER:UNINITIALIZED=ccache\n");
    t.ninja("ccache " + rule_for(t.plain));
    auto l = t.only_language();
    CHECK(l.cached);
    CHECK(l.how == "launcher ccache");
    CHECK(l.launcher == "ccache");
  }
  SUBCASE("plain hipcc behind ccache (CMake 4.3: the launcher in each build statement)") {
    Tree t;
    t.ninja(rule_for("${LAUNCHER}${CODE_CHECK}" + t.plain), "  LAUNCHER = ccache \n");
    auto l = t.only_language();
    CHECK(l.cached);
    CHECK(l.how == "launcher ccache");
    CHECK(l.compiler == t.plain);
  }
  SUBCASE("CMake 4.3 without a launcher") {
    Tree t;
    t.ninja(rule_for("${LAUNCHER}${CODE_CHECK}" + t.shimmed));
    auto l = t.only_language();
    CHECK(l.cached);
    CHECK(l.compiler == t.shimmed);
  }
  SUBCASE("a shimmed compiler behind ccache counts as the launcher") {
    Tree t;
    t.ninja("/usr/bin/ccache " + rule_for(t.shimmed));
    CHECK(t.only_language().how == "launcher ccache");
  }
}

TEST_CASE("one uncached rule makes the language UNCACHED") {
  Tree t;
  t.ninja(rule_for(t.shimmed));
  // A second target whose rule runs the plain hipcc.
  write_text(t.build + "/CMakeFiles/rules.ninja",
             test::read_text(t.build + "/CMakeFiles/rules.ninja") +
               "rule CXX_COMPILER__other_\n  command = " + rule_for(t.plain) + "\n");
  write_text(t.build + "/build.ninja",
             test::read_text(t.build + "/build.ninja") +
               "build o.o: CXX_COMPILER__other_ /src/o.cpp\n");
  auto l = t.only_language();
  CHECK_FALSE(l.cached);
  CHECK(l.sources == 3);
  CHECK(l.how == "some compiles without a launcher, compiler is not a shim");
  CHECK(l.compiler == t.plain);
}

TEST_CASE("Makefiles: the compile line after each Building line") {
  Tree t;
  std::filesystem::remove(t.build + "/CMakeFiles/rules.ninja");
  write_text(t.build + "/Makefile", "all:\n");
  auto recipe = [&](const std::string& compiler) {
    return "CMakeFiles/k.dir/k.cpp.o: /src/k.cpp\n"
           "\t@$(CMAKE_COMMAND) -E cmake_echo_color --switch=$(COLOR) --green "
           "\"Building CXX object CMakeFiles/k.dir/k.cpp.o\"\n"
           "\tcd " +
           t.build + "/sub && " + compiler +
           " $(CXX_DEFINES) $(CXX_INCLUDES) $(CXX_FLAGS) -MD -o CMakeFiles/k.dir/k.cpp.o -c "
           "/src/k.cpp\n";
  };
  SUBCASE("shimmed") {
    write_text(t.build + "/sub/CMakeFiles/k.dir/build.make", recipe(t.shimmed));
    auto l = t.only_language();
    CHECK(l.cached);
    CHECK(l.compiler == t.shimmed);
  }
  SUBCASE("plain") {
    write_text(t.build + "/sub/CMakeFiles/k.dir/build.make", recipe(t.plain));
    CHECK_FALSE(t.only_language().cached);
  }
  SUBCASE("plain behind a launcher with an environment") {
    write_text(t.build + "/sub/CMakeFiles/k.dir/build.make",
               recipe("env CCACHE_SLOPPINESS=time_macros ccache " + t.plain));
    auto l = t.only_language();
    CHECK(l.cached);
    CHECK(l.how == "launcher ccache");
  }
}

TEST_CASE("compile_commands.json: the cached launcher applies (CMake writes none there)") {
  auto entries = [](const std::string& compiler) {
    return R"([{"directory": "/b", "file": "/src/k.cpp", "command": ")" + compiler +
           R"( -x hip --offload-arch=gfx90a -o k.o -c /src/k.cpp"}])";
  };
  SUBCASE("shimmed, no launcher") {
    Tree t;
    write_text(t.build + "/compile_commands.json", entries(t.shimmed));
    auto check = build::check_build(t.context, t.build);
    REQUIRE(check);
    CHECK(check->generator == "compile_commands.json");
    REQUIRE(check->languages.size() == 1);
    CHECK(check->languages[0].language == "CXX"); // -x hip, but the project has no HIP
    CHECK(check->languages[0].cached);
  }
  SUBCASE("plain, launcher in the cache") {
    Tree t("CMAKE_CXX_COMPILER_LAUNCHER:STRING=env;A=1;ccache\n");
    write_text(t.build + "/compile_commands.json", entries(t.plain));
    auto l = t.only_language();
    CHECK(l.cached);
    CHECK(l.launcher == "env A=1 ccache");
  }
  SUBCASE("plain, no launcher") {
    Tree t;
    write_text(t.build + "/compile_commands.json", entries(t.plain));
    CHECK_FALSE(t.only_language().cached);
  }
}

TEST_CASE("a cached launcher the rules do not run: a warning says so") {
  Tree t("CMAKE_CXX_COMPILER_LAUNCHER:STRING=ccache\n");
  t.ninja(rule_for(t.plain));
  auto check = build::check_build(t.context, t.build);
  REQUIRE(check);
  CHECK_FALSE(check->ok());
  REQUIRE(check->warnings.size() == 1);
  CHECK(check->warnings[0] ==
        "CMakeCache.txt sets CMAKE_CXX_COMPILER_LAUNCHER=ccache but CXX compiles run without it "
        "(a target's CXX_COMPILER_LAUNCHER or the project overrides it)");
}

TEST_CASE("not a build tree") {
  auto dir = make_temp_dir();
  core::Context context;
  auto check = build::check_build(context, dir);
  REQUIRE_FALSE(check);
  CHECK(check.error().message ==
        dir + " has no CMakeCache.txt; pass a configured CMake build directory");
  write_text(dir + "/CMakeCache.txt", "CMAKE_GENERATOR:INTERNAL=Ninja\n");
  check = build::check_build(context, dir);
  REQUIRE_FALSE(check);
  CHECK(check.error().message ==
        dir + " has neither build.ninja, Makefiles nor compile_commands.json; run the CMake "
              "configure step first");
}

TEST_SUITE_END();
