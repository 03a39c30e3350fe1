#include "cache_tools.hpp"

#include <doctest/doctest.h>
#include <functional>
#include <nlohmann/json.hpp>
#include <shimctl/core/manifest.hpp>
#include <string>

using namespace shimctl;

namespace {

const std::string prefix = "/opt/rocm-test";
const std::string hash_a(64, 'a');
const std::string hash_b = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

core::Manifest sample_manifest() {
  core::Manifest m;
  m.shimctl_version = "0.1.0";
  m.created = "2026-12-01T00:00:00Z";
  m.prefix = prefix;
  m.layout = "rocm";
  m.cache.kind = "ccache";
  m.cache.path = "/usr/bin/ccache";
  m.cache.version = "4.7.5";
  m.cache.dir = "/var/cache/shimctl";
  m.cache.max_size = "20G";
  m.cache.remote = "redis://127.0.0.1:6379";
  m.cache.remote_read_only = true;
  m.shim_sha256 = hash_a;
  m.shim_size = 12345;
  m.fingerprint.sha256 = hash_b;
  m.fingerprint.inputs = { { "amdgcn/bitcode/ocml.bc", hash_a, 100 },
                           { "bin/hipcc.real", hash_b, 200 } };
  core::WrappedCompiler hipcc;
  hipcc.path = "bin/hipcc";
  hipcc.real = "bin/hipcc.real";
  hipcc.family = "hipcc";
  hipcc.name_handling = core::NameHandling::sibling;
  hipcc.verify = core::VerifyKind::hip;
  hipcc.original = { "file", hash_b, 4096, 0755, 0, 0, std::nullopt };
  m.compilers.push_back(hipcc);
  core::WrappedCompiler clang;
  clang.path = "llvm/bin/clang";
  clang.real = "llvm/bin/clang.real";
  clang.family = "clang";
  clang.name_handling = core::NameHandling::argv0;
  clang.verify = core::VerifyKind::c_cxx;
  clang.original = { "file", hash_a, 99999999, 0750, 1000, 1001, std::nullopt };
  clang.aliases = { { "llvm/bin/clang++", "clang" }, { "llvm/bin/amdclang", "clang" } };
  clang.job_lists = { { "llvm/bin/clang++", "\"clang\" \"-cc1\" ..." } };
  clang.diverted_by = "dpkg";
  m.compilers.push_back(clang);
  m.created_files = { "bin/.shimctl.conf", "llvm/bin/.shimctl.conf" };
  return m;
}

// The error message of parsing the sample manifest after EDIT.
std::string error_after(const std::function<void(nlohmann::json&)>& edit,
                        const std::string& expected_prefix = prefix) {
  auto j = nlohmann::json::parse(core::to_json(sample_manifest()));
  edit(j);
  auto parsed = core::parse_manifest(j.dump(), expected_prefix, known_cache_tools());
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().code == util::ExitCode::corrupt);
  return parsed.error().message;
}

} // namespace

TEST_SUITE_BEGIN("core::Manifest");

TEST_CASE("to_json and parse_manifest round trip") {
  auto m = sample_manifest();
  auto text = core::to_json(m);
  auto parsed = core::parse_manifest(text, prefix, known_cache_tools());
  REQUIRE(parsed);
  CHECK(core::to_json(*parsed) == text);
  CHECK(parsed->prefix == prefix);
  CHECK(parsed->cache.dir == m.cache.dir);
  CHECK(parsed->cache.remote_read_only);
  CHECK_FALSE(parsed->cache.shared_group);
  CHECK(parsed->fingerprint.inputs == m.fingerprint.inputs);
  REQUIRE(parsed->compilers.size() == 2);
  const auto& clang = parsed->compilers[1];
  CHECK(clang.name_handling == core::NameHandling::argv0);
  CHECK(clang.verify == core::VerifyKind::c_cxx);
  CHECK(clang.original.mode == 0750);
  CHECK(clang.original.uid == 1000);
  CHECK(clang.original.gid == 1001);
  CHECK(clang.original.size == 99999999);
  CHECK(clang.aliases.size() == 2);
  CHECK(clang.aliases[0].path == "llvm/bin/clang++");
  CHECK(clang.job_lists == m.compilers[1].job_lists);
  CHECK(clang.diverted_by == std::optional<std::string>("dpkg"));
  CHECK(parsed->compilers[0].verify == core::VerifyKind::hip);
  CHECK_FALSE(parsed->compilers[0].diverted_by);
  CHECK(parsed->created_files == m.created_files);
}

TEST_CASE("optional cache settings may be absent or null") {
  auto m = sample_manifest();
  m.cache.dir.reset();
  m.cache.max_size.reset();
  m.cache.remote.reset();
  m.cache.remote_read_only = false;
  auto parsed = core::parse_manifest(core::to_json(m), prefix, known_cache_tools());
  REQUIRE(parsed);
  CHECK_FALSE(parsed->cache.dir);
  CHECK_FALSE(parsed->cache.remote);
  CHECK(core::to_json(*parsed) == core::to_json(m));
}

TEST_CASE("a remote with a credential: the redacted URL, remote_secret and secret_id round trip") {
  auto m = sample_manifest();
  m.cache.remote = "redis://***@127.0.0.1:6379";
  m.cache.remote_secret = true;
  m.cache.secret_id = "0123456789abcdef";
  auto text = core::to_json(m);
  auto parsed = core::parse_manifest(text, prefix, known_cache_tools());
  REQUIRE(parsed);
  CHECK(parsed->cache.remote_secret);
  CHECK(parsed->cache.secret_id == m.cache.secret_id);
  CHECK(core::to_json(*parsed) == text);
}

TEST_CASE("a manifest written before the secrets file (no remote_secret, no secret_id) reads") {
  auto j = nlohmann::json::parse(core::to_json(sample_manifest()));
  j["cache"].erase("remote_secret");
  j["cache"].erase("secret_id");
  auto parsed = core::parse_manifest(j.dump(), prefix, known_cache_tools());
  REQUIRE(parsed);
  CHECK_FALSE(parsed->cache.remote_secret);
  CHECK_FALSE(parsed->cache.secret_id);
  CHECK(parsed->cache.remote == "redis://127.0.0.1:6379");
}

TEST_CASE("base dirs round trip in their order; a manifest written before them reads") {
  auto m = sample_manifest();
  m.cache.base_dirs = { "/srv/deps", "/home/me/third party", "/opt/sdk" };
  auto text = core::to_json(m);
  CHECK(nlohmann::json::parse(text)["cache"]["base_dirs"] ==
        nlohmann::json::array({ "/srv/deps", "/home/me/third party", "/opt/sdk" }));
  auto parsed = core::parse_manifest(text, prefix, known_cache_tools());
  REQUIRE(parsed);
  CHECK(parsed->cache.base_dirs == m.cache.base_dirs);
  CHECK(core::to_json(*parsed) == text);

  SUBCASE("none: an empty array") {
    auto none = core::to_json(sample_manifest());
    CHECK(nlohmann::json::parse(none)["cache"]["base_dirs"] == nlohmann::json::array());
    auto read = core::parse_manifest(none, prefix, known_cache_tools());
    REQUIRE(read);
    CHECK(read->cache.base_dirs.empty());
  }
  SUBCASE("absent (an older shimctl's manifest): none") {
    auto j = nlohmann::json::parse(text);
    j["cache"].erase("base_dirs");
    auto read = core::parse_manifest(j.dump(), prefix, known_cache_tools());
    REQUIRE(read);
    CHECK(read->cache.base_dirs.empty());
    CHECK(read->cache.max_size == "20G");
  }
}

TEST_CASE("broken manifests are refused with a message naming the field") {
  SUBCASE("base dirs") {
    CHECK(error_after([](auto& j) { j["cache"]["base_dirs"] = "/srv/deps"; }) ==
          "manifest is invalid: cache.base_dirs must be an array");
    CHECK(error_after([](auto& j) {
            j["cache"]["base_dirs"] = { "/srv/deps", 7 };
          }) == "manifest is invalid: cache.base_dirs[1] must be a string");
    CHECK(error_after([](auto& j) { j["cache"]["base_dirs"] = { "deps" }; }) ==
          "manifest is invalid: cache.base_dirs[0] 'deps' is not an absolute directory without "
          "':' or a trailing '/'");
    CHECK(error_after([](auto& j) { j["cache"]["base_dirs"] = { "/a:/b" }; }) ==
          "manifest is invalid: cache.base_dirs[0] '/a:/b' is not an absolute directory without "
          "':' or a trailing '/'");
    CHECK(error_after([](auto& j) { j["cache"]["base_dirs"] = { "/srv/deps/" }; }) ==
          "manifest is invalid: cache.base_dirs[0] '/srv/deps/' is not an absolute directory "
          "without ':' or a trailing '/'");
    CHECK(error_after([](auto& j) { j["cache"]["base_dirs"] = { "/" }; }) ==
          "manifest is invalid: cache.base_dirs[0] '/' is not an absolute directory without "
          "':' or a trailing '/'");
    CHECK(error_after([](auto& j) {
            j["cache"]["base_dirs"] = { "/d\nsetenv LD_PRELOAD=/tmp/evil.so" };
          }) == "manifest is invalid: cache.base_dirs[0] contains control characters");
    CHECK(error_after([](auto& j) {
            j["cache"]["base_dirs"] = { "/a", "/b", "/c", "/d", "/e" };
          }) == "manifest is invalid: cache.base_dirs has more than 4 entries");
  }
  SUBCASE("a secret's fields") {
    CHECK(error_after([](auto& j) { j["cache"]["secret_id"] = "ABCDEF0123456789"; }) ==
          "manifest is invalid: cache.secret_id is not 16 hex digits");
    CHECK(error_after([](auto& j) { j["cache"]["secret_id"] = "abc"; }) ==
          "manifest is invalid: cache.secret_id is not 16 hex digits");
    CHECK(error_after([](auto& j) { j["cache"]["remote_secret"] = "yes"; }) ==
          "manifest is invalid: cache.remote_secret must be a boolean");
    CHECK(error_after([](auto& j) {
            j["cache"]["remote_secret"] = true;
            j["cache"]["remote"] = nullptr;
          }) == "manifest is invalid: cache.remote_secret without cache.remote");
  }
  SUBCASE("not JSON") {
    auto text = core::to_json(sample_manifest());
    auto parsed =
      core::parse_manifest(text.substr(0, text.size() / 2), prefix, known_cache_tools());
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().message == "manifest is not valid JSON (truncated or damaged)");
    CHECK(parsed.error().code == util::ExitCode::corrupt);
  }
  SUBCASE("wrong schema_version") {
    CHECK(error_after([](auto& j) { j["schema_version"] = 2; }) ==
          "manifest is invalid: unsupported schema_version 2 (this shimctl reads 1)");
    CHECK(error_after([](auto& j) { j["schema_version"] = "1"; }) ==
          "manifest is invalid: schema_version must be an integer");
    CHECK(error_after([](auto& j) { j.erase("schema_version"); }) ==
          "manifest is invalid: schema_version must be an integer");
  }
  SUBCASE("a path with ..") {
    CHECK(error_after([](auto& j) { j["compilers"][0]["path"] = "bin/../../etc/x"; }) ==
          "manifest is invalid: compilers[0].path 'bin/../../etc/x' is not a relative path "
          "inside the prefix");
    CHECK(error_after([](auto& j) { j["fingerprint"]["inputs"][1]["path"] = ".."; }) ==
          "manifest is invalid: fingerprint.inputs[1].path '..' is not a clean relative or "
          "absolute path");
    CHECK(error_after([](auto& j) { j["fingerprint"]["inputs"][1]["path"] = "/usr/../etc/x"; }) ==
          "manifest is invalid: fingerprint.inputs[1].path '/usr/../etc/x' is not a clean "
          "relative or absolute path");
    CHECK(error_after([](auto& j) { j["created_files"][1] = "../x"; }) ==
          "manifest is invalid: created_files[1] is not a relative path inside the prefix");
  }
  SUBCASE("an absolute path") {
    CHECK(error_after([](auto& j) { j["compilers"][1]["aliases"][0]["path"] = "/usr/bin/cc"; }) ==
          "manifest is invalid: compilers[1].aliases[0].path '/usr/bin/cc' is not a relative "
          "path inside the prefix");
    CHECK(error_after([](auto& j) { j["cache"]["path"] = "ccache"; }) ==
          "manifest is invalid: cache.path must be absolute");
  }
  SUBCASE("a .real that is not the compiler's") {
    CHECK(error_after([](auto& j) { j["compilers"][0]["real"] = "bin/other.real"; }) ==
          "manifest is invalid: compilers[0].real must be path + \".real\"");
  }
  SUBCASE("a bad hash") {
    CHECK(error_after([](auto& j) { j["shim"]["sha256"] = "abc"; }) ==
          "manifest is invalid: shim.sha256 is not a SHA-256 hex digest");
    CHECK(error_after([](auto& j) { j["fingerprint"]["sha256"] = std::string(64, 'A'); }) ==
          "manifest is invalid: fingerprint.sha256 is not a SHA-256 hex digest");
    CHECK(error_after([](auto& j) {
            j["compilers"][1]["original"]["sha256"] = std::string(64, 'g');
          }) == "manifest is invalid: compilers[1].original.sha256 is not a SHA-256 hex digest");
  }
  SUBCASE("another prefix") {
    CHECK(error_after([](auto&) {}, "/opt/rocm") ==
          "manifest is invalid: manifest.prefix '/opt/rocm-test' is not this prefix (/opt/rocm)");
  }
  SUBCASE("a wrong type") {
    CHECK(error_after([](auto& j) { j["compilers"][0]["original"]["size"] = "4096"; }) ==
          "manifest is invalid: compilers[0].original.size must be a non-negative integer");
    CHECK(error_after([](auto& j) { j["compilers"][0]["original"]["mode"] = -1; }) ==
          "manifest is invalid: compilers[0].original.mode must be a non-negative integer");
    CHECK(error_after([](auto& j) { j["compilers"][0]["original"]["mode"] = 010000; }) ==
          "manifest is invalid: compilers[0].original.mode is out of range");
    CHECK(error_after([](auto& j) { j["layout"] = 7; }) ==
          "manifest is invalid: manifest.layout must be a string");
    CHECK(error_after([](auto& j) { j["cache"]["remote_read_only"] = "yes"; }) ==
          "manifest is invalid: cache.remote_read_only must be a boolean");
    CHECK(error_after([](auto& j) { j["compilers"] = nlohmann::json::array(); }) ==
          "manifest is invalid: manifest.compilers must be a non-empty array");
    CHECK(error_after([](auto& j) { j["compilers"][1]["name_handling"] = "magic"; }) ==
          "manifest is invalid: compilers[1].name_handling is unknown");
    CHECK(error_after([](auto& j) { j["cache"]["kind"] = "distcc"; }) ==
          "manifest is invalid: cache.kind is unknown");
  }
}

TEST_SUITE_END();
