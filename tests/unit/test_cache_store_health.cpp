// A team store's health (issue 35): which store line each kind of remote gets
// (cache::store_probe), the memo the shim writes read back exactly (shim/store_memo.c), and what
// status makes of it.
#include <doctest/doctest.h>
#include <shim/formats.h>
#include <shimctl/cache/store_health.hpp>
#include <string>

using namespace shimctl;

namespace {

std::string line_of(const std::optional<std::string>& remote) {
  auto probe = cache::store_probe(remote);
  return probe ? probe->probe + " " + probe->address : "none";
}

std::string render(const shimctl_store_health& h) {
  std::string out(shimctl_render_store_health(nullptr, 0, &h), '\0');
  shimctl_render_store_health(out.data(), out.size() + 1, &h);
  return out;
}

} // namespace

TEST_SUITE_BEGIN("cache::store_health");

TEST_CASE("each remote's store line: how the shim asks it, and where (never a credential)") {
  CHECK(line_of(std::nullopt) == "none");
  CHECK(line_of("redis://127.0.0.1:6379") == "redis 127.0.0.1:6379");
  CHECK(line_of("redis://***@cache.example") == "redis cache.example:6379");
  CHECK(line_of("redis://user:pw@cache:7000|read-only") == "redis cache:7000");
  CHECK(line_of("rediss://cache:6380|ca=/etc/ca.crt") == "tcp cache:6380");
  CHECK(line_of("redis://node1:7001|cluster") == "redis-cluster node1:7001");
  CHECK(line_of("redis://:pw@node1:7001|cluster=redis://node2:7002,node3:7003/") ==
        "redis-cluster node1:7001,node2:7002,node3:7003");
  CHECK(line_of("rediss://node1:7001|cluster") == "tcp node1:7001");
  CHECK(line_of("redis://*|shards=a:1,b:2") == "none");
  CHECK(line_of("redis+unix:/run/redis.sock") == "none");
  CHECK(line_of("http://u:p@dav:8080/cache") == "http dav:8080");
  CHECK(line_of("https://dav.example/sccache") == "tcp dav.example:443");
  CHECK(line_of("s3://bucket/p|endpoint=http://127.0.0.1:9000|region=r") == "http 127.0.0.1:9000");
  CHECK(line_of("s3://bucket/p|endpoint=https://s3.example") == "tcp s3.example:443");
  CHECK(line_of("s3://bucket/p") == "none");
  // ccache's list: the first store that is no directory.
  CHECK(line_of("file:///srv/shared redis://cache:6379") == "redis cache:6379");
}

TEST_CASE("the memo: rendered, then read back exactly; anything else is no memo") {
  shimctl_store_health h{};
  h.out = true;
  h.checked = 1000;
  h.until = 1030;
  h.cooldown = 30;
  h.failed = 1000;
  std::string("127.0.0.1:6379").copy(h.address, sizeof h.address - 1);
  std::string("no answer within 200 ms").copy(h.failure, sizeof h.failure - 1);
  auto text = render(h);
  CHECK(text == "out 1000 1030 30 1000 127.0.0.1:6379 no answer within 200 ms\n");
  shimctl_store_health back{};
  REQUIRE(shimctl_parse_store_health(text.c_str(), &back));
  CHECK(back.out);
  CHECK(back.until == 1030);
  CHECK(back.cooldown == 30);
  CHECK(std::string(back.address) == "127.0.0.1:6379");
  CHECK(std::string(back.failure) == "no answer within 200 ms");

  shimctl_store_health healthy{};
  healthy.checked = 5;
  std::string("dav:80").copy(healthy.address, sizeof healthy.address - 1);
  CHECK(render(healthy) == "healthy 5 0 0 0 dav:80 -\n");
  REQUIRE(shimctl_parse_store_health("healthy 5 0 0 0 dav:80 -\n", &back));
  CHECK(!back.out);
  CHECK(std::string(back.failure).empty());

  for (const char* bad : { "", "sick 1 2 3 4 a b", "out 1 2 3", "out x 2 3 4 a b", "out 1 2 3 4 " })
    CHECK_MESSAGE(!shimctl_parse_store_health(bad, &back), bad);
}

TEST_CASE("status's words for a memo") {
  shimctl_store_health h{};
  h.out = true;
  h.checked = h.failed = 3600;
  h.until = 3630;
  h.cooldown = 30;
  std::string("connect: Connection refused").copy(h.failure, sizeof h.failure - 1);
  CHECK(cache::store_state_words(h, 3610) ==
        "out until 01:00:30 UTC (cool-down 30 s; compiles use the local cache)");
  CHECK(cache::store_state_words(h, 3631) ==
        "out, to be asked again by the next compile (cool-down 30 s ended)");
  CHECK(cache::store_failure_words(h, 3610) ==
        "connect: Connection refused at 01:00:00 UTC (10 s ago)");
  h.out = false;
  h.checked = 3700;
  CHECK(cache::store_state_words(h, 3703) == "healthy (answered 3 s ago)");
  h.failed = 0;
  CHECK(cache::store_failure_words(h, 3703).empty());
}

TEST_SUITE_END();
