// The shim's config reader (shim/config.c, the library shimctl-shim-formats the shim compiles):
// what cache::render_shim_config writes it reads back exactly, for every directive kind; and the
// exact problem for each malformed line.
#include "temp_dir.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <filesystem>
#include <memory>
#include <set>
#include <shim/formats.h>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/cache/shim_config.hpp>
#include <string>
#include <vector>

using namespace shimctl;

namespace {

// A parse of TEXT that keeps the text alive as long as the config that points into it.
struct Parsed {
  explicit Parsed(std::string text_)
    : text(std::move(text_)) {
    buffer = text;
    buffer.push_back('\0'); // the parser may write at text[len]
    problem =
      shimctl_parse_config(config.get(), buffer.data(), text.size(), "D/.shimctl.conf", why, 512);
  }
  std::string text, buffer;
  std::unique_ptr<shimctl_config> config = std::make_unique<shimctl_config>();
  char why[512] = "";
  const char* problem = nullptr;
};

// The parse's problem, "" when the config is accepted.
std::string problem_of(const std::string& text) {
  Parsed p(text);
  return p.problem ? p.problem : "";
}

std::string config_with(const std::string& lines) {
  return SHIMCTL_CONFIG_HEADER "\ncache /usr/bin/ccache\n" + lines;
}

std::string render(const shimctl_directive& d) {
  std::string out(shimctl_render_directive(nullptr, 0, &d), '\0');
  shimctl_render_directive(out.data(), out.size() + 1, &d);
  return out;
}

std::vector<std::string> fields(const shimctl_directive& d) {
  const char* f[2];
  int n = shimctl_directive_fields(&d, f);
  return std::vector<std::string>(f, f + n);
}

core::Manifest manifest_with_every_directive() {
  core::Manifest m;
  m.shimctl_version = "1.2.3";
  m.prefix = "/opt/rocm";
  m.cache.kind = "ccache";
  m.cache.path = "/usr/bin/ccache";
  core::WrappedCompiler hipcc;
  hipcc.path = "bin/hipcc";
  hipcc.real = "bin/hipcc.real";
  hipcc.family = "hipcc";
  hipcc.aliases = { { "bin/hipcc.pl", "hipcc" } };
  m.compilers = { hipcc };
  m.fingerprint.inputs = { { "bin/hipcc.real", "", 0 },
                           { "llvm/bin/clang-offload-bundler", "", 0 },
                           { "llvm/bin/clang-15", "", 0 } };
  return m;
}

} // namespace

TEST_SUITE_BEGIN("shim::config");

TEST_CASE("what render_shim_config writes the shim reads back exactly, for every directive kind") {
  auto m = manifest_with_every_directive();
  m.cache.remote = "redis://***@127.0.0.1:6379";
  m.cache.remote_secret = true;                           // the secrets line
  m.cache.base_dirs = { "/srv/deps", "/home/me/b deps" }; // a setenv line of their own
  cache::ShimEnvironment env;
  env.defaults = { "CCACHE_DIR=/var/cache/ccache", "CCACHE_DEPEND=1" };
  env.appends = { "SCCACHE_EXTRAFILES=/opt/rocm/a.bc:/opt/rocm/b.bc" };
  env.identity_helper = "/usr/bin/shimctl";
  env.store_probe = "redis";
  env.store_address = "127.0.0.1:6379";
  Parsed p(cache::render_shim_config(m, "bin", env));
  REQUIRE_MESSAGE(p.problem == nullptr, p.problem);
  CHECK(std::string(p.config->store.probe) == "redis");
  CHECK(std::string(p.config->store.address) == "127.0.0.1:6379");
  CHECK(std::string(p.config->state_dir) == "/opt/rocm/.shimctl");
  CHECK(std::string(p.config->cache_path) == "/usr/bin/ccache");
  CHECK(std::string(p.config->identity_helper) == "/usr/bin/shimctl");
  CHECK(std::string(p.config->secrets_path) == "/opt/rocm/.shimctl/secrets");
  CHECK(std::string(p.config->cache_kind) == "ccache");

  std::vector<std::vector<std::string>> list;
  std::set<int> kinds;
  for (std::size_t i = 0; i < p.config->count; i++) {
    const auto& d = p.config->list[i];
    kinds.insert(d.kind);
    auto line = fields(d);
    line.insert(line.begin(), shimctl_directive_name(d.kind));
    list.push_back(line);
  }
  std::vector<std::vector<std::string>> expected = {
    { "setenv", "CCACHE_DIR=/var/cache/ccache" },
    { "setenv", "CCACHE_DEPEND=1" },
    { "setenv", "SHIMCTL_BASE_DIRS=/srv/deps:/home/me/b deps" },
    { "appendenv", "SCCACHE_EXTRAFILES=/opt/rocm/a.bc:/opt/rocm/b.bc" },
    { "compiler", "hipcc", "hipcc.real" },
    { "target-probe", "hipcc", "/opt/rocm/bin/rocm_agent_enumerator" },
    { "native-probe", "hipcc", "/opt/rocm/llvm/bin/amdgpu-arch" },
  };
  for (const auto& variable : cache::key_environment("hipcc"))
    expected.push_back({ "keyenv", variable });
  std::sort(expected.begin() + 7, expected.end());
  expected.push_back({ "alias", "hipcc.pl", "hipcc" });
  CHECK(list == expected);
  // The scalar kinds (state, cache, cache-kind, identity-helper, secrets, sccache-server,
  // pieces-helper, store) are fields of the config, the others are in the list: every listed
  // kind was written.
  CHECK(kinds.size() + 8 == SHIMCTL_DIRECTIVE_KINDS);

  const auto* compiler = shimctl_find_compiler(p.config.get(), "hipcc");
  REQUIRE(compiler);
  CHECK(std::string(compiler->real_name) == "hipcc.real");
  const auto* alias = shimctl_find_alias(p.config.get(), "hipcc.pl");
  REQUIRE(alias);
  CHECK(std::string(alias->compiler) == "hipcc");
  const auto* probe = shimctl_find_probe(p.config.get(), SHIMCTL_TARGET_PROBE, "hipcc");
  REQUIRE(probe);
  CHECK(std::string(probe->probe) == "/opt/rocm/bin/rocm_agent_enumerator");
  const auto* native = shimctl_find_probe(p.config.get(), SHIMCTL_NATIVE_PROBE, "hipcc");
  REQUIRE(native);
  CHECK(std::string(native->probe) == "/opt/rocm/llvm/bin/amdgpu-arch");
  CHECK(shimctl_find_compiler(p.config.get(), "hipcc.pl") == nullptr);
}

TEST_CASE("native-probe: what each family runs for --offload-arch=native / -arch=native") {
  auto m = manifest_with_every_directive();
  CHECK(cache::native_probe(m, "clang", "llvm/bin") == "/opt/rocm/llvm/bin/amdgpu-arch");
  CHECK(cache::native_probe(m, "nvcc", "bin") == "/opt/rocm/bin/__nvcc_device_query");
  CHECK(cache::native_probe(m, "hipcc", "bin") == "/opt/rocm/llvm/bin/amdgpu-arch");
  // A distribution's hipcc in /usr runs /usr/lib/llvm-21/bin/clang-21 (outside "bin"): here a
  // prefix of the test's, without offload-arch (LLVM <= 19: amdgpu-arch) and with it (clang >= 23
  // runs offload-arch; LLVM >= 20's amdgpu-arch is a link to it).
  m.prefix = test::make_temp_dir();
  auto bin = m.prefix + "/lib/llvm-21/bin";
  std::filesystem::create_directories(bin);
  m.fingerprint.inputs = { { "bin/hipcc", "", 0 }, { "lib/llvm-21/bin/clang++.real", "", 0 } };
  CHECK(cache::native_probe(m, "hipcc", "bin") == bin + "/amdgpu-arch");
  m.fingerprint.inputs = { { bin + "/clang", "", 0 } };
  CHECK(cache::native_probe(m, "hipcc", "bin") == bin + "/amdgpu-arch");
  test::write_text(bin + "/offload-arch", "#!/bin/sh\n");
  std::filesystem::permissions(bin + "/offload-arch", std::filesystem::perms::owner_all);
  CHECK(cache::native_probe(m, "hipcc", "bin") == bin + "/offload-arch");
  CHECK(cache::native_probe(m, "clang", "lib/llvm-21/bin") == bin + "/offload-arch");
  // No clang among the inputs: none (a native hipcc call then runs uncached).
  m.fingerprint.inputs = { { "bin/hipcc", "", 0 }, { "lib/clang-offload-bundler", "", 0 } };
  CHECK(cache::native_probe(m, "hipcc", "bin") == std::nullopt);
  CHECK(cache::native_probe(m, "gcc", "bin") == std::nullopt);
}

TEST_CASE("sccache's config: cache-kind sccache") {
  auto m = manifest_with_every_directive();
  m.cache.kind = "sccache";
  m.cache.path = "/usr/bin/sccache";
  Parsed p(cache::render_shim_config(m, "bin", {}));
  REQUIRE_MESSAGE(p.problem == nullptr, p.problem);
  CHECK(std::string(p.config->cache_kind) == "sccache");
  CHECK(p.config->identity_helper == nullptr);
}

TEST_CASE("every directive kind: rendered, then read back with the same fields") {
  for (int k = 0; k < SHIMCTL_DIRECTIVE_KINDS; k++) {
    auto kind = static_cast<shimctl_directive_kind>(k);
    CAPTURE(shimctl_directive_name(kind));
    const char* first =
      kind == SHIMCTL_CACHE_KIND                            ? "sccache"
      : kind == SHIMCTL_SCCACHE_SERVER                      ? "unix"
      : kind == SHIMCTL_STORE                               ? "http"
      : kind == SHIMCTL_SETENV || kind == SHIMCTL_APPENDENV ? "A=b c"
      : kind == SHIMCTL_KEYENV                              ? "HIP_PATH"
      : kind == SHIMCTL_COMPILER || kind == SHIMCTL_TARGET_PROBE || kind == SHIMCTL_NATIVE_PROBE
        ? "cc"
      : kind == SHIMCTL_ALIAS ? "c"
                              : "/a b/c";
    const char* second = kind == SHIMCTL_SCCACHE_SERVER ? "0123456789abcdef"
                         : kind == SHIMCTL_STORE        ? "[::1]:8080"
                         : kind == SHIMCTL_TARGET_PROBE || kind == SHIMCTL_NATIVE_PROBE
                           ? "/bin/probe"
                         : kind == SHIMCTL_ALIAS ? "cc"
                                                 : "cc.real";
    auto d = shimctl_directive_of(kind, first, second);
    auto line = render(d);
    CHECK(line.starts_with(std::string(shimctl_directive_name(kind)) + " "));
    CHECK(line.ends_with("\n"));
    // An alias needs its compiler; the cache line is required.
    Parsed p(SHIMCTL_CONFIG_HEADER "\ncache /c\ncompiler cc cc.real\n" + line);
    REQUIRE_MESSAGE(p.problem == nullptr, p.problem);
    switch (kind) {
      case SHIMCTL_STATE:
        CHECK(std::string(p.config->state_dir) == first);
        break;
      case SHIMCTL_CACHE:
        CHECK(std::string(p.config->cache_path) == first);
        break;
      case SHIMCTL_IDENTITY_HELPER:
        CHECK(std::string(p.config->identity_helper) == first);
        break;
      case SHIMCTL_SECRETS:
        CHECK(std::string(p.config->secrets_path) == first);
        break;
      case SHIMCTL_PIECES_HELPER:
        CHECK(std::string(p.config->pieces_helper) == first);
        break;
      case SHIMCTL_CACHE_KIND:
        CHECK(std::string(p.config->cache_kind) == "sccache");
        break;
      case SHIMCTL_SCCACHE_SERVER:
        CHECK(std::string(p.config->sccache_server.transport) == first);
        CHECK(std::string(p.config->sccache_server.key) == second);
        break;
      case SHIMCTL_STORE:
        CHECK(std::string(p.config->store.probe) == first);
        CHECK(std::string(p.config->store.address) == second);
        break;
      default: {
        REQUIRE(p.config->count == 2);
        const auto& parsed = p.config->list[1];
        CHECK(parsed.kind == kind);
        CHECK(fields(parsed) == fields(d));
      }
    }
  }
}

TEST_CASE("comments, blank lines and a missing final newline are fine; later scalars win") {
  Parsed p("# generated\n\n" SHIMCTL_CONFIG_HEADER "\n# x\ncache /a\ncache /b\nstate /s");
  REQUIRE_MESSAGE(p.problem == nullptr, p.problem);
  CHECK(std::string(p.config->cache_path) == "/b");
  CHECK(std::string(p.config->state_dir) == "/s");
  CHECK(p.config->count == 0);
}

TEST_CASE("a config the shim cannot use: the exact problem, with its line") {
  CHECK(problem_of(config_with("sccache-server udp 0123456789abcdef\n")) ==
        "D/.shimctl.conf:3: expected unix|tcp and 16 hex digits: udp 0123456789abcdef");
  CHECK(problem_of(config_with("sccache-server unix 0123\n")) ==
        "D/.shimctl.conf:3: expected unix|tcp and 16 hex digits: unix 0123");
  CHECK(problem_of("") == "D/.shimctl.conf:0: no 'shimctl-shim-config 1' line");
  CHECK(problem_of("shimctl-shim-config 2\n") ==
        "D/.shimctl.conf:1: expected 'shimctl-shim-config 1', found: shimctl-shim-config 2");
  CHECK(problem_of(SHIMCTL_CONFIG_HEADER "\n") == "D/.shimctl.conf:1: no cache line");
  CHECK(problem_of(std::string(SHIMCTL_CONFIG_HEADER "\0\n", 23)) ==
        "D/.shimctl.conf:1: contains a NUL byte");
  CHECK(problem_of(config_with("state\n")) == "D/.shimctl.conf:3: directive without value: state");
  CHECK(problem_of(config_with("state \n")) ==
        "D/.shimctl.conf:3: directive without value: state ");
  CHECK(problem_of(config_with("cache relative\n")) ==
        "D/.shimctl.conf:3: path must be absolute: relative");
  CHECK(problem_of(config_with("identity-helper shimctl\n")) ==
        "D/.shimctl.conf:3: path must be absolute: shimctl");
  CHECK(problem_of(config_with("cache-kind distcc\n")) ==
        "D/.shimctl.conf:3: unknown cache tool: distcc");
  CHECK(problem_of(config_with("setenv NAME\n")) == "D/.shimctl.conf:3: expected NAME=VALUE: NAME");
  CHECK(problem_of(config_with("appendenv =x\n")) == "D/.shimctl.conf:3: expected NAME=VALUE: =x");
  CHECK(problem_of(config_with("keyenv A=B\n")) ==
        "D/.shimctl.conf:3: expected a variable name: A=B");
  CHECK(problem_of(config_with("target-probe hipcc probe\n")) ==
        "D/.shimctl.conf:3: expected a compiler name and an absolute path: hipcc probe");
  CHECK(problem_of(config_with("native-probe nvcc\n")) ==
        "D/.shimctl.conf:3: expected a compiler name and an absolute path: nvcc");
  CHECK(problem_of(config_with("compiler a/b c\n")) ==
        "D/.shimctl.conf:3: expected two file names: a/b c");
  CHECK(problem_of(config_with("compiler a b c\n")) ==
        "D/.shimctl.conf:3: expected two file names: a b c");
  CHECK(problem_of(config_with("alias x y\n")) ==
        "D/.shimctl.conf:3: alias of an unknown compiler: y");
  CHECK(
    problem_of(config_with("store smtp 127.0.0.1:25\n")) ==
    "D/.shimctl.conf:3: expected redis|redis-cluster|http|tcp and HOST:PORT: smtp 127.0.0.1:25");
  CHECK(problem_of(config_with("store redis\n")) ==
        "D/.shimctl.conf:3: expected redis|redis-cluster|http|tcp and HOST:PORT: redis");
  CHECK(problem_of(config_with("store redis a b\n")) ==
        "D/.shimctl.conf:3: expected redis|redis-cluster|http|tcp and HOST:PORT: redis a b");
  CHECK(problem_of(config_with("frobnicate x\n")) ==
        "D/.shimctl.conf:3: unknown directive: frobnicate");
}

TEST_CASE("more list directives than the shim has room for: refused, not cut") {
  std::string lines;
  for (int i = 0; i <= SHIMCTL_MAX_DIRECTIVES; i++)
    lines += "keyenv V" + std::to_string(i) + "\n";
  CHECK(problem_of(config_with(lines)) ==
        "D/.shimctl.conf:" + std::to_string(SHIMCTL_MAX_DIRECTIVES + 3) + ": too many directives");
}

TEST_SUITE_END();

TEST_CASE("a default's other form: CCACHE_<X> <-> CCACHE_NO<X>, for the shim and shimctl alike") {
  auto other = [](const char* entry) {
    char out[64];
    auto len = shimctl_negated_env_name(out, sizeof out, entry);
    return len ? std::string(out, len) : std::string("(none)");
  };
  CHECK(other("CCACHE_DEPEND=1") == "CCACHE_NODEPEND=");
  CHECK(other("CCACHE_NODEPEND=1") == "CCACHE_DEPEND=");
  CHECK(other("CCACHE_INODECACHE") == "CCACHE_NOINODECACHE=");
  CHECK(other("CCACHE_REMOTE_ONLY=1") == "CCACHE_NOREMOTE_ONLY=");
  CHECK(other("CCACHE_NO=1") == "CCACHE_NONO="); // "NO" alone is a name, not a negation
  CHECK(other("CCACHE_=1") == "(none)");
  CHECK(other("SCCACHE_DIR=/x") == "(none)");
  CHECK(other("PATH=/bin") == "(none)");
  char small[12];
  CHECK(shimctl_negated_env_name(small, sizeof small, "CCACHE_DEPEND=1") == 0); // does not fit
}
