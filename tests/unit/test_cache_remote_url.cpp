// install's --remote checked per cache tool before any work (Tool::check_remote_url,
// cache/remote_url.*): the URL forms ccache 4.7 and 4.14 and sccache store to; every refusal is
// exit 2, one line, no credential.
#include <cstdlib>
#include <doctest/doctest.h>
#include <shimctl/cache/remote_url.hpp>
#include <shimctl/cache/store_kind.hpp>
#include <shimctl/cache/tool.hpp>
#include <string>
#include <utility>

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
std::string sccache04(const std::string& url) {
  return refusal("sccache", "0.4.0-pre.6", url);
}
std::string sccache(const std::string& url) {
  return refusal("sccache", "0.17.0", url);
}

// sccache's environment for URL, one line.
std::string sccache_env(const std::string& url, bool read_only = false) {
  std::string out;
  for (const auto& line : cache::sccache_store_environment(url, read_only))
    out += (out.empty() ? "" : " ") + line;
  return out;
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

TEST_CASE("sccache 0.17: Redis, Redis Cluster, WebDAV and S3 URLs") {
  for (const char* ok : { "redis://h",
                          "redis://127.0.0.1:6379",
                          "redis://:pw@h:6379/1",
                          "redis://u:pw@h",
                          "rediss://h:6380|ca=/etc/ca.crt",
                          "redis://h:7001|cluster",
                          "redis://h:7001|cluster=h:7002,h:7003|read-only",
                          "http://h/c",
                          "https://u:p@h:8443/dav/cache|ca=/ca.crt",
                          "s3://bucket",
                          "s3://bucket/team/a|endpoint=http://127.0.0.1:9000|region=eu-1",
                          "s3://id:key@bucket/p|endpoint=https://s3.example|virtual-host",
                          "s3://bucket/p|no-credentials|read-only" })
    CHECK_MESSAGE(sccache(ok).empty(), ok);
  for (const char* bad : { "redis://",
                           "file:/c",
                           "redis://a redis://b",
                           "redis://h:x",
                           "redis://h/x",
                           "redis://h/1|cluster",
                           "redis://h|shards=a,b",
                           "http://h/c|cluster",
                           "rediss://h|ca=relative.crt",
                           "s3://",
                           "s3://b|endpoint=ftp://x",
                           "s3://b|region",
                           "memcached://h",
                           "" })
    CHECK_MESSAGE(!sccache(bad).empty(), bad);
  CHECK(sccache("file:/c") ==
        "--remote: 'file:/c' is not a store sccache knows (redis://[USER:PASSWORD@]HOST:PORT, "
        "rediss://..., redis://HOST:PORT|cluster, http(s)://[USER:PASSWORD@]HOST/PATH (WebDAV), "
        "s3://BUCKET/PREFIX|endpoint=URL|region=R)");
}

TEST_CASE("sccache 0.4 (Debian's build): no remote at all, in one line") {
  for (const char* url : { "redis://h:6379", "http://h/c", "s3://b/p" })
    CHECK(sccache04(url) == fmt::format("--remote: sccache 0.4.0-pre.6 has no remote storage "
                                        "(Debian's 0.4 build has none): {} would fail every "
                                        "compile; use --cache ccache, or an sccache >= 0.5 with "
                                        "--cache-tool PATH",
                                        url));
}

TEST_CASE("sccache's environment per store, credentials apart from the endpoint") {
  CHECK(sccache_env("redis://u:p%40ss@h:6379/2") ==
        "SCCACHE_REDIS_ENDPOINT=redis://h:6379 SCCACHE_REDIS_DB=2 SCCACHE_REDIS_USERNAME=u "
        "SCCACHE_REDIS_PASSWORD=p@ss");
  CHECK(sccache_env("redis://pw@h") ==
        "SCCACHE_REDIS_ENDPOINT=redis://h SCCACHE_REDIS_PASSWORD=pw");
  CHECK(sccache_env("redis://:pw@h") ==
        "SCCACHE_REDIS_ENDPOINT=redis://h SCCACHE_REDIS_PASSWORD=pw");
  CHECK(sccache_env("rediss://h:6380|ca=/t/ca.crt", true) ==
        "SSL_CERT_FILE=/t/ca.crt SCCACHE_REDIS_ENDPOINT=rediss://h:6380 "
        "SCCACHE_REDIS_RW_MODE=READ_ONLY");
  CHECK(sccache_env("redis://h:1|cluster=h:2,redis://h:3") ==
        "SCCACHE_REDIS_CLUSTER_ENDPOINTS=redis://h:1,redis://h:2,redis://h:3");
  CHECK(sccache_env("https://bob:pw@h:8443/dav/c?x|read-only") ==
        "SCCACHE_WEBDAV_ENDPOINT=https://h:8443/dav/c SCCACHE_WEBDAV_USERNAME=bob "
        "SCCACHE_WEBDAV_PASSWORD=pw SCCACHE_WEBDAV_RW_MODE=READ_ONLY");
  CHECK(sccache_env("s3://ID:SE%2FCRET@bkt/team/x/|endpoint=http://127.0.0.1:9|virtual-host") ==
        "SCCACHE_BUCKET=bkt SCCACHE_S3_KEY_PREFIX=team/x SCCACHE_ENDPOINT=http://127.0.0.1:9 "
        "SCCACHE_S3_USE_SSL=false SCCACHE_S3_ENABLE_VIRTUAL_HOST_STYLE=true "
        "SCCACHE_REGION=us-east-1 AWS_ACCESS_KEY_ID=ID AWS_SECRET_ACCESS_KEY=SE/CRET");
  CHECK(sccache_env("s3://b|region=eu-2|no-credentials|read-only") ==
        "SCCACHE_BUCKET=b SCCACHE_S3_NO_CREDENTIALS=true SCCACHE_REGION=eu-2 "
        "SCCACHE_S3_RW_MODE=READ_ONLY");
}

TEST_CASE("ccache: the URL form each version reads") {
  const auto& redis = cache::redis_store();
  // ccache sends no AUTH for an empty user: redis://:PASSWORD@ gets the user "default".
  CHECK(redis.ccache_form("redis://:pw@h:1|read-only", "4.7.5") ==
        "redis://default:pw@h:1|read-only");
  CHECK(redis.ccache_form("redis://:pw@h:1", "4.14.2") == "redis://default:pw@h:1");
  CHECK(redis.ccache_form("redis://pw@h:1", "4.7.5") == "redis://pw@h:1");
  // ccache < 4.14 cannot parse a '*' port: the shards carry the host instead.
  CHECK(redis.ccache_form("redis://127.0.0.1:*|shards=1,2(3)|read-only", "4.7.5") ==
        "redis://*|shards=127.0.0.1:1,127.0.0.1:2(3)|read-only");
  CHECK(redis.ccache_form("redis://127.0.0.1:*|shards=1,2", "4.14.2") ==
        "redis://127.0.0.1:*|shards=1,2");
  CHECK(redis.ccache_form("redis://127.0.0.1:*", "4.7.5") == "redis://127.0.0.1:*");
  CHECK(redis.ccache_form("redis://*|shards=a:1,b:2", "4.7.5") == "redis://*|shards=a:1,b:2");
  CHECK(redis.ccache_form("redis+unix:/run/r.sock", "4.7.5") == "redis+unix:/run/r.sock");
  CHECK(cache::http_store().ccache_form("http://h/c", "4.7.5") == "http://h/c");
  // What ccache is told asks the store kind, for each storage of the list.
  for (auto [version, told] : {
         std::pair{ "4.7.5",
                    "CCACHE_REMOTE_STORAGE=redis://default:pw@h:1 "
                    "redis://*|shards=h:1,h:2|read-only http://h/c" },
         std::pair{ "4.14.2",
                    "CCACHE_REMOTE_STORAGE=redis://default:pw@h:1 "
                    "redis://h:*|shards=1,2|read-only http://h/c" },
       }) {
    core::CacheSettings settings;
    settings.kind = "ccache";
    settings.version = version;
    auto lines = cache::tool_of(settings).secret_environment(
      settings, "redis://:pw@h:1 redis://h:*|shards=1,2|read-only http://h/c");
    REQUIRE(lines.size() == 1);
    CHECK_MESSAGE(lines[0] == told, version);
  }
  for (const char* url : { "rediss://h", "https://h/c", "s3://b/p" }) {
    CHECK_MESSAGE(ccache47(url).find("use --cache sccache") != std::string::npos, url);
    CHECK_MESSAGE(ccache414(url).find("use --cache sccache") != std::string::npos, url);
  }
  CHECK(ccache47("https://u:Secret@h/c") ==
        "--remote: 'https://***@h/c' has scheme 'https': ccache 4.7.5 has no TLS storage; use "
        "--cache sccache (>= 0.5: rediss://, https:// WebDAV, s3://BUCKET/PREFIX|endpoint=URL), "
        "or a plain redis:// or http:// store");
  CHECK(ccache47("redis://127.0.0.1:*|shards=1,2").empty());
}

TEST_CASE("install's S3 keys join an s3:// URL that names none") {
  ::setenv("AWS_ACCESS_KEY_ID", "AKID", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "se/cret", 1);
  CHECK(cache::with_environment_keys("s3://b/p|endpoint=http://h:1") ==
        "s3://AKID:se%2Fcret@b/p|endpoint=http://h:1");
  CHECK(cache::with_environment_keys("s3://x:y@b/p") == "s3://x:y@b/p");
  CHECK(cache::with_environment_keys("s3://b/p|no-credentials") == "s3://b/p|no-credentials");
  CHECK(cache::with_environment_keys("redis://h") == "redis://h");
  ::unsetenv("AWS_ACCESS_KEY_ID");
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  CHECK(cache::with_environment_keys("s3://b/p") == "s3://b/p");
}
