#include "temp_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <shimctl/identity/user_snapshot.hpp>
#include <sys/stat.h>
#include <unistd.h>

using namespace shimctl;
using shimctl::test::make_temp_dir;
using shimctl::test::read_text;
using shimctl::test::write_text;

namespace fs = std::filesystem;

namespace {

// Sets NAME=VALUE (or unsets it) for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char* name, const char* value)
    : name_(name) {
    if (const char* old = std::getenv(name))
      old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char* name_;
  std::optional<std::string> old_;
};

identity::InputStat input(const std::string& path, std::uint64_t inode) {
  return { path, inode, 10, 20, 30 };
}

} // namespace

TEST_SUITE_BEGIN("core.user_snapshot");

TEST_CASE("user_snapshot_name: the prefix with '/' and '%' escaped, within NAME_MAX") {
  CHECK(identity::user_snapshot_name("/opt/rocm") == "%2Fopt%2Frocm");
  CHECK(identity::user_snapshot_name("/a%2Fb") == "%2Fa%252Fb"); // never the same as /a/b
  CHECK(identity::user_snapshot_name("/a/b") == "%2Fa%2Fb");
  CHECK(identity::user_snapshot_name("/" + std::string(300, 'x')) == std::nullopt);
}

TEST_CASE("user_cache_home: XDG_CACHE_HOME, else HOME/.cache; only absolute paths") {
  CHECK(identity::user_cache_home("/x/cache", "/home/u") == "/x/cache");
  CHECK(identity::user_cache_home("relative", "/home/u") == "/home/u/.cache");
  CHECK(identity::user_cache_home(nullptr, "/home/u") == "/home/u/.cache");
  CHECK(identity::user_cache_home(nullptr, "home") == std::nullopt);
  CHECK(identity::user_cache_home(nullptr, nullptr) == std::nullopt);
}

TEST_CASE("write_user_snapshot: the manifest first, below the user's own cache directory") {
  auto home = make_temp_dir();
  ::chmod(home.c_str(), 0700);
  ScopedEnv no_xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv set_home("HOME", home.c_str());
  auto manifest = input("/opt/rocm/.shimctl/manifest.json", 7);
  std::vector<identity::InputStat> inputs{ input("/opt/rocm/bin/hipcc.real", 8) };
  std::string fingerprint(64, 'a');

  SUBCASE("HOME/.cache made when missing; the snapshot names the prefix's manifest first") {
    auto path = identity::write_user_snapshot("/opt/rocm", fingerprint, manifest, inputs);
    REQUIRE(path);
    CHECK(*path == home + "/.cache/shimctl/identity/%2Fopt%2Frocm");
    CHECK(read_text(*path) == "shimctl-identity 1\nfingerprint " + fingerprint +
                                "\ndir /opt/rocm/.shimctl\n7 10 20 30 manifest.json\n"
                                "dir /opt/rocm/bin\n8 10 20 30 hipcc.real\n");
    struct stat st {};
    REQUIRE(::stat((home + "/.cache/shimctl").c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0700);
  }
  SUBCASE("a directory others may write: refused, nothing written") {
    fs::create_directories(home + "/.cache/shimctl");
    ::chmod((home + "/.cache/shimctl").c_str(), 0777);
    auto path = identity::write_user_snapshot("/opt/rocm", fingerprint, manifest, inputs);
    REQUIRE_FALSE(path);
    CHECK(path.error().message.find("is not this user's own directory") != std::string::npos);
    CHECK_FALSE(fs::exists(home + "/.cache/shimctl/identity"));
  }
  SUBCASE("a symlink on the way: refused") {
    fs::create_directories(home + "/.cache");
    fs::create_directories(home + "/elsewhere");
    fs::create_directory_symlink(home + "/elsewhere", home + "/.cache/shimctl");
    REQUIRE_FALSE(identity::write_user_snapshot("/opt/rocm", fingerprint, manifest, inputs));
    CHECK(fs::is_empty(home + "/elsewhere"));
  }
  SUBCASE("another user's home (root with HOME of someone else): refused") {
    REQUIRE(::chown(home.c_str(), 12345, 12345) == 0);
    REQUIRE_FALSE(identity::write_user_snapshot("/opt/rocm", fingerprint, manifest, inputs));
    CHECK_FALSE(fs::exists(home + "/.cache"));
  }
  SUBCASE("no HOME: refused, saying so") {
    ScopedEnv no_home("HOME", nullptr);
    auto path = identity::write_user_snapshot("/opt/rocm", fingerprint, manifest, inputs);
    REQUIRE_FALSE(path);
    CHECK(path.error().message.find("HOME is not set") != std::string::npos);
  }
}

TEST_SUITE_END();
