#include <cstdio>
#include <doctest/doctest.h>
#include <shimctl/cache/cache_budget.hpp>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace shimctl;

TEST_SUITE_BEGIN("cache::budget");

TEST_CASE("a budget: ccache's own limit 4 times it, the variable's text back and forth") {
  auto budget = cache::budget_of("1.5M", "/usr/bin/ccache");
  REQUIRE(budget);
  CHECK(budget->bytes == 1'500'000);
  CHECK(budget->tool_limit == "6000k");
  CHECK(cache::budget_value(*budget) == "1500000 6000k /usr/bin/ccache");
  auto back = cache::parse_budget("1500000 6000k /opt/my tools/ccache");
  REQUIRE(back);
  CHECK(back->bytes == 1'500'000);
  CHECK(back->tool_limit == "6000k");
  CHECK(back->tool_path == "/opt/my tools/ccache");
  CHECK_FALSE(cache::budget_of("0", "/usr/bin/ccache"));
  CHECK_FALSE(cache::budget_of("lots", "/usr/bin/ccache"));
  CHECK_FALSE(cache::parse_budget("0 0k /usr/bin/ccache"));
  CHECK_FALSE(cache::parse_budget("12x 48k /usr/bin/ccache"));
  CHECK_FALSE(cache::parse_budget("1500000 6000k"));
}

TEST_CASE(
  "eviction age: the least recently used go until the rest fit, never the last 2 seconds'") {
  using F = cache::CacheEntryFile;
  std::int64_t now = 1000;
  std::vector<F> files{ { 990, 100 }, { 900, 100 }, { 995, 100 }, { 800, 100 } };
  CHECK_FALSE(cache::eviction_age(files, 400, now)); // all fit
  // 300 bytes left: the three newest stay (995, 990, 900), 800 goes: used before 1000 - 199.
  CHECK(cache::eviction_age(files, 300, now) == 199);
  // 150: 995 stays; 990 and older go.
  CHECK(cache::eviction_age(files, 150, now) == 9);
  // Only the last 2 seconds' files could be kept: nothing is evicted by age.
  CHECK_FALSE(cache::eviction_age({ { 998, 100 }, { 1000, 100 } }, 100, now));
}

TEST_CASE("a superseded entry's last use goes back to 1970; a missing file is no error") {
  char name[] = "/tmp/shimctl-superseded-XXXXXX";
  int fd = ::mkstemp(name);
  REQUIRE(fd >= 0);
  ::close(fd);
  cache::supersede({ name, std::string(name) + ".gone" });
  struct stat st {};
  REQUIRE(::stat(name, &st) == 0);
  CHECK(st.st_mtim.tv_sec == cache::superseded_used);
  CHECK(st.st_atim.tv_sec > cache::superseded_used); // its reads stay as they were
  std::remove(name);
}

TEST_SUITE_END();
