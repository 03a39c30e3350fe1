#include <algorithm>
#include <map>
#include <memory>
#include <shim/formats.h>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/cache/shim_config.hpp>
#include <shimctl/core/state_files.hpp>
#include <shimctl/core/transaction.hpp>
#include <shimctl/identity/fingerprint.hpp>
#include <shimctl/identity/identity_snapshot.hpp>
#include <shimctl/identity/probe.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/scratch.hpp>
#include <shimctl/util/sha256.hpp>
#include <shimctl/verify/verify.hpp>
#include <shimctl/verify/verify_compile.hpp>
#include <shimctl/verify/verify_remote.hpp>
#include <shimctl/verify/verify_store_health.hpp>

namespace shimctl::verify {

std::vector<std::string> changed_identity_inputs(const core::Manifest& manifest) {
  // Inputs whose stat data match the snapshot need no re-hash: what the shim
  // trusts on every compile, verify and status trust too.
  std::map<std::string, identity::InputStat> vouched;
  for (auto& input : identity::vouched_inputs(manifest))
    vouched.emplace(input.path, input);
  std::vector<std::string> changed;
  for (const auto& input : manifest.fingerprint.inputs) {
    auto path = identity::input_path(manifest.prefix, input.path);
    if (auto it = vouched.find(path); it != vouched.end()) {
      auto now = identity::stat_input(path);
      if (now && *now == it->second)
        continue;
    }
    auto digest = util::sha256_file(path);
    if (!digest || *digest != input.sha256)
      changed.push_back(input.path);
  }
  return changed;
}

namespace {

void check_files(const util::Dir& prefix_dir,
                 const core::Manifest& m,
                 const core::WrappedCompiler& c,
                 std::vector<Check>& out) {
  auto [dir_path, name] = util::split_relative(c.path);
  auto dir = prefix_dir.open_relative(dir_path);
  if (!dir) {
    out.push_back({ c.path, "files", Outcome::fail, dir.error().message });
    return;
  }
  auto shim = dir->sha256(name);
  if (!shim)
    out.push_back({ c.path, "shim", Outcome::fail, "missing; run 'shimctl install' again" });
  else if (*shim != m.shim_sha256)
    out.push_back({ c.path,
                    "shim",
                    Outcome::fail,
                    "replaced by another file (a package upgrade?); run 'shimctl install' to "
                    "adopt it" });
  else
    out.push_back({ c.path, "shim", Outcome::pass, "intact" });
  auto real = dir->sha256(util::split_relative(c.real).second);
  if (!real)
    out.push_back({ c.path, "original", Outcome::fail, fmt::format("{} is missing", c.real) });
  else if (*real != c.original.sha256 && c.diverted_by)
    // dpkg wrote the package's newer file to the diverted .real: expected.
    out.push_back({ c.path,
                    "original",
                    Outcome::warn,
                    fmt::format("{} was updated by its package (diverted); run 'shimctl install' "
                                "to record it",
                                c.real) });
  else if (*real != c.original.sha256)
    out.push_back({ c.path,
                    "original",
                    Outcome::fail,
                    fmt::format("{} no longer matches its recorded SHA-256", c.real) });
  else
    out.push_back({ c.path, "original", Outcome::pass, fmt::format("{} matches", c.real) });
  for (const auto& alias : c.aliases) {
    auto [adir, aname] = util::split_relative(alias.path);
    auto d = prefix_dir.open_relative(adir);
    auto target = d ? d->read_link(aname) : util::Result<std::string>(std::unexpected(d.error()));
    if (!target || *target != alias.target)
      out.push_back({ alias.path,
                      "alias",
                      Outcome::fail,
                      fmt::format("no longer a symlink to {}", alias.target) });
  }
}

void check_job_lists(const core::Manifest& m,
                     const core::WrappedCompiler& c,
                     std::vector<Check>& out) {
  // Every wrapped compiler's .real by its original name: a launcher (ROCm's amdllvm) runs
  // another wrapped compiler, whose original the nested shim then runs.
  std::vector<identity::Rename> renames;
  for (const auto& wrapped : m.compilers)
    renames.push_back({ m.prefix + "/" + wrapped.real, m.prefix + "/" + wrapped.path });
  std::size_t same = 0;
  for (const auto& [invoked, recorded] : c.job_lists) {
    auto now = identity::job_list(m.prefix, invoked, renames);
    if (!now) {
      out.push_back({ invoked, "behaviour", Outcome::fail, now.error().message });
    } else if (*now != recorded) {
      out.push_back({ invoked,
                      "behaviour",
                      Outcome::fail,
                      "its `-### -c` job list differs from the one recorded before install "
                      "(driver mode, config file or resource dir changed)" });
    } else {
      ++same;
    }
  }
  if (!c.job_lists.empty() && same == c.job_lists.size())
    out.push_back({ c.path,
                    "behaviour",
                    Outcome::pass,
                    fmt::format("{} name(s) keep their `-###` job list", same) });
}

// The shim re-checks a stale identity snapshot by running the shimctl named
// in its config; if that shimctl is gone, compiles after any toolchain change
// run uncached.
void check_identity_helper(const util::Dir& prefix_dir,
                           const core::Manifest& m,
                           std::vector<Check>& out) {
  auto dirs = cache::shim_directories(m);
  if (dirs.empty())
    return;
  auto dir = prefix_dir.open_relative(dirs.front());
  auto config = dir ? dir->read_file(core::shim_config_file) : util::Result<std::string>("");
  if (!config)
    return; // check_files reports a missing config
  // The shim's own reader (shim/config.c): the helper it would run, read as it reads it.
  auto text = *config + '\0'; // the parser may write at text[len]
  auto parsed = std::make_unique<shimctl_config>();
  char problem[512];
  auto path = m.prefix + "/" + core::shim_config_path(dirs.front());
  if (shimctl_parse_config(
        parsed.get(), text.data(), config->size(), path.c_str(), problem, sizeof problem)) {
    out.push_back({ "toolchain",
                    "shim config",
                    Outcome::fail,
                    fmt::format("the shims cannot read their config ({}): every compile runs "
                                "uncached; run 'shimctl refresh {}' to rewrite it",
                                problem,
                                m.prefix) });
    return;
  }
  if (!parsed->identity_helper)
    return; // sccache: no snapshot guard
  std::string helper = parsed->identity_helper;
  auto ran = util::run({ helper, "--version" });
  if (ran && ran->ok())
    out.push_back({ "toolchain", "identity helper", Outcome::pass, helper });
  else
    out.push_back({ "toolchain",
                    "identity helper",
                    Outcome::fail,
                    fmt::format("the shim's identity helper {} does not run: after a toolchain "
                                "change compiles would run uncached; run 'shimctl refresh {}' with "
                                "the shimctl you use now",
                                helper,
                                m.prefix) });
}

} // namespace

util::Result<VerifyReport> verify(const core::Context& context,
                                  const util::Dir& prefix_dir,
                                  const core::Manifest& m,
                                  const VerifyOptions& options) {
  VerifyReport report;
  auto& out = report.checks;
  auto tool = util::run({ m.cache.path, "--version" });
  if (!tool || !tool->ok())
    out.push_back({ "cache",
                    m.cache.kind,
                    Outcome::fail,
                    fmt::format("{} does not run; compiles bypass the cache", m.cache.path) });
  else
    out.push_back({ "cache", m.cache.kind, Outcome::pass, m.cache.path });

  auto changed = changed_identity_inputs(m);
  if (!changed.empty()) {
    std::string list;
    for (std::size_t i = 0; i < changed.size() && i < 5; ++i)
      list += (i ? ", " : "") + changed[i];
    if (changed.size() > 5)
      list += fmt::format(" and {} more", changed.size() - 5);
    out.push_back({ "toolchain",
                    "identity",
                    Outcome::warn,
                    fmt::format("toolchain changed since install: {}; cache keys follow the new "
                                "contents; run 'shimctl refresh' to record them",
                                list) });
  } else {
    out.push_back({ "toolchain",
                    "identity",
                    Outcome::pass,
                    fmt::format("{} inputs match fingerprint {}",
                                m.fingerprint.inputs.size(),
                                m.fingerprint.sha256.substr(0, 16)) });
  }
  check_identity_helper(prefix_dir, m, out);
  auto events = read_events(prefix_dir);
  if (!events.empty())
    out.push_back({ "cache", "events", Outcome::warn, events });

  std::uint64_t done = 0;
  for (const auto& c : m.compilers) {
    check_files(prefix_dir, m, c, out);
    if (!options.compile)
      continue;
    context.meter({ "verifying", "compilers", done, m.compilers.size() });
    if (c.name_handling == core::NameHandling::argv0)
      check_job_lists(m, c, out);
    verify_compiles(context, m, c, options, out);
    context.meter({ "verifying", "compilers", ++done, m.compilers.size() });
  }
  if (options.compile)
    verify_remote(m, options, out);
  verify_store_health(m, out);
  return report;
}

util::Result<VerifyReport> verify(const core::Context& context,
                                  const std::string& prefix,
                                  const core::SessionOptions& session_options,
                                  const VerifyOptions& options) {
  auto read_only = session_options;
  read_only.read_only = true; // any user may check a prefix they use (it changes nothing there)
  TRY_ASSIGN(auto session, core::open_installed_session(context, prefix, read_only));
  return verify(context, session.dir, *session.manifest, options);
}

} // namespace shimctl::verify
