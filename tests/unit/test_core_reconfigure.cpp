// `shimctl install` on an installed prefix: what --remote and --remote-read-only change, and
// what happens to the secrets file (a remote's credential) with them.
#include <doctest/doctest.h>
#include <shimctl/commands/reconfigure.hpp>

using namespace shimctl;

namespace {

const std::string prefix = "/opt/rocm-test";
const std::string old_url = "redis://OldPass@127.0.0.1:6379";
const std::string new_url = "redis://NewPass@127.0.0.1:6379";
const std::string old_id = "0123456789abcdef";

// An installed prefix whose remote's credential is in its secrets file (OLD_URL).
core::Manifest installed() {
  core::Manifest m;
  m.prefix = prefix;
  m.cache.kind = "ccache";
  m.cache.path = "/usr/bin/ccache";
  m.cache.remote = "redis://***@127.0.0.1:6379";
  m.cache.remote_secret = true;
  m.cache.secret_id = old_id;
  return m;
}

cache::SecretsFile secrets_with(std::vector<std::string> lines) {
  cache::SecretsFile s;
  s.state = cache::SecretsFile::State::read;
  s.path = prefix + "/.shimctl/secrets";
  s.lines = std::move(lines);
  return s;
}

commands::InstallOptions asking(std::optional<std::string> remote, bool read_only = false) {
  commands::InstallOptions o;
  o.prefix = prefix;
  o.remote = std::move(remote);
  o.remote_read_only = read_only;
  return o;
}

} // namespace

TEST_SUITE_BEGIN("core::Reconfigure");

TEST_CASE("a new password for the same remote: a new secrets file and secret_id, nothing shown") {
  auto secrets = secrets_with({ "CCACHE_REMOTE_STORAGE=" + old_url });
  auto r = commands::requested_reconfiguration(asking(new_url), installed(), secrets);
  REQUIRE(r);
  CHECK(r->changes == std::vector<std::string>{ "remote: redis://***@127.0.0.1:6379 -> "
                                                "redis://***@127.0.0.1:6379 (new credential)" });
  CHECK(r->cache.remote == "redis://***@127.0.0.1:6379");
  REQUIRE(r->cache.secret_id);
  CHECK(r->cache.secret_id->size() == 16);
  CHECK(r->cache.secret_id != old_id);
  REQUIRE(r->secret);
  CHECK(r->secret->kind == core::StepKind::write_secret);
  CHECK(r->secret->content == "CCACHE_REMOTE_STORAGE=" + new_url + "\n");
  CHECK(r->secret->mode == 0600);
  REQUIRE(r->previous_secret);
  CHECK(r->previous_secret->content == "CCACHE_REMOTE_STORAGE=" + old_url + "\n");
  for (const auto& line : r->changes)
    CHECK(line.find("Pass") == std::string::npos);
}

TEST_CASE("the same URL again changes nothing") {
  auto secrets = secrets_with({ "CCACHE_REMOTE_STORAGE=" + old_url });
  auto r = commands::requested_reconfiguration(asking(old_url), installed(), secrets);
  REQUIRE(r);
  CHECK(r->changes.empty());
  CHECK_FALSE(r->secret);
  CHECK(r->cache.secret_id == old_id);
}

TEST_CASE("--remote-read-only alone: the credential comes from the secrets file") {
  auto secrets = secrets_with({ "CCACHE_REMOTE_STORAGE=" + old_url });
  auto r = commands::requested_reconfiguration(asking(std::nullopt, true), installed(), secrets);
  REQUIRE(r);
  CHECK(r->changes ==
        std::vector<std::string>{
          "remote: redis://***@127.0.0.1:6379 -> redis://***@127.0.0.1:6379 (read-only)" });
  REQUIRE(r->secret);
  CHECK(r->secret->content == "CCACHE_REMOTE_STORAGE=" + old_url + "|read-only\n");
  SUBCASE("a secrets file this user cannot read: refused, nothing changed") {
    secrets.state = cache::SecretsFile::State::unreadable;
    secrets.reason = "Permission denied";
    auto refused =
      commands::requested_reconfiguration(asking(std::nullopt, true), installed(), secrets);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message ==
          "--remote-read-only: cannot read the remote's credential in " + prefix +
            "/.shimctl/secrets (Permission denied); run as the user who installed " + prefix +
            ", or give --remote URL again (nothing changed)");
  }
}

TEST_CASE("a remote without a credential: the secrets file goes") {
  auto secrets = secrets_with({ "CCACHE_REMOTE_STORAGE=" + old_url });
  auto r =
    commands::requested_reconfiguration(asking("redis://127.0.0.1:6380"), installed(), secrets);
  REQUIRE(r);
  CHECK(r->changes ==
        std::vector<std::string>{ "remote: redis://***@127.0.0.1:6379 -> redis://127.0.0.1:6380" });
  CHECK_FALSE(r->cache.remote_secret);
  CHECK_FALSE(r->cache.secret_id);
  REQUIRE(r->secret);
  CHECK(r->secret->kind == core::StepKind::remove_secret);
}

TEST_CASE("a credential an older shimctl kept in the manifest moves to the secrets file") {
  auto m = installed();
  m.cache.remote = old_url;
  m.cache.remote_secret = false;
  m.cache.secret_id.reset();
  auto r = commands::requested_reconfiguration(asking(std::nullopt), m, cache::SecretsFile{});
  REQUIRE(r);
  CHECK(r->changes == std::vector<std::string>{ "remote: redis://***@127.0.0.1:6379 -> "
                                                "redis://***@127.0.0.1:6379 (credential in " +
                                                prefix + "/.shimctl/secrets)" });
  CHECK(r->cache.remote == "redis://***@127.0.0.1:6379");
  CHECK(r->cache.remote_secret);
  REQUIRE(r->secret);
  CHECK(r->secret->content == "CCACHE_REMOTE_STORAGE=" + old_url + "\n");
  REQUIRE(r->previous_secret);
  CHECK(r->previous_secret->kind == core::StepKind::remove_secret);
}

TEST_SUITE_END();
