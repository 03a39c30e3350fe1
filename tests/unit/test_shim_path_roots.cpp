// Location-free paths (shim/path_roots.c) and the one table of value-taking options
// (shim/option_table.c).
#include <doctest/doctest.h>
#include <shim/option_table.h>
#include <shim/path_roots.h>
#include <string>
#include <vector>

namespace {

std::string free_form(const shimctl_roots& roots, const char* path) {
  char out[4096];
  const char* r = shimctl_location_free(&roots, path, out, sizeof out);
  return r ? std::string(r) : std::string("<none>");
}

std::vector<std::string> split(std::string text) {
  std::vector<char*> args(16);
  int n = shimctl_split_response_file(text.data(), text.size(), args.data(), 16);
  if (n < 0)
    return { "<error>" };
  return std::vector<std::string>(args.begin(), args.begin() + n);
}

} // namespace

TEST_SUITE_BEGIN("shim::path_roots");

TEST_CASE("paths under the build root are relative to the working directory") {
  shimctl_roots roots{ { "/a/proj/build", "/a/proj", nullptr }, "/a/proj/build" };
  CHECK(free_form(roots, "/a/proj/build/include/gen.h") == "include/gen.h");
  CHECK(free_form(roots, "/a/proj/build") == ".");
  roots.cwd = "/a/proj/build/sub/dir";
  CHECK(free_form(roots, "/a/proj/build/include") == "../../include");
  CHECK(free_form(roots, "/a/proj/build") == "../..");
  CHECK(free_form(roots, "/a/proj/build/sub/x.o") == "../x.o");
  CHECK(free_form(roots, "/a/proj/build/subway/x.o") == "../../subway/x.o");
}

TEST_CASE("paths under the source root go through the view, the same at any depth") {
  shimctl_roots a{ { "/home/alice/src/proj/build", "/home/alice/src/proj", nullptr },
                   "/home/alice/src/proj/build" };
  shimctl_roots c{
    { "/tmp/pip-req-build-x/build/temp.linux-x86_64", "/tmp/pip-req-build-x/proj", nullptr },
    "/tmp/pip-req-build-x/build/temp.linux-x86_64"
  };
  CHECK(free_form(a, "/home/alice/src/proj/src/k.hip") == ".shimctl-roots/s/src/k.hip");
  CHECK(free_form(c, "/tmp/pip-req-build-x/proj/src/k.hip") == ".shimctl-roots/s/src/k.hip");
  CHECK(free_form(a, "/home/alice/src/proj") == ".shimctl-roots/s");
  a.cwd = "/home/alice/src/proj/build/lib";
  CHECK(free_form(a, "/home/alice/src/proj/include") == "../.shimctl-roots/s/include");
  // The deeper root wins: the build tree inside the source tree.
  CHECK(free_form(a, "/home/alice/src/proj/build/gen.h") == "../gen.h");
}

TEST_CASE("a path under no root, a relative path, a root that is a prefix of a name") {
  shimctl_roots roots{ { "/w/b", "/w/s", "/v/lib/python3.11/site-packages" }, "/w/b" };
  CHECK(free_form(roots, "/opt/rocm/include") == "<none>");
  CHECK(free_form(roots, "include/x.h") == "<none>");
  CHECK(free_form(roots, "/w/src/x.hip") == "<none>");
  CHECK(free_form(roots, "/v/lib/python3.11/site-packages/torch/include") ==
        ".shimctl-roots/p/torch/include");
  CHECK(shimctl_root_of(&roots, "/w/s/x") == SHIMCTL_ROOT_SOURCE);
  CHECK(shimctl_root_of(&roots, "/w/sx") == -1);
  char small[8];
  CHECK(shimctl_location_free(&roots, "/w/s/a/long/name.h", small, sizeof small) == nullptr);
}

TEST_CASE("a base dir of the install has a view of its own; the deeper root wins") {
  shimctl_roots roots{};
  roots.path[SHIMCTL_ROOT_BUILD] = "/w/b";
  roots.path[SHIMCTL_ROOT_SOURCE] = "/deps/proj";
  roots.path[SHIMCTL_ROOT_BASE] = "/deps";
  roots.path[SHIMCTL_ROOT_BASE + 1] = "/opt/vendor";
  roots.cwd = "/w/b";
  CHECK(free_form(roots, "/deps/other/include") == ".shimctl-roots/b0/other/include");
  CHECK(free_form(roots, "/opt/vendor/x.h") == ".shimctl-roots/b1/x.h");
  CHECK(free_form(roots, "/deps/proj/src/k.hip") == ".shimctl-roots/s/src/k.hip");
  CHECK(std::string(shimctl_root_view_name(static_cast<shimctl_root>(SHIMCTL_ROOT_BASE + 3))) ==
        "b3");
}

TEST_CASE("an argument naming a root, a packages directory") {
  shimctl_roots roots{ { "/w/b", "/w/s", nullptr }, "/w/b" };
  CHECK(shimctl_names_a_root(&roots, "-DDATA=\"/w/s/data\"") == SHIMCTL_ROOT_SOURCE);
  CHECK(shimctl_names_a_root(&roots, "-DX=1") == -1);
  CHECK(shimctl_packages_dir_len("/v/lib/python3.11/site-packages/torch/include") ==
        std::string("/v/lib/python3.11/site-packages").size());
  CHECK(shimctl_packages_dir_len("/usr/lib/python3/dist-packages") ==
        std::string("/usr/lib/python3/dist-packages").size());
  CHECK(shimctl_packages_dir_len("/x/site-packages-old/y") == 0);
  CHECK(shimctl_packages_dir_len("/x/y") == 0);
}

TEST_CASE("arguments that bind the object to its place") {
  auto bound = [](std::vector<std::string> args) {
    args.insert(args.begin(), "clang++");
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    const char* r = shimctl_location_bound_argument(static_cast<int>(argv.size()), argv.data());
    return r ? std::string(r) : std::string();
  };
  CHECK(bound({ "-c", "x.hip", "-O2" }).empty());
  CHECK(bound({ "-c", "x.hip", "-g0" }).empty());
  CHECK(bound({ "-c", "x.cu", "-gencode", "arch=compute_90,code=sm_90" }).empty());
  CHECK(bound({ "-c", "x.hip", "-g" }) == "-g");
  CHECK(bound({ "-c", "x.hip", "-ggdb3" }) == "-ggdb3");
  CHECK(bound({ "-c", "x.hip", "--coverage" }) == "--coverage");
  CHECK(bound({ "-c", "x.hip", "-ffile-prefix-map=/a=." }) == "-ffile-prefix-map=/a=.");
  CHECK(bound({ "-c", "x.cu", "-lineinfo" }) == "-lineinfo");
  CHECK(bound({ "-c", "x.hip", "--save-temps" }) == "--save-temps");
  CHECK(bound({ "-c", "x.hip", "-fprofile-instr-generate" }) == "-fprofile-instr-generate");
}

TEST_CASE("response files split as gcc and clang split them") {
  CHECK(split("-I/a  -DX=1\n-c\tk.hip\n") ==
        std::vector<std::string>{ "-I/a", "-DX=1", "-c", "k.hip" });
  CHECK(split("'-I/with space' \"-DS=\\\"q\\\"\" a\\ b") ==
        std::vector<std::string>{ "-I/with space", "-DS=\"q\"", "a b" });
  CHECK(split("") == std::vector<std::string>{});
  CHECK(split("'open") == std::vector<std::string>{ "<error>" });
}

TEST_CASE("the option table") {
  CHECK(shimctl_separate_option("-I") != nullptr);
  CHECK(shimctl_separate_option("-I")->path);
  CHECK_FALSE(shimctl_separate_option("-D")->path);
  CHECK(shimctl_separate_option("-Ifoo") == nullptr);
  CHECK(shimctl_separate_option("x.hip") == nullptr);
  const char* value = nullptr;
  CHECK(std::string(shimctl_joined_path_option("-isystem/opt/x", &value)->name) == "-isystem");
  CHECK(std::string(value) == "/opt/x");
  CHECK(std::string(shimctl_joined_path_option("-I/a", &value)->name) == "-I");
  CHECK(std::string(shimctl_joined_path_option("-MF/b/x.d", &value)->name) == "-MF");
  CHECK(shimctl_joined_path_option("-MTx.o", &value) == nullptr);
  CHECK(shimctl_joined_path_option("-O2", &value) == nullptr);
}

TEST_SUITE_END();
