#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <set>
#include <shim/formats.h>
#include <shimctl/build/build_stats.hpp>
#include <shimctl/cache/ccache_tool.hpp>
#include <shimctl/cache/sccache_tool.hpp>
#include <string>

using namespace shimctl;

TEST_SUITE_BEGIN("build::measure");

TEST_CASE(
  "ccache's stats log: ccache's own records only; an older shim's records are not ccache's") {
  std::map<std::string, std::uint64_t> not_sent;
  auto c = cache::parse_ccache_stats_log("# /src/a.c\n"
                                         "direct_cache_hit\n"
                                         "local_storage_hit\n"
                                         "# /src/b.hip\n"
                                         "cache_miss\n"
                                         "direct_cache_miss\n"
                                         "preprocessed_cache_miss\n"
                                         "local_storage_miss\n"
                                         "local_storage_write\n"
                                         // an older shim's records, by ccache's counter names
                                         "# shimctl-shim: ran without the cache\n"
                                         "called_for_link\n"
                                         "# /src/c.cpp\n"
                                         "preprocessed_cache_hit\n"
                                         "# shimctl-shim: ran without the cache\n"
                                         "called_for_preprocessing\n"
                                         "# shimctl-shim: ran without the cache\n"
                                         "device_only_depfile\n"
                                         "# /src/d.c\n"
                                         "called_for_link\n" // ccache's own: it did see this link
                                         "# k.cpp\n"
                                         "no_input_file\n",
                                         not_sent);
  CHECK(c.calls == 5);
  CHECK(c.hits == 2);
  CHECK(c.misses == 1);
  CHECK(c.compiles() == 3);
  CHECK(c.uncacheable ==
        std::map<std::string, std::uint64_t>{ { "called_for_link", 1 }, { "no_input_file", 1 } });
  CHECK(not_sent == std::map<std::string, std::uint64_t>{
                      { "link", 1 }, { "preprocess", 1 }, { "device_only_depfile", 1 } });
}

TEST_CASE("the shim's log: reasons it ran calls without the cache; the sccache servers it used") {
  const std::string log =
    "# shimctl-shim: ran without the cache\nlink\n"
    "# shimctl-shim: sccache\nmeasured /usr/bin/sccache SCCACHE_SERVER_UDS=/run/u/shimctl-run/"
    "sccache-0123456789abcdef.sock\n"
    "# shimctl-shim: sccache\nmeasured /usr/bin/sccache SCCACHE_SERVER_UDS=/run/u/shimctl-run/"
    "sccache-0123456789abcdef.sock\n"
    "# shimctl-shim: ran without the cache\npreprocess\n"
    "# shimctl-shim: sccache\nshared /opt/sccache SCCACHE_SERVER_UDS=/home/a b/s.sock\n"
    "# shimctl-shim: sccache\nmeasured /usr/bin/sccache SCCACHE_SERVER_PORT=12345\n"
    "# shimctl-shim: ran without the cache\nlink\n"
    // not records: a header without its line, unknown scopes and entries, stray lines
    "# shimctl-shim: sccache\n"
    "# shimctl-shim: sccache\nother /usr/bin/sccache SCCACHE_SERVER_PORT=1\n"
    "# shimctl-shim: sccache\nmeasured /usr/bin/sccache SCCACHE_DIR=/x\n"
    "# shimctl-shim: sccache\nmeasured /usr/bin/sccache\n"
    "link\n"
    "# shimctl-shim: ran without the cache\n";
  CHECK(build::not_sent_in_measure_log(log) ==
        std::map<std::string, std::uint64_t>{ { "link", 2 }, { "preprocess", 1 } });
  struct {
    std::vector<cache::SccacheServer> sccache_servers;
  } r{ cache::sccache_servers_in_measure_log(log) };
  REQUIRE(r.sccache_servers.size() == 3);
  CHECK(r.sccache_servers[0].sccache == "/usr/bin/sccache");
  CHECK(r.sccache_servers[0].entry ==
        "SCCACHE_SERVER_UDS=/run/u/shimctl-run/sccache-0123456789abcdef.sock");
  CHECK(r.sccache_servers[0].own);
  CHECK(r.sccache_servers[0].calls == 2);
  CHECK(r.sccache_servers[1].sccache == "/opt/sccache");
  CHECK(r.sccache_servers[1].entry == "SCCACHE_SERVER_UDS=/home/a b/s.sock");
  CHECK_FALSE(r.sccache_servers[1].own);
  CHECK(r.sccache_servers[2].entry == "SCCACHE_SERVER_PORT=12345");
  CHECK(r.sccache_servers[2].calls == 1);
}

TEST_CASE(
  "sccache's counts: compile_requests, cache_hits, cache_misses and its not-cached reasons") {
  cache::CacheStats after;
  after.counters = { { "compile_requests", 9 },
                     { "cache_hits", 4 },
                     { "cache_misses", 2 },
                     { "requests_not_cacheable", 3 },
                     { "not_cached:-E", 2 },
                     { "requests_unsupported_compiler", 0 },
                     { "non_cacheable_compilations", 1 },
                     { "compile_fails", 1 } };
  auto c = cache::sccache_build_counts(after, nullptr);
  CHECK(c.calls == 9);
  CHECK(c.hits == 4);
  CHECK(c.misses == 2);
  CHECK(c.compiles() == 6);
  CHECK(c.uncacheable == std::map<std::string, std::uint64_t>{ { "not_cached:-E", 2 },
                                                               { "requests_not_cacheable", 1 },
                                                               { "compile_fails", 1 } });
  // The difference over a build on a server that counted before it.
  cache::CacheStats before;
  before.counters = { { "compile_requests", 5 },
                      { "cache_hits", 1 },
                      { "cache_misses", 2 },
                      { "requests_not_cacheable", 3 },
                      { "not_cached:-E", 2 } };
  auto d = cache::sccache_build_counts(after, &before);
  CHECK(d.calls == 4);
  CHECK(d.hits == 3);
  CHECK(d.misses == 0);
  CHECK(d.uncacheable == std::map<std::string, std::uint64_t>{ { "compile_fails", 1 } });
}

TEST_CASE("a build's totals and tool name") {
  build::BuildStats s;
  CHECK(s.tool() == "none");
  CHECK(s.hit_rate() == 0.0);
  s.tools["sccache"] = { 3, 2, 1, { { "not_cached:-E", 1 } } };
  CHECK(s.tool() == "sccache");
  s.tools["ccache"] = { 2, 1, 0, { { "called_for_link", 1 } } };
  CHECK(s.tool() == "ccache+sccache");
  auto t = s.total();
  CHECK(t.calls == 5);
  CHECK(t.hits == 3);
  CHECK(t.misses == 1);
  CHECK(t.uncacheable.size() == 2);
  CHECK(s.hit_rate() == doctest::Approx(0.75));
}

TEST_CASE("measure_build: the build gets both private logs; the shim's records stay apart") {
  // A build that writes what a shim and ccache would, through the variables measure sets.
  auto r = build::measure_build(
    { "sh",
      "-c",
      "printf '# shimctl-shim: ran without the cache\\nlink\\n' >> \"$SHIMCTL_MEASURE_LOG\" && "
      "printf '# /src/a.c\\ncache_miss\\n# /src/a.c\\ndirect_cache_hit\\n' >> \"$CCACHE_STATSLOG\" "
      "&& echo \"$SHIMCTL_MEASURE_LOG $CCACHE_STATSLOG\" >&2 && exit 3" },
    build::BuildStdout::to_stderr);
  REQUIRE(r);
  CHECK(r->exit_code == 3);
  CHECK(r->tool() == "ccache");
  CHECK(r->total().calls == 2);
  CHECK(r->total().hits == 1);
  CHECK(r->total().misses == 1);
  CHECK(r->total().uncacheable.empty());
  CHECK(r->not_sent == std::map<std::string, std::uint64_t>{ { "link", 1 } });
  CHECK(r->warnings.empty());
  // A build that reached no tool.
  auto none = build::measure_build({ "true" }, build::BuildStdout::to_stderr);
  REQUIRE(none);
  CHECK(none->tool() == "none");
  CHECK(none->not_sent.empty());
  CHECK_FALSE(build::measure_build({ "/nonexistent/build" }, build::BuildStdout::to_stderr));
}

TEST_CASE("a measured build's sccache servers: named after its log, else the usual ones") {
  char usual[SHIMCTL_SCCACHE_KEY_HEX + 1], same[SHIMCTL_SCCACHE_KEY_HEX + 1],
    a[SHIMCTL_SCCACHE_KEY_HEX + 1], b[SHIMCTL_SCCACHE_KEY_HEX + 1];
  shimctl_sccache_instance(usual, "0123456789abcdef", "mnt:[4026531841]");
  shimctl_sccache_measured_instance(same, "0123456789abcdef", "mnt:[4026531841]", nullptr);
  shimctl_sccache_measured_instance(a, "0123456789abcdef", "mnt:[4026531841]", "/tmp/m.1");
  shimctl_sccache_measured_instance(b, "0123456789abcdef", "mnt:[4026531841]", "/tmp/m.2");
  CHECK(std::string(same) == usual);
  CHECK(std::string(a) != usual);
  CHECK(std::string(a) != b);
  CHECK(std::string(a).size() == SHIMCTL_SCCACHE_KEY_HEX);
}

TEST_CASE("every reason the shim records has a name of its own") {
  std::set<std::string> names;
  for (int r = 0; r < SHIMCTL_NOT_SENT_REASONS; ++r) {
    std::string name = shimctl_not_sent_name(static_cast<shimctl_not_sent>(r));
    CHECK_FALSE(name.empty());
    CHECK(name.find(' ') == std::string::npos);
    names.insert(name);
  }
  CHECK(names.size() == SHIMCTL_NOT_SENT_REASONS);
  CHECK(std::string(shimctl_not_sent_stats_log_name(SHIMCTL_NOT_SENT_LINK)) == "called_for_link");
  CHECK(shimctl_not_sent_stats_log_name(SHIMCTL_NOT_SENT_SCCACHE_FAILED) == nullptr);
}

TEST_SUITE_END();

TEST_CASE("measure's log: the cache dirs the shims handed their calls to") {
  const std::string log = "# shimctl-shim: cache dir\nccache /home/a/.cache/ccache\n"
                          "# shimctl-shim: ran without the cache\nlink\n"
                          "# shimctl-shim: cache dir\nsccache /var/cache/team dir\n"
                          "# shimctl-shim: cache dir\nccache /home/a/.cache/ccache\n"
                          // not records: a relative dir, no dir, a header without its line
                          "# shimctl-shim: cache dir\nccache relative/dir\n"
                          "# shimctl-shim: cache dir\nccache\n"
                          "# shimctl-shim: cache dir\n";
  CHECK(build::cache_dirs_in_measure_log(log) ==
        std::set<std::string>{ "/home/a/.cache/ccache", "/var/cache/team dir" });
}
