// Every store kind of the table (cache/store_table.cpp), for every cache tool of its table
// (cache/tool_table.cpp): a URL of each scheme is judged by the tool, and what the tool is told
// reads back to the URL (issue 34: one file per store kind, picked from a table).
#include <algorithm>
#include <doctest/doctest.h>
#include <map>
#include <set>
#include <shimctl/cache/store_kind.hpp>
#include <shimctl/cache/tool.hpp>
#include <string>

using namespace shimctl;

namespace {

// One URL per scheme, with a credential where the scheme takes one.
const std::map<std::string, std::string> sample_url = {
  { "redis", "redis://user:S3cret@127.0.0.1:6379" },
  { "rediss", "rediss://user:S3cret@cache.example:6380" },
  { "redis+unix", "redis+unix:///run/redis/redis.sock" },
  { "http", "http://127.0.0.1:8080/cache" },
  { "https", "https://user:S3cret@dav.example/cache" },
  { "s3", "s3://KEY:S3cret@127.0.0.1:4568/bucket" },
  { "file", "file:///srv/team-cache" },
  { "crsh", "crsh:/run/ccache-storage.sock" },
};

core::CacheSettings settings_of(std::string_view tool) {
  core::CacheSettings s;
  s.kind = std::string(tool);
  s.path = "/usr/bin/" + s.kind;
  s.version = tool == "ccache" ? "4.14.2" : "0.17.0";
  return s;
}

} // namespace

TEST_SUITE_BEGIN("cache::store_table");

TEST_CASE("each scheme names the kind that lists it, and has a sample here") {
  for (const auto& [scheme, url] : sample_url) {
    const cache::StoreKind* kind = cache::store_kind_of(scheme);
    REQUIRE_MESSAGE(kind, scheme);
    auto schemes = kind->schemes();
    CHECK(std::ranges::find(schemes, scheme) != schemes.end());
  }
  for (const auto* kind : { &cache::redis_store(),
                            &cache::http_store(),
                            &cache::s3_store(),
                            &cache::file_store(),
                            &cache::helper_store() })
    for (auto scheme : kind->schemes())
      CHECK_MESSAGE(sample_url.contains(std::string(scheme)), scheme, " has no sample URL");
  CHECK(cache::store_kind_of("ftp") == nullptr);
}

TEST_CASE("every tool judges every kind's URL; what it is told reads back to the URL") {
  std::map<std::string, std::set<std::string>> accepted;
  for (auto name : cache::tool_names()) {
    auto settings = settings_of(name);
    const auto& tool = cache::tool_of(settings);
    for (const auto& [scheme, url] : sample_url) {
      auto judged = tool.check_remote_url(settings, url);
      if (!judged) {
        CHECK_MESSAGE(!judged.error().message.empty(), name, " refuses ", url, " without a reason");
        continue;
      }
      accepted[std::string(name)].insert(scheme);
      auto lines = tool.secret_environment(settings, url);
      CHECK_MESSAGE(!lines.empty(), name, " is told nothing for ", url);
      CHECK_MESSAGE(tool.remote_url_of(settings, lines) == url, name, " ", url);
    }
  }
  // ccache 4.14: its own Redis, HTTP and file storages and a storage helper's endpoint, without
  // TLS (rediss, https and S3 need a storage helper); sccache 0.17: Redis (TLS too, no socket
  // path), WebDAV and S3, no directory.
  CHECK(accepted["ccache"] ==
        std::set<std::string>{ "crsh", "file", "http", "redis", "redis+unix" });
  CHECK(accepted["sccache"] == std::set<std::string>{ "http", "https", "redis", "rediss", "s3" });
}

TEST_SUITE_END();
