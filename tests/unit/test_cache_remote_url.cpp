// install's --remote checked per cache tool before any work (Tool::check_remote_url,
// cache/remote_url.*): the URL forms ccache 4.7 and 4.14 and sccache store to; every refusal is
// exit 2, one line, no credential.
#include <doctest/doctest.h>
#include <shimctl/cache/tool.hpp>
#include <string>

using namespace shimctl;

namespace {

// The one-line refusal of URL for KIND at VERSION, or "" when it is accepted.
std::string refusal(const std::string& kind, const std::string& version, const std::string& url) {
  const auto* tool = cache::tool_named(kind);
  REQUIRE(tool);
  core::CacheSettings settings;
  settings.kind = kind;
  settings.version = version;
  auto s = tool->check_remote_url(settings, url);
  if (s)
    return "";
  CHECK(s.error().code == util::ExitCode::usage);
  CHECK(s.error().message.find('\n') == std::string::npos);
  return s.error().message;
}

std::string ccache47(const std::string& url) {
  return refusal("ccache", "4.7.5", url);
}
std::string ccache414(const std::string& url) {
  return refusal("ccache", "4.14.2", url);
}
std::string sccache(const std::string& url) {
  return refusal("sccache", "0.4.0-pre.6", url);
}

} // namespace

TEST_SUITE_BEGIN("cache::RemoteUrl");

TEST_CASE("ccache: each backend's URL form, on 4.7 and 4.14") {
  for (const auto& version : { "4.7.5", "4.14.2" }) {
    for (const char* ok : { "redis://localhost",
                            "redis://127.0.0.1:6379",
                            "redis://h:6379/0",
                            "redis://PASS@h:6379",
                            "redis://user:pass@h/2",
                            "redis://[::1]:6379",
                            "redis+unix:/run/redis.sock",
                            "redis+unix:///run/redis.sock?db=1",
                            "redis+unix://pw@localhost/run/redis.sock",
                            "http://localhost",
                            "http://h:8080/cache/",
                            "http://u:p@h/c",
                            "file:/shared/cache",
                            "file:///shared/cache",
                            "file://localhost/shared/cache",
                            "file:/c|umask=002|update-mtime=true",
                            "redis://h|read-only",
                            "redis://cache-*.example.com|shards=a(3),b",
                            "http://h/*|shards=alpha,beta",
                            "redis://a:1 http://b/c" })
      CHECK_MESSAGE(refusal("ccache", version, ok).empty(), ok, " on ", version);
    for (const char* bad : { "garbage://x",
                             "redis://",
                             "redis://:6379",
                             "redis://pw@",
                             "redis://h:port",
                             "redis://h:0",
                             "redis://h:70000",
                             "redis://h/x",
                             "redis:h",
                             "http://",
                             "http://:80/c",
                             "http:h",
                             "file:",
                             "file:relative",
                             "file://example.com/c",
                             "redis+unix:",
                             "redis+unix://h/run/x.sock",
                             "redis://h|shards=a",
                             "redis://h|",
                             "localhost:6379x",
                             "/var/cache",
                             "",
                             " " })
      CHECK_MESSAGE(!refusal("ccache", version, bad).empty(), bad, " on ", version);
  }
  CHECK(ccache47("redis://") == "--remote: 'redis://' names no host (e.g. redis://HOST:6379)");
  CHECK(ccache47("garbage://x") ==
        "--remote: 'garbage://x' has scheme 'garbage', which ccache 4.7.5 does not store to; use "
        "redis://HOST[:PORT], http://HOST[:PORT]/PATH, file:/DIR or redis+unix:/SOCKET");
  CHECK(ccache47("redis://h|shards=a") ==
        "--remote: 'redis://h|shards=a' has shards but no '*' in the URL for the shard names "
        "(e.g. redis://cache-*.example.com|shards=a,b)");
}

TEST_CASE("ccache 4.13+: properties as words, crsh:, storage helpers; not before") {
  CHECK(ccache414("http://h/c read-only").empty());
  CHECK(ccache414("http://h/* shards=a,b @layout=flat").empty());
  CHECK(!ccache414("http://h/c shards=a,b").empty()); // no '*'
  CHECK(ccache414("crsh:/run/helper.sock").empty());
  CHECK(!ccache47("crsh:/run/helper.sock").empty());
  CHECK(ccache47("http://h/c read-only") ==
        "--remote: 'read-only' is no storage URL; ccache 4.7.5 takes attributes after '|' (e.g. "
        "http://HOST/cache|read-only)");
  CHECK(ccache414("nosuchscheme://h/c")
          .find("no storage helper ccache-storage-nosuchscheme is "
                "installed") != std::string::npos);
  CHECK(refusal("ccache", "", "http://h/c read-only").empty()); // an unknown version: lenient
}

TEST_CASE("a credential never appears in a refusal") {
  auto message = ccache47("redis://Secret@h:port");
  CHECK(message.find("Secret") == std::string::npos);
  CHECK(message.find("***") != std::string::npos);
  CHECK(sccache("redis://:Secret@h/x").find("Secret") == std::string::npos);
  CHECK(sccache("http://u:Secret@h/c").find("Secret") == std::string::npos);
}

TEST_CASE("sccache: one redis:// URL with a host") {
  for (const char* ok : { "redis://h", "redis://127.0.0.1:6379", "redis://:pw@h:6379/1" })
    CHECK_MESSAGE(sccache(ok).empty(), ok);
  for (const char* bad : { "redis://",
                           "http://h/c",
                           "file:/c",
                           "redis://a redis://b",
                           "redis://h|read-only",
                           "redis://h:x",
                           "" })
    CHECK_MESSAGE(!sccache(bad).empty(), bad);
  CHECK(sccache("http://h/c") ==
        "--remote http://h/c: sccache 0.4.0-pre.6 stores remotely only in Redis "
        "(redis://HOST:PORT); use --cache ccache for http:// storage");
}
