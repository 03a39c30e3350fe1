// A remote's credential: what the manifest, the shim config, the secrets file and shimctl's own
// cache calls each get (cache/secrets.hpp).
#include "temp_dir.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <filesystem>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/cache/secrets.hpp>
#include <shimctl/cache/shim_config.hpp>
#include <unistd.h>

using namespace shimctl;
using shimctl::test::make_temp_dir;
using shimctl::test::write_text;

namespace {

const std::string url = "redis://S3cret@127.0.0.1:6379";

core::Manifest manifest_with(const std::optional<std::string>& remote, const std::string& kind) {
  core::Manifest m;
  m.shimctl_version = "9.8.7";
  m.prefix = "/opt/rocm";
  m.cache.kind = kind;
  m.cache.path = "/usr/bin/" + kind;
  core::WrappedCompiler clang;
  clang.path = "llvm/bin/clang";
  clang.real = "llvm/bin/clang.real";
  clang.family = "clang";
  m.compilers = { clang };
  m.fingerprint.sha256 = std::string(64, 'f');
  (void)cache::set_remote(m.cache, remote);
  return m;
}

} // namespace

TEST_SUITE_BEGIN("cache::secrets");

TEST_CASE("set_remote keeps the URL redacted; the credential is returned, not stored") {
  core::CacheSettings s;
  CHECK(cache::set_remote(s, url) == url);
  CHECK(s.remote == "redis://***@127.0.0.1:6379");
  CHECK(s.remote_secret);
  CHECK(cache::set_remote(s, "redis://127.0.0.1:6379") == std::nullopt);
  CHECK(s.remote == "redis://127.0.0.1:6379");
  CHECK_FALSE(s.remote_secret);
  CHECK(cache::set_remote(s, std::nullopt) == std::nullopt);
  CHECK_FALSE(s.remote);
}

TEST_CASE("ccache: the credential only in the secrets file; the config keeps the shared cache") {
  auto m = manifest_with(url, "ccache");
  SUBCASE("a private cache: no remote storage at all for a user who cannot read the secret") {
    auto env = cache::shim_environment(m.cache, m.fingerprint.sha256, {});
    for (const auto& d : env.defaults)
      CHECK(d.find("CCACHE_REMOTE_STORAGE") == std::string::npos);
    CHECK(cache::tool_of(m.cache).secret_environment(m.cache, url) ==
          std::vector<std::string>{ "CCACHE_REMOTE_STORAGE=" + url });
  }
  SUBCASE("a shared cache and a read-only remote") {
    m.cache.shared_group = "devs";
    m.cache.dir = "/srv/shared";
    m.cache.remote_read_only = true;
    auto env = cache::shim_environment(m.cache, m.fingerprint.sha256, {});
    CHECK(std::find(env.defaults.begin(),
                    env.defaults.end(),
                    "CCACHE_REMOTE_STORAGE=file:/srv/shared|umask=002") != env.defaults.end());
    auto lines = cache::tool_of(m.cache).secret_environment(m.cache, url);
    CHECK(lines == std::vector<std::string>{ "CCACHE_REMOTE_STORAGE=file:/srv/shared|umask=002 " +
                                             url + "|read-only" });
    CHECK(cache::tool_of(m.cache).remote_url_of(m.cache, lines) == url);
  }
  auto text = cache::render_shim_config(
    m, "llvm/bin", cache::shim_environment(m.cache, m.fingerprint.sha256, {}));
  CHECK(text.find("\nsecrets /opt/rocm/.shimctl/secrets\n") != std::string::npos);
  CHECK(text.find("S3cret") == std::string::npos);
}

TEST_CASE("a remote without a credential stays in the config, and no secrets line") {
  auto m = manifest_with("redis://127.0.0.1:6379", "ccache");
  auto env = cache::shim_environment(m.cache, m.fingerprint.sha256, {});
  CHECK(std::find(env.defaults.begin(),
                  env.defaults.end(),
                  "CCACHE_REMOTE_STORAGE=redis://127.0.0.1:6379") != env.defaults.end());
  CHECK(cache::render_shim_config(m, "llvm/bin", env).find("\nsecrets ") == std::string::npos);
}

TEST_CASE("sccache: the store's settings and credential only in the secrets file") {
  const std::string sccache_url = "redis://:S3cret@127.0.0.1:6379";
  auto m = manifest_with(sccache_url, "sccache");
  auto env = cache::shim_environment(m.cache, m.fingerprint.sha256, {});
  for (const auto& d : env.defaults)
    CHECK(d.find("SCCACHE_REDIS") == std::string::npos);
  auto lines = cache::tool_of(m.cache).secret_environment(m.cache, sccache_url);
  // The local disk cache in front of the store (sccache >= 0.15; an unknown version has it).
  CHECK(lines == std::vector<std::string>{ "# remote=" + sccache_url,
                                           "SCCACHE_REDIS_ENDPOINT=redis://127.0.0.1:6379",
                                           "SCCACHE_REDIS_PASSWORD=S3cret",
                                           "SCCACHE_MULTILEVEL_CHAIN=disk,redis" });
  m.cache.version = "0.14.0";
  CHECK(cache::tool_of(m.cache).secret_environment(m.cache, sccache_url).back() ==
        "SCCACHE_REDIS_PASSWORD=S3cret");
  m.cache.version = "0.17.0";
  CHECK(cache::tool_of(m.cache).secret_environment(m.cache, "s3://bucket|no-credentials").back() ==
        "SCCACHE_MULTILEVEL_CHAIN=disk,s3");
  CHECK(cache::tool_of(m.cache).secret_environment(m.cache, "http://127.0.0.1:8080/dav").back() ==
        "SCCACHE_MULTILEVEL_CHAIN=disk,webdav");
  CHECK(cache::tool_of(m.cache).remote_url_of(m.cache, lines) == sccache_url);
  CHECK(cache::tool_of(m.cache).remote_url_of(m.cache, {}) == std::nullopt);
  // A secrets file written before issue 24.
  CHECK(cache::tool_of(m.cache).remote_url_of(m.cache, { "SCCACHE_REDIS=" + sccache_url }) ==
        sccache_url);
}

TEST_CASE("tool_environment: the secrets win over the defaults, the caller's own over both") {
  cache::ShimEnvironment env;
  env.defaults = { "CCACHE_REMOTE_STORAGE=file:/srv/shared|umask=002", "CCACHE_DEPEND=1" };
  env.secrets = { "CCACHE_REMOTE_STORAGE=file:/srv/shared|umask=002 " + url };
  ::unsetenv("CCACHE_REMOTE_STORAGE");
  CHECK(cache::tool_environment(env).at("CCACHE_REMOTE_STORAGE") ==
        "file:/srv/shared|umask=002 " + url);
  ::setenv("CCACHE_REMOTE_STORAGE", "mine", 1);
  CHECK_FALSE(cache::tool_environment(env).contains("CCACHE_REMOTE_STORAGE"));
  ::unsetenv("CCACHE_REMOTE_STORAGE");
  // A comment line (sccache's "# remote=URL", the URL in full) is no variable.
  env.secrets = { "# remote=redis://:pw@h", "SCCACHE_REDIS_PASSWORD=pw" };
  auto tool_env = cache::tool_environment(env);
  CHECK_FALSE(tool_env.contains("# remote"));
  CHECK(tool_env.at("SCCACHE_REDIS_PASSWORD") == "pw");
}

TEST_CASE("read_secrets: absent, read, or not a file it may read; credential_text says which") {
  auto prefix = make_temp_dir();
  auto settings = manifest_with(url, "ccache").cache;
  auto absent = cache::read_secrets(prefix);
  CHECK(absent.state == cache::SecretsFile::State::absent);
  CHECK(absent.path == prefix + "/.shimctl/secrets");
  CHECK(cache::credential_text(absent, settings) ==
        "credential file " + prefix + "/.shimctl/secrets is missing: compiles use the local " +
          "cache only");

  write_text(prefix + "/.shimctl/secrets",
             cache::render_secrets({ "CCACHE_REMOTE_STORAGE=" + url, "" }) + "# note\n");
  std::filesystem::permissions(prefix + "/.shimctl/secrets", std::filesystem::perms(0600));
  auto read = cache::read_secrets(prefix);
  CHECK(read.state == cache::SecretsFile::State::read);
  CHECK(read.lines == std::vector<std::string>{ "CCACHE_REMOTE_STORAGE=" + url });
  CHECK(read.mode == 0600);
  CHECK(cache::credential_text(read, settings) ==
        "credential in " + prefix + "/.shimctl/secrets, mode 0600");

  std::filesystem::remove(prefix + "/.shimctl/secrets");
  std::filesystem::create_symlink("/etc/passwd", prefix + "/.shimctl/secrets");
  auto link = cache::read_secrets(prefix);
  CHECK(link.state == cache::SecretsFile::State::unreadable);
  CHECK(link.lines.empty());
  CHECK(cache::credential_text(link, settings) ==
        "credential in " + prefix + "/.shimctl/secrets not readable by this user (" + link.reason +
          "): compiles use the local cache only");
}

TEST_SUITE_END();
