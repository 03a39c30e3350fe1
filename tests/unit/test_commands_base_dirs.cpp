// install's --base-dir (commands::canonical_base_dirs): what it refuses, with the exact line, and
// the spelling it keeps; on an installed prefix (requested_reconfiguration) a new list replaces
// the installed one and no --base-dir keeps it, as --max-size does.
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <shimctl/commands/install_options.hpp>
#include <shimctl/commands/reconfigure.hpp>

using namespace shimctl;

namespace {

// The refusal of DIRS: its message (a usage error, exit 2).
std::string refusal(const std::vector<std::string>& dirs) {
  auto r = commands::canonical_base_dirs(dirs);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == util::ExitCode::usage);
  return r.error().message;
}

core::Manifest installed_with(std::vector<std::string> base_dirs) {
  core::Manifest m;
  m.prefix = "/opt/rocm-test";
  m.cache.kind = "ccache";
  m.cache.path = "/usr/bin/ccache";
  m.cache.max_size = "5G";
  m.cache.base_dirs = std::move(base_dirs);
  return m;
}

cache::SecretsFile no_secrets() {
  cache::SecretsFile s;
  s.state = cache::SecretsFile::State::absent;
  return s;
}

} // namespace

TEST_SUITE_BEGIN("commands::BaseDirs");

TEST_CASE("kept in order, spelled without '.', repeated or trailing '/'; symlinks kept") {
  auto dir = test::make_temp_dir();
  std::filesystem::create_directories(dir + "/m1/deps");
  std::filesystem::create_directories(dir + "/other");
  std::filesystem::create_symlink(dir + "/m1", dir + "/link");
  auto r = commands::canonical_base_dirs(
    { dir + "/other/", dir + "//m1/./deps//", dir + "/link/deps", dir + "/" });
  REQUIRE(r);
  CHECK(*r ==
        std::vector<std::string>{ dir + "/other", dir + "/m1/deps", dir + "/link/deps", dir });
  CHECK(commands::canonical_base_dirs({})->empty());
}

TEST_CASE("bad --base-dir values: one line naming the problem and what to do") {
  auto dir = test::make_temp_dir();
  test::write_text(dir + "/file", "x");
  std::filesystem::create_directories(dir + "/a:b");
  CHECK(refusal({ "deps" })
          .starts_with(
            "--base-dir: deps is a relative path; name the directory by its absolute path (e.g. "
            "--base-dir /"));
  CHECK(refusal({ "" }) == "--base-dir is empty; name a directory by its absolute path");
  CHECK(refusal({ dir + "/missing" }) ==
        "--base-dir: " + dir +
          "/missing does not exist; name an existing directory (the top of a dependency tree)");
  CHECK(refusal({ dir + "/file" }) ==
        "--base-dir: " + dir + "/file is a file, not a directory; name a directory");
  CHECK(refusal({ dir + "/a:b" }) ==
        "--base-dir: " + dir +
          "/a:b holds a ':', which separates the base dirs in SHIMCTL_BASE_DIRS; name a directory "
          "whose path has none");
  CHECK(refusal({ dir + "/../x" }) ==
        "--base-dir: " + dir +
          "/../x has a '..' component; name the directory as your compiles do, without '..'");
  CHECK(refusal({ "/" }) ==
        "--base-dir: / holds every path; name the top directory of a dependency tree");
  CHECK(refusal({ "/tmp/a\nsetenv X=1" }) ==
        "--base-dir: the path holds a control character; name a directory without one");
  CHECK(refusal({ dir, dir + "/" }) ==
        "--base-dir: " + dir + "/ is given twice; name each directory once");
  CHECK(refusal({ dir, dir, dir, dir, dir }) ==
        "--base-dir is given 5 times; the shim takes at most 4 base dirs: give the 4 that hold "
        "your dependency trees");
}

TEST_CASE("an installed prefix: --base-dir replaces the list; without it the list is kept") {
  auto dir = test::make_temp_dir();
  std::filesystem::create_directories(dir + "/m2/deps");
  std::filesystem::create_directories(dir + "/sdk");
  commands::InstallOptions o;
  o.prefix = "/opt/rocm-test";

  SUBCASE("none before") {
    o.base_dirs = { dir + "/m2/deps/", dir + "/sdk" };
    auto r = commands::requested_reconfiguration(o, installed_with({}), no_secrets());
    REQUIRE(r);
    CHECK(r->changes ==
          std::vector<std::string>{ "base dirs: none -> " + dir + "/m2/deps:" + dir + "/sdk" });
    CHECK(r->cache.base_dirs == std::vector<std::string>{ dir + "/m2/deps", dir + "/sdk" });
    CHECK(r->cache.max_size == "5G");
  }
  SUBCASE("another list") {
    o.base_dirs = { dir + "/sdk" };
    auto r = commands::requested_reconfiguration(o, installed_with({ "/m1/deps" }), no_secrets());
    REQUIRE(r);
    CHECK(r->changes == std::vector<std::string>{ "base dirs: /m1/deps -> " + dir + "/sdk" });
    CHECK(r->cache.base_dirs == std::vector<std::string>{ dir + "/sdk" });
  }
  SUBCASE("the same list, spelled otherwise: nothing changes") {
    o.base_dirs = { dir + "//sdk/" };
    auto r = commands::requested_reconfiguration(o, installed_with({ dir + "/sdk" }), no_secrets());
    REQUIRE(r);
    CHECK(r->changes.empty());
  }
  SUBCASE("no --base-dir: kept") {
    o.max_size = "10G";
    auto r = commands::requested_reconfiguration(o, installed_with({ "/m1/deps" }), no_secrets());
    REQUIRE(r);
    CHECK(r->changes == std::vector<std::string>{ "max size: 5G -> 10G" });
    CHECK(r->cache.base_dirs == std::vector<std::string>{ "/m1/deps" });
  }
}

TEST_SUITE_END();
