// The shim's identity snapshot reader (shim/identity_snapshot.c) against what
// identity::render_identity_snapshot writes, and the user-snapshot path rule (shim/formats.h)
// against identity::user_cache_home and identity::user_snapshot_name.
#include <doctest/doctest.h>
#include <shim/formats.h>
#include <shimctl/identity/identity_snapshot.hpp>
#include <shimctl/identity/user_snapshot.hpp>
#include <string>
#include <vector>

using namespace shimctl;

namespace {

const std::string fingerprint = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

struct Read {
  bool accepted = false;
  std::string fingerprint;
  std::vector<identity::InputStat> inputs; // path: directory + "/" + name
  bool bad_line = false;
};

// Reads TEXT as the shim does.
Read read_as_shim(std::string text) {
  Read out;
  shimctl_snapshot_reader reader;
  const char* digits = nullptr;
  if (!shimctl_snapshot_begin(&reader, text.data(), text.size(), &digits))
    return out;
  out.accepted = true;
  out.fingerprint = digits;
  std::string dir;
  for (;;) {
    const char* d = nullptr;
    shimctl_snapshot_input in{};
    auto line = shimctl_snapshot_next(&reader, &d, &in);
    if (line == SHIMCTL_SNAPSHOT_END)
      break;
    if (line == SHIMCTL_SNAPSHOT_BAD) {
      out.bad_line = true;
      break;
    }
    if (line == SHIMCTL_SNAPSHOT_DIR)
      dir = d;
    else
      out.inputs.push_back(
        { (dir == "/" ? "" : dir) + "/" + in.name, in.inode, in.size, in.mtime_ns, in.ctime_ns });
  }
  return out;
}

std::string shim_user_snapshot_path(const char* xdg, const char* home, const std::string& prefix) {
  char path[4096];
  size_t len = shimctl_user_snapshot_path(path, sizeof path, xdg, home, prefix.c_str());
  return len == 0 || len >= sizeof path ? "" : std::string(path, len);
}

} // namespace

TEST_SUITE_BEGIN("shim::identity_snapshot");

TEST_CASE("what render_identity_snapshot writes the shim reads back exactly") {
  std::vector<identity::InputStat> inputs = {
    { "/opt/rocm/bin/hipcc.real", 1, 2, 3, 4 },
    { "/opt/rocm/bin/clang with space", 18446744073709551615ULL, 0, 1700000000123456789ULL, 5 },
    { "/opt/rocm/amdgcn/bitcode/ocml.bc", 7, 8, 9, 10 },
    { "/libc.so.6", 11, 12, 13, 14 },
  };
  auto text = identity::render_identity_snapshot(fingerprint, inputs);
  auto read = read_as_shim(text);
  CHECK(read.accepted);
  CHECK_FALSE(read.bad_line);
  CHECK(read.fingerprint == fingerprint);
  CHECK(read.inputs == inputs);
  // The C++ reader agrees.
  auto parsed = identity::parse_identity_snapshot(text);
  REQUIRE(parsed);
  CHECK(parsed->inputs == inputs);
}

TEST_CASE("a snapshot the shim does not trust") {
  auto good = identity::render_identity_snapshot(fingerprint, { { "/a/b", 1, 2, 3, 4 } });
  CHECK(read_as_shim(good).accepted);
  SUBCASE("cut short: no final newline") {
    CHECK_FALSE(read_as_shim(good.substr(0, good.size() - 1)).accepted);
  }
  SUBCASE("empty") {
    CHECK_FALSE(read_as_shim("").accepted);
  }
  SUBCASE("another version") {
    CHECK_FALSE(read_as_shim("shimctl-identity 2" + good.substr(18)).accepted);
  }
  SUBCASE("an upper-case or short fingerprint") {
    std::string upper = fingerprint;
    upper[0] = 'A';
    CHECK_FALSE(read_as_shim(identity::render_identity_snapshot(upper, {})).accepted);
    CHECK_FALSE(
      read_as_shim(identity::render_identity_snapshot(fingerprint.substr(1), {})).accepted);
    CHECK_FALSE(read_as_shim(identity::render_identity_snapshot(fingerprint + "0", {})).accepted);
  }
  SUBCASE("a line that is neither a dir nor an input") {
    for (const char* line : { "1 2 3 4\n", "1 2 3 x y\n", "\n", "-1 2 3 4 x\n", "1 2 3 4  \n" }) {
      CAPTURE(line);
      auto read = read_as_shim(good + line);
      CHECK(read.accepted);
      if (std::string(line) == "1 2 3 4  \n") // a file name " " is a name
        CHECK_FALSE(read.bad_line);
      else
        CHECK(read.bad_line);
    }
  }
}

TEST_CASE("shimctl_is_fingerprint: 64 lower-case hex digits, then the end or a newline") {
  CHECK(shimctl_is_fingerprint(fingerprint.c_str()));
  CHECK(shimctl_is_fingerprint((fingerprint + "\n").c_str()));
  CHECK_FALSE(shimctl_is_fingerprint((fingerprint + " ").c_str()));
  CHECK_FALSE(shimctl_is_fingerprint(fingerprint.substr(2).c_str()));
}

TEST_CASE("the user snapshot's path: the shim's rule is the C++ side's") {
  for (const char* prefix : { "/opt/rocm", "/", "/a%2Fb", "/opt/rocm-7.0.2/x y" }) {
    for (auto [xdg, home] : std::vector<std::pair<const char*, const char*>>{
           { "/x/cache", "/home/u" }, { "relative", "/home/u" }, { nullptr, "/home/u" } }) {
      CAPTURE(prefix);
      CAPTURE(xdg ? xdg : "(unset)");
      auto expected = *identity::user_cache_home(xdg, home) + "/shimctl/identity/" +
                      *identity::user_snapshot_name(prefix);
      CHECK(shim_user_snapshot_path(xdg, home, prefix) == expected);
    }
  }
  CHECK(shim_user_snapshot_path("/x", nullptr, "/opt/rocm") == "/x/shimctl/identity/%2Fopt%2Frocm");
  CHECK(shim_user_snapshot_path(nullptr, "relative", "/opt/rocm").empty());
  CHECK(shim_user_snapshot_path(nullptr, nullptr, "/opt/rocm").empty());
  CHECK_FALSE(identity::user_cache_home(nullptr, nullptr));
  // The name's limit is NAME_MAX on both sides: 85 '/' are 255 bytes, 86 are too many.
  CHECK_FALSE(shim_user_snapshot_path("/x", nullptr, std::string(85, '/')).empty());
  CHECK(identity::user_snapshot_name(std::string(85, '/')));
  CHECK(shim_user_snapshot_path("/x", nullptr, std::string(86, '/')).empty());
  CHECK_FALSE(identity::user_snapshot_name(std::string(86, '/')));
}

TEST_SUITE_END();
