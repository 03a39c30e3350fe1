// The cache tools behind cache::Tool (cache/tool.hpp): the table, and ccache's hit evidence.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <shimctl/cache/ccache_tool.hpp>
#include <shimctl/cache/sccache_tool.hpp>
#include <shimctl/cache/tool.hpp>

using shimctl::cache::ccache_log_outcome;
namespace cache = shimctl::cache;

TEST_SUITE_BEGIN("cache::Tool");

TEST_CASE("the table: names, the default, lookups by name and by a launcher's file name") {
  auto names = cache::tool_names();
  REQUIRE(names.size() == 2);
  CHECK(names[0] == "ccache"); // the default, first
  CHECK(names[1] == "sccache");
  CHECK(&cache::default_tool() == &cache::ccache_tool());
  CHECK(cache::tool_named("sccache") == &cache::sccache_tool());
  CHECK(cache::tool_named("distcc") == nullptr);
  CHECK(cache::tool_named("") == nullptr);
  CHECK(cache::tool_launched_by("/usr/bin/ccache") == &cache::ccache_tool());
  CHECK(cache::tool_launched_by("sccache-0.4") == &cache::sccache_tool());
  CHECK(cache::tool_launched_by("/opt/ccache/bin/sccache") == &cache::sccache_tool());
  CHECK(cache::tool_launched_by("distcc") == nullptr);
  shimctl::core::CacheSettings settings;
  settings.kind = "sccache";
  CHECK(&cache::tool_of(settings) == &cache::sccache_tool());
}

TEST_CASE("what each tool supports") {
  const auto& ccache = cache::ccache_tool();
  const auto& sccache = cache::sccache_tool();
  CHECK(ccache.archives());
  CHECK_FALSE(sccache.archives());
  CHECK(ccache.group_shared_cache());
  CHECK_FALSE(sccache.group_shared_cache());
  shimctl::util::RunOptions options;
  ccache.leave_statistics_alone(options);
  CHECK(options.env.at("CCACHE_NOSTATS") == "1");
  shimctl::util::RunOptions untouched;
  sccache.leave_statistics_alone(untouched);
  CHECK(untouched.env.empty());
}

TEST_CASE(
  "sccache's default cache directory: the rule the shim checks (XDG_CACHE_HOME, then HOME)") {
  // Saved and restored: the process environment is shared by every test.
  auto saved = [](const char* name) {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  auto restore = [](const char* name, const std::optional<std::string>& v) {
    if (v)
      ::setenv(name, v->c_str(), 1);
    else
      ::unsetenv(name);
  };
  auto dir = saved("SCCACHE_DIR"), xdg = saved("XDG_CACHE_HOME"), home = saved("HOME");
  const auto& sccache = cache::sccache_tool();
  shimctl::core::CacheSettings settings;
  ::unsetenv("SCCACHE_DIR");
  ::setenv("HOME", "/home/u", 1);
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  CHECK(sccache.cache_location(settings, {}) == "/xdg/sccache");
  ::setenv("XDG_CACHE_HOME", "relative", 1); // not absolute: ignored, as the shim does
  CHECK(sccache.cache_location(settings, {}) == "/home/u/.cache/sccache");
  ::unsetenv("XDG_CACHE_HOME");
  CHECK(sccache.cache_location(settings, {}) == "/home/u/.cache/sccache");
  ::setenv("SCCACHE_DIR", "/s", 1);
  CHECK(sccache.cache_location(settings, {}) == "/s");
  shimctl::util::RunOptions options;
  options.env["SCCACHE_DIR"] = "/from-options";
  CHECK(sccache.cache_location(settings, options) == "/from-options");
  restore("SCCACHE_DIR", dir);
  restore("XDG_CACHE_HOME", xdg);
  restore("HOME", home);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("cache::ccache_log_outcome");

// Lines captured from real ccache debug logs (CCACHE_LOGFILE, CCACHE_NOSTATS=1) of a repeat
// compile: ccache 4.7.5 (Debian 12) still logs "Result:" lines, 4.14.2 (sid) logs none.
TEST_CASE("a hit: ccache 4.7.5 and 4.14.2") {
  SUBCASE("4.7.5") {
    auto log = "[2026-12-02T00:02:06.919243 18031] Result key: a16bg4jbcs59arpufnrhpoe6vhj3ojn4a\n"
               "[2026-12-02T00:02:06.919457 18031] Succeeded getting cached result\n"
               "[2026-12-02T00:02:06.919467 18031] Result: direct_cache_hit\n";
    CHECK(ccache_log_outcome(log).hit);
  }
  SUBCASE("4.14.2") {
    auto log = "[2026-12-02T00:02:06.552677 18000] Got result key from manifest\n"
               "[2026-12-02T00:02:06.552895 18000] Succeeded getting cached result\n";
    auto outcome = ccache_log_outcome(log);
    CHECK(outcome.hit);
    CHECK(outcome.why.empty());
  }
}

TEST_CASE("a miss names what the log tells") {
  auto log = "[2026-12-02T00:02:06.838437 18025] Result key: a16bg4jbcs59arpufnrhpoe6vhj3ojn4a\n"
             "[2026-12-02T00:02:06.903759 18025] Result: cache_miss\n"
             "[2026-12-02T00:02:06.903763 18025] Result: direct_cache_miss\n"
             "[2026-12-02T00:02:06.903763 18025] Result: direct_cache_miss\n";
  auto outcome = ccache_log_outcome(log);
  CHECK_FALSE(outcome.hit);
  CHECK(outcome.why == "Result: cache_miss; Result: direct_cache_miss");

  auto quiet = ccache_log_outcome("[2026-12-02T00:02:06 1] Got result key from preprocessor\n");
  CHECK_FALSE(quiet.hit);
  CHECK(quiet.why == "ccache's log shows no stored result was used (a miss)");
  CHECK(ccache_log_outcome("").why == "ccache wrote no log (was ccache run at all?)");
}

TEST_CASE(
  "the entries a run served and stored: manifests and results in local storage, raw files") {
  char dir_template[] = "/tmp/shimctl-served-XXXXXX";
  REQUIRE(::mkdtemp(dir_template));
  std::string dir = dir_template;
  auto touch = [&](const std::string& name) {
    std::fclose(std::fopen((dir + "/" + name).c_str(), "w"));
  };
  SUBCASE("4.7.5: a manifest (M), then the result (R) and its raw file") {
    for (auto name : { "336dnM", "5e0nheR", "5e0nhe0W", "5e0nhe1W", "5e0nhxW", "77R" })
      touch(name);
    auto log = fmt::format(
      "[2026-12-06T12:51:05.687439 20743] Retrieved 64336dn from local storage ({0}/336dnM)\n"
      "[2026-12-06T12:51:05.687542 20743] Result key: e35e0nhe\n"
      "[2026-12-06T12:51:05.687549 20743] Retrieved e35e0nhe from local storage ({0}/5e0nheR)\n"
      "[2026-12-06T12:51:05.687609 20743] Succeeded getting cached result\n",
      dir);
    auto files = cache::ccache_logged_entries(log).served;
    std::sort(files.begin(), files.end());
    CHECK(files == std::vector<std::string>{
                     dir + "/336dnM", dir + "/5e0nhe0W", dir + "/5e0nhe1W", dir + "/5e0nheR" });
  }
  SUBCASE("4.14.2: no suffixes") {
    auto log = fmt::format(
      "[2026-12-06T12:51:08.182945 20772] Retrieved 6706c0 from local storage ({0}/06c0)\n"
      "[2026-12-06T12:51:08.183021 20772] Retrieved b2435c from local storage ({0}/435c)\n",
      dir);
    CHECK(cache::ccache_logged_entries(log).served ==
          std::vector<std::string>{ dir + "/06c0", dir + "/435c" });
  }
  SUBCASE("a miss that stored: its result, then its manifest") {
    touch("5e0nheR");
    auto log = fmt::format(
      "[2026-12-06T13:00:14.177882 28895] No 64336dn in local storage\n"
      "[2026-12-06T13:00:14.221598 28895] Stored e35e0nhe in local storage ({0}/5e0nheR)\n"
      "[2026-12-06T13:00:14.221694 28895] Stored 64336dn in local storage ({0}/336dnM)\n",
      dir);
    auto entries = cache::ccache_logged_entries(log);
    CHECK(entries.served.empty());
    CHECK(entries.stored == std::vector<std::string>{ dir + "/5e0nheR", dir + "/336dnM" });
  }
  SUBCASE("none: a miss, or only from remote storage") {
    CHECK(
      cache::ccache_logged_entries("[x 1] Failed to get result from manifest\n").served.empty());
    CHECK(cache::ccache_logged_entries("[x 1] Retrieved b2 from remote storage (file:/a)\n")
            .served.empty());
  }
  std::filesystem::remove_all(dir);
}

TEST_SUITE_END();
