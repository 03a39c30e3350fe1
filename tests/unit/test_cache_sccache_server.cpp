#include <algorithm>
#include <doctest/doctest.h>
#include <shim/formats.h>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/cache/sccache_server.hpp>
#include <string>

using namespace shimctl;

namespace {

core::CacheSettings sccache_settings(const std::string& dir) {
  core::CacheSettings s;
  s.kind = "sccache";
  s.path = "/usr/bin/sccache";
  s.version = "0.4.0-pre.6";
  s.dir = dir;
  return s;
}

bool has(const std::vector<std::string>& entries, const std::string& entry) {
  return std::find(entries.begin(), entries.end(), entry) != entries.end();
}

} // namespace

TEST_SUITE_BEGIN("core::SccacheServer");

TEST_CASE("the server key follows the cache configuration and the secret") {
  auto a = sccache_settings("/cache/a");
  auto b = sccache_settings("/cache/b");
  auto key = cache::sccache_server_key(a);
  CHECK(key.size() == SHIMCTL_SCCACHE_KEY_HEX);
  CHECK(key == cache::sccache_server_key(sccache_settings("/cache/a")));
  CHECK(key != cache::sccache_server_key(b));
  auto remote = a;
  remote.remote = "redis://127.0.0.1:6379";
  CHECK(cache::sccache_server_key(remote) != key);
  auto rotated = remote;
  rotated.secret_id = "0123456789abcdef";
  CHECK(cache::sccache_server_key(rotated) != cache::sccache_server_key(remote));
}

TEST_CASE("each user gets a port of their own; sccache 0.9+ a unix socket") {
  auto key = cache::sccache_server_key(sccache_settings("/cache/a"));
  char instance[SHIMCTL_SCCACHE_KEY_HEX + 1], other_ns[SHIMCTL_SCCACHE_KEY_HEX + 1];
  shimctl_sccache_instance(instance, key.c_str(), "mnt:[4026531840]");
  shimctl_sccache_instance(other_ns, key.c_str(), "mnt:[4026532000]");
  CHECK(std::string(instance) != other_ns); // a container's own files: a server of its own
  auto root = shimctl_sccache_port(instance, 0);
  CHECK(root >= SHIMCTL_SCCACHE_FIRST_PORT);
  CHECK(root < SHIMCTL_SCCACHE_FIRST_PORT + SHIMCTL_SCCACHE_PORT_COUNT);
  CHECK(root == shimctl_sccache_port(instance, 0));
  CHECK(root != shimctl_sccache_port(instance, 1000));
  CHECK(root != shimctl_sccache_port(other_ns, 0));
  CHECK(cache::sccache_transport(sccache_settings("/c")) == SHIMCTL_SCCACHE_TCP);
  auto modern = sccache_settings("/c");
  modern.version = "0.17.0";
  CHECK(cache::sccache_transport(modern) == SHIMCTL_SCCACHE_UNIX);
  modern.version = "0.9.1";
  CHECK(cache::sccache_transport(modern) == SHIMCTL_SCCACHE_UNIX);
}

TEST_CASE("the private runtime dir: the runtime dir, the cache home, then /tmp") {
  char out[4096];
  CHECK(
    std::string(out, shimctl_runtime_dir(out, sizeof out, 0, "/run/user/7", nullptr, "/h", 7)) ==
    "/run/user/7/shimctl-run");
  CHECK(shimctl_runtime_dir(out, sizeof out, 0, nullptr, nullptr, "/h", 7) == 0);
  CHECK(std::string(out, shimctl_runtime_dir(out, sizeof out, 1, nullptr, nullptr, "/h", 7)) ==
        "/h/.cache/shimctl-run");
  CHECK(std::string(out, shimctl_runtime_dir(out, sizeof out, 2, nullptr, nullptr, "/h", 7)) ==
        "/tmp/shimctl-run-7");
  // No room for "/sccache-<16 hex>.sock" within a socket address: not a choice.
  CHECK(shimctl_runtime_dir(
          out, sizeof out, 1, nullptr, ("/" + std::string(90, 'x')).c_str(), "/h", 7) == 0);
}

TEST_CASE("the sccache environment sets the buster and the identity files; the config names "
          "the server") {
  auto env = cache::shim_environment(sccache_settings("/cache/a"),
                                     std::string(64, 'f'),
                                     { "/p/amdgcn/bitcode/ocml.bc", "/p/llvm/bin/clang.real" });
  CHECK(has(env.defaults, "SCCACHE_DIR=/cache/a"));
  CHECK(env.sccache_transport == SHIMCTL_SCCACHE_TCP);
  CHECK(env.sccache_key == cache::sccache_server_key(sccache_settings("/cache/a")));
  for (const auto& entry : env.defaults)
    CHECK_FALSE(entry.starts_with("SCCACHE_SERVER_"));
  CHECK(has(env.defaults, "SCCACHE_C_CUSTOM_CACHE_BUSTER=shimctl-" + std::string(32, 'f')));
  CHECK(has(env.appends, "SCCACHE_EXTRAFILES=/p/amdgcn/bitcode/ocml.bc:/p/llvm/bin/clang.real"));
}

TEST_CASE("no empty value reaches the shim config") {
  auto settings = sccache_settings("");
  settings.max_size = "";
  auto env = cache::shim_environment(settings, std::string(64, 'f'), {});
  for (const auto& entry : env.defaults)
    CHECK_MESSAGE(entry.back() != '=', entry);
  CHECK(env.appends.empty());
}

TEST_CASE("sccache 0.4 has no remote storage; 0.17 takes Redis, WebDAV, S3, read-only") {
  auto s = sccache_settings("/cache/a");
  s.remote = "redis://127.0.0.1:6379";
  auto refused = cache::tool_of(s).check_remote(s);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().message.starts_with(
    "--remote: sccache 0.4.0-pre.6 has no remote storage (Debian's 0.4 build has none)"));
  s.version = "0.17.0";
  CHECK(cache::tool_of(s).check_remote(s).has_value());
  s.remote_read_only = true;
  CHECK(cache::tool_of(s).check_remote(s).has_value());
  s.remote = "http://127.0.0.1:8080/cache";
  CHECK(cache::tool_of(s).check_remote(s).has_value());
  s.remote = "file:/c";
  CHECK_FALSE(cache::tool_of(s).check_remote(s).has_value());
  s.kind = "ccache";
  CHECK(cache::tool_of(s).check_remote(s).has_value());
}

TEST_SUITE_END();
