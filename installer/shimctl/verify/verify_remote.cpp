#include <algorithm>
#include <ctime>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/cache/secrets.hpp>
#include <shimctl/cache/shim_config.hpp>
#include <shimctl/cache/store_health.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/scratch.hpp>
#include <shimctl/util/text.hpp>
#include <shimctl/verify/verify_remote.hpp>

namespace shimctl::verify {

namespace {

// The same source every run: the remote holds one entry per toolchain for
// verify, not one per run.
constexpr std::string_view remote_source =
  "int shimctl_verify_remote(int x) { return x * 7 + 3; }\n";

struct RemoteProbe {
  const core::WrappedCompiler* compiler = nullptr;
  std::string file;
  std::vector<std::string> flags;
};

// The cheapest compiler to test with: a C/C++ compiler, else HIP, else CUDA.
RemoteProbe pick_probe(const core::Manifest& m, const VerifyOptions& options) {
  RemoteProbe best;
  int best_rank = 9;
  for (const auto& c : m.compilers) {
    int rank = c.verify == core::VerifyKind::c_cxx ? 0 : c.verify == core::VerifyKind::hip ? 1 : 2;
    if (rank >= best_rank)
      continue;
    best_rank = rank;
    best.compiler = &c;
    if (c.verify == core::VerifyKind::c_cxx) {
      best.file = "remote.c";
      best.flags = {};
    } else if (c.verify == core::VerifyKind::hip) {
      best.file = "remote.hip";
      best.flags = { "-x", "hip", "--offload-arch=" + options.offload_arch };
    } else {
      best.file = "remote.cu";
      best.flags = { "-arch=" + options.cuda_arch };
    }
  }
  return best;
}

// One compile through the shim with its own, empty local cache (and, sccache, a server of its
// own): what the remote did (RemoteOutcome); ERROR gets the compile's first line if it failed.
util::Result<cache::RemoteOutcome> compile_with_empty_local_cache(const core::Manifest& m,
                                                                  const RemoteProbe& probe,
                                                                  util::RunOptions options,
                                                                  std::string& error) {
  TRY_ASSIGN(auto local, util::ScratchDir::create("remote-local"));
  TRY_ASSIGN(auto work, util::ScratchDir::create("remote-src"));
  TRY(work.write(probe.file, remote_source));
  TRY_ASSIGN(auto round, cache::tool_of(m.cache).remote_round(m.cache, options, local.path()));
  if (auto refusal = round->refusal(); !refusal.empty())
    return round->outcome(); // the store is refused before any compile: nothing to learn from one
  options.cwd = work.path();
  std::vector<std::string> argv{ m.prefix + "/" + probe.compiler->path };
  argv.insert(argv.end(), probe.flags.begin(), probe.flags.end());
  argv.insert(argv.end(), { "-c", probe.file, "-o", "remote.o" });
  TRY_ASSIGN(auto r, util::run(argv, options));
  if (!r.ok())
    error = util::redact_credentials(r.err.substr(0, r.err.find('\n')));
  return round->outcome();
}

} // namespace

namespace {

// The environment of the shim's compiles with the remote, its credential read from the secrets
// file as the shim reads it; nullopt (with the check that says why in OUT) when it cannot be.
std::optional<util::RunOptions> remote_environment(const core::Manifest& m,
                                                   const std::string& url,
                                                   std::vector<Check>& out) {
  auto env = cache::shim_environment(m.cache, m.fingerprint.sha256, cache::identity_paths(m));
  if (m.cache.remote_secret) {
    auto secrets = cache::read_secrets(m.prefix);
    if (secrets.state == cache::SecretsFile::State::unreadable) {
      out.push_back({ "remote",
                      url,
                      Outcome::warn,
                      cache::credential_text(secrets, m.cache) +
                        "; not verified (run verify as the user who installed)" });
      return std::nullopt;
    }
    if (secrets.state == cache::SecretsFile::State::absent) {
      out.push_back({ "remote",
                      url,
                      Outcome::fail,
                      fmt::format("{}; run 'shimctl install {} --remote URL' again",
                                  cache::credential_text(secrets, m.cache),
                                  m.prefix) });
      return std::nullopt;
    }
    env.secrets = secrets.lines;
  }
  util::RunOptions run_options;
  run_options.env = cache::tool_environment(env);
  run_options.env["SHIMCTL_DISABLE"] = std::nullopt;
  run_options.env["SHIMCTL_ACTIVE"] = std::nullopt;
  return run_options;
}

// What the two compiles say of the remote: FIRST stored (or found) the entry, SECOND, with
// another empty local cache, must have read it; ERROR: a compile's own failure.
Check remote_verdict(const core::Manifest& m,
                     const std::string& url,
                     const std::string& compiler,
                     const cache::RemoteOutcome& first,
                     const cache::RemoteOutcome& second,
                     const std::string& error) {
  if (!error.empty())
    return { "remote",
             url,
             Outcome::fail,
             "a compile through the shim failed with the remote configured: " + error };
  if (!second.refused.empty())
    return { "remote",
             url,
             Outcome::warn,
             fmt::format(
               "remote storage {} is refused or unreachable ({}): compiles run without it",
               url,
               second.refused) };
  if (second.read_errors > 0 || (first.write_errors > 0 && !m.cache.remote_read_only))
    return { "remote",
             url,
             Outcome::warn,
             fmt::format("remote storage {} is unreachable: compiles use the local cache "
                         "(the store failed or refused a request: is it down, or is the "
                         "credential wrong or not allowed to write?)",
                         url) };
  if (second.hits > 0)
    return { "remote",
             url,
             Outcome::pass,
             fmt::format("a compile with an empty local cache was served from the remote ({}{})",
                         compiler,
                         m.cache.remote_read_only ? ", read-only" : "") };
  if (m.cache.remote_read_only)
    return { "remote",
             url,
             Outcome::warn,
             "reachable, but the read-only remote holds no entry for the test compile yet "
             "(a writer populates it); nothing was written" };
  return { "remote",
           url,
           Outcome::fail,
           "the repeat compile with an empty local cache was not served from the remote "
           "(a miss); check the URL and the server's write permissions" };
}

} // namespace

void verify_remote(const core::Manifest& m, const VerifyOptions& options, std::vector<Check>& out) {
  if (!m.cache.remote)
    return;
  const auto url = util::redact_credentials(*m.cache.remote);
  auto probe = pick_probe(m, options);
  if (!probe.compiler)
    return;
  // A store this user's compiles found out (the shim's memo, shim/store_health.c: verify's own
  // compiles through the shim, just before, asked it if its cool-down had ended) is not asked
  // again where asking starts a server with the store (sccache: each round starts one, and
  // 0.17's start waits up to 10 s on a store that hangs). The memo's row (verify_store_health)
  // says what failed. ccache asks in one call with a bounded wait: asked, "unreachable".
  if (auto store = cache::store_probe(m.cache.remote);
      store && cache::tool_of(m.cache).server_start_waits_on_store()) {
    auto health = cache::read_store_health(*store);
    auto now = static_cast<unsigned long long>(std::time(nullptr));
    if (health && health->out) {
      out.push_back({ "remote",
                      url,
                      Outcome::warn,
                      fmt::format("remote storage {} is out ({}): not asked; compiles use the "
                                  "local cache",
                                  url,
                                  cache::store_failure_words(*health, now)) });
      return;
    }
  }
  auto run_options = remote_environment(m, url, out);
  if (!run_options)
    return;
  // The first compile stores the entry (unless the remote has it already or
  // is read-only); the second, with another empty local cache, must read it.
  std::string error;
  auto first = compile_with_empty_local_cache(m, probe, *run_options, error);
  auto second = first ? compile_with_empty_local_cache(m, probe, *run_options, error) : first;
  if (!second) {
    out.push_back({ "remote", url, Outcome::fail, second.error().message });
    return;
  }
  out.push_back(remote_verdict(m, url, probe.compiler->path, *first, *second, error));
}

} // namespace shimctl::verify
