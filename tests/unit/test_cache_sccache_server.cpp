#include <algorithm>
#include <doctest/doctest.h>
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

TEST_CASE("the server port follows the cache configuration") {
  auto a = sccache_settings("/cache/a");
  auto b = sccache_settings("/cache/b");
  CHECK(cache::sccache_server_port(a) == cache::sccache_server_port(sccache_settings("/cache/a")));
  CHECK(cache::sccache_server_port(a) != cache::sccache_server_port(b));
  auto port = cache::sccache_server_port(a);
  CHECK(port >= cache::sccache_first_port);
  CHECK(port < cache::sccache_first_port + cache::sccache_port_count);
  auto remote = a;
  remote.remote = "redis://127.0.0.1:6379";
  CHECK(cache::sccache_server_port(remote) != port);
}

TEST_CASE("the sccache environment sets the port, the buster and the identity files") {
  auto env = cache::shim_environment(sccache_settings("/cache/a"),
                                     std::string(64, 'f'),
                                     { "/p/amdgcn/bitcode/ocml.bc", "/p/llvm/bin/clang.real" });
  CHECK(has(env.defaults, "SCCACHE_DIR=/cache/a"));
  CHECK(has(env.defaults,
            fmt::format("SCCACHE_SERVER_PORT={}",
                        cache::sccache_server_port(sccache_settings("/cache/a")))));
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

TEST_CASE("remotes sccache 0.4 cannot honour are refused") {
  auto s = sccache_settings("/cache/a");
  s.remote = "redis://127.0.0.1:6379";
  CHECK(cache::check_sccache_remote(s).has_value());
  s.remote_read_only = true;
  auto ro = cache::check_sccache_remote(s);
  REQUIRE_FALSE(ro.has_value());
  CHECK(ro.error().message ==
        "--remote-read-only: sccache 0.4.0-pre.6 has no read-only mode for Redis and would write "
        "to it; use --cache ccache for a read-only remote");
  s.remote_read_only = false;
  s.remote = "http://127.0.0.1:8080/cache";
  CHECK_FALSE(cache::check_sccache_remote(s).has_value());
  s.kind = "ccache";
  CHECK(cache::check_sccache_remote(s).has_value());
}

TEST_SUITE_END();
