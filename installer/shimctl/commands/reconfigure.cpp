#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h> // fmt::join (fmt >= 10)
#include <set>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/cache/remote_url.hpp>
#include <shimctl/cache/sccache_server.hpp>
#include <shimctl/commands/adopt.hpp>
#include <shimctl/commands/reconfigure.hpp>
#include <shimctl/commands/steps.hpp>
#include <shimctl/util/random.hpp>
#include <shimctl/util/text.hpp>
#include <shimctl/verify/verify.hpp>

namespace shimctl::commands {

using namespace shimctl::core;

using util::ExitCode;
using util::fail;

namespace {

std::string shown(const std::optional<std::string>& value) {
  return value ? *value : "none";
}

// "... needs the shims made anew: run 'shimctl rollback P', then install with OPTION".
auto needs_reinstall(const Manifest& m, std::string_view what, std::string_view option) {
  return fail(ExitCode::usage,
              "{} is installed with {}; to change it run 'shimctl rollback {}', then "
              "'shimctl install {} {}' (nothing changed)",
              m.prefix,
              what,
              m.prefix,
              m.prefix,
              option);
}

std::set<std::string> compiler_names(const Manifest& m) {
  std::set<std::string> names;
  for (const auto& c : m.compilers)
    names.insert(util::split_relative(c.path).second);
  return names;
}

} // namespace

namespace {

// The remote as installed, in full: its credential is in the secrets file (a manifest written
// before that file may hold it itself). Nullopt when unknown or none.
std::optional<std::string> installed_remote(const Manifest& m, const cache::SecretsFile& secrets) {
  if (!m.cache.remote_secret)
    return m.cache.remote;
  if (secrets.state != cache::SecretsFile::State::read)
    return std::nullopt;
  return cache::tool_of(m.cache).remote_url_of(m.cache, secrets.lines);
}

std::string remote_text(const CacheSettings& cache) {
  return shown(cache.remote ? std::optional(util::redact_credentials(*cache.remote))
                            : std::nullopt) +
         (cache.remote_read_only ? " (read-only)" : "");
}

// --remote, --remote-read-only, and a credential an older shimctl left in the manifest: R's
// remote settings, its secrets file steps and the line saying what changes.
util::Status remote_change(const InstallOptions& o,
                           const Manifest& m,
                           const cache::SecretsFile& secrets,
                           Reconfiguration& r) {
  std::optional<std::string> url; // the remote asked for, in full
  if (o.remote) {
    url = o.remote;
    r.cache.remote_read_only = o.remote_read_only || cache::names_read_only(*o.remote);
  } else if (o.remote_read_only && !m.cache.remote_read_only) {
    if (!m.cache.remote)
      return fail(ExitCode::usage,
                  "--remote-read-only: {} has no remote storage; add --remote URL "
                  "(nothing changed)",
                  m.prefix);
    url = installed_remote(m, secrets);
    if (!url)
      return fail(ExitCode::usage,
                  "--remote-read-only: cannot read the remote's credential in {} ({}); run as "
                  "the user who installed {}, or give --remote URL again (nothing changed)",
                  secrets.path,
                  secrets.reason.empty() ? "no remote in it" : secrets.reason,
                  m.prefix);
    r.cache.remote_read_only = true;
  } else if (!m.cache.remote_secret && m.cache.remote && util::has_credentials(*m.cache.remote)) {
    url = m.cache.remote; // into the secrets file, out of the manifest and the shim configs
  } else {
    return {};
  }
  auto full = cache::set_remote(r.cache, url);
  std::optional<std::vector<std::string>> lines;
  if (full)
    lines = cache::tool_of(r.cache).secret_environment(r.cache, *full);
  bool file_changes =
    lines ? secrets.state != cache::SecretsFile::State::read || secrets.lines != *lines
          : secrets.state != cache::SecretsFile::State::absent;
  if (!file_changes && remote_text(r.cache) == remote_text(m.cache) &&
      r.cache.remote_secret == m.cache.remote_secret)
    return {};
  if (file_changes && secrets.state == cache::SecretsFile::State::unreadable)
    return fail(ExitCode::usage,
                "cannot read {} ({}); run as the user who installed {} (nothing changed)",
                secrets.path,
                secrets.reason,
                m.prefix);
  std::string note;
  if (lines && !m.cache.remote_secret)
    note = fmt::format(" (credential in {})", cache::secrets_path(m.prefix));
  else if (lines && installed_remote(m, secrets) != full)
    note = " (new credential)";
  r.changes.push_back(
    fmt::format("remote: {} -> {}{}", remote_text(m.cache), remote_text(r.cache), note));
  if (!file_changes)
    return {};
  r.cache.secret_id.reset();
  if (lines) {
    TRY_ASSIGN(r.cache.secret_id, util::random_hex(secret_id_digits));
  }
  TRY_ASSIGN(r.secret, secret_step(r.cache, lines));
  std::optional<std::vector<std::string>> before;
  if (secrets.state == cache::SecretsFile::State::read)
    before = secrets.lines;
  TRY_ASSIGN(r.previous_secret, secret_step(m.cache, before));
  return {};
}

} // namespace

util::Result<Reconfiguration> requested_reconfiguration(const InstallOptions& o,
                                                        const Manifest& m,
                                                        const cache::SecretsFile& secrets) {
  if (o.cache_kind && *o.cache_kind != m.cache.kind)
    return needs_reinstall(m, "cache tool " + m.cache.kind, "--cache " + *o.cache_kind);
  if (o.cache_tool) {
    auto tool = util::real_path(*o.cache_tool);
    if (!tool || *tool != m.cache.path)
      return needs_reinstall(m, "cache tool " + m.cache.path, "--cache-tool " + *o.cache_tool);
  }
  if (o.layout && *o.layout != m.layout)
    return needs_reinstall(m, "layout " + m.layout, "--layout " + *o.layout);
  if (!o.compilers.empty() &&
      std::set<std::string>(o.compilers.begin(), o.compilers.end()) != compiler_names(m)) {
    auto names = compiler_names(m);
    return needs_reinstall(m,
                           fmt::format("the compilers {}", fmt::join(names, ",")),
                           fmt::format("--compilers {}", fmt::join(o.compilers, ",")));
  }
  if (o.shared_cache || o.shared_group) {
    if (!o.shared_cache || !o.shared_group || o.shared_group != m.cache.shared_group ||
        util::real_path(*o.shared_cache).value_or(*o.shared_cache) != m.cache.dir)
      return needs_reinstall(m,
                             m.cache.shared_group ? "shared cache " + shown(m.cache.dir) +
                                                      " (group " + *m.cache.shared_group + ")"
                                                  : "a private cache",
                             "--shared-cache DIR --group NAME");
  }

  Reconfiguration r;
  r.cache = m.cache;
  TRY_ASSIGN(auto dir, absolute_cache_dir(o.cache_dir));
  if (dir && dir != m.cache.dir) {
    if (m.cache.shared_group)
      return needs_reinstall(m,
                             "shared cache " + shown(m.cache.dir) + " (group " +
                               *m.cache.shared_group + ")",
                             "--cache-dir " + *dir);
    r.changes.push_back(fmt::format("cache dir: {} -> {}", shown(m.cache.dir), *dir));
    r.cache.dir = dir;
  }
  if (o.max_size && o.max_size != m.cache.max_size) {
    r.changes.push_back(fmt::format("max size: {} -> {}", shown(m.cache.max_size), *o.max_size));
    r.cache.max_size = o.max_size;
  }
  // --base-dir replaces the list; without it the installed one is kept, as --max-size is.
  TRY_ASSIGN(auto base_dirs, canonical_base_dirs(o.base_dirs));
  if (!base_dirs.empty() && base_dirs != m.cache.base_dirs) {
    r.changes.push_back(fmt::format("base dirs: {} -> {}",
                                    m.cache.base_dirs.empty()
                                      ? std::string("none")
                                      : fmt::format("{}", fmt::join(m.cache.base_dirs, ":")),
                                    fmt::join(base_dirs, ":")));
    r.cache.base_dirs = base_dirs;
  }
  TRY(remote_change(o, m, secrets, r));
  if (!r.changes.empty())
    TRY(cache::tool_of(r.cache).check_remote(r.cache));
  return r;
}

util::Status reconfigure(const Context& context,
                         Session& session,
                         const InstallOptions& options,
                         const Reconfiguration& change,
                         InstallResult& result) {
  Manifest previous = *session.manifest;
  for (const auto& line : change.changes)
    context.progress("changing the " + line);
  Manifest updated = previous;
  updated.cache = change.cache;
  TRY(rewrite_identity(context, session, {}, updated, change.secret));
  result.action = InstallResult::Action::reconfigured;
  result.manifest = updated;
  result.plan = change.changes;
  if (!options.verify)
    return {};
  context.progress("verifying with real compiles");
  TRY_ASSIGN(auto report, verify::verify(context, session.dir, updated, options.verify_options));
  result.report = report;
  if (report.ok())
    return {};
  auto reason = report.first_failure();
  if (options.keep_on_failure)
    return fail("verification failed: {} (kept the new settings: --keep-on-failure)", reason);
  Manifest restored = previous;
  restored.fingerprint = updated.fingerprint;
  if (auto back = rewrite_identity(context, session, {}, restored, change.previous_secret); !back)
    return fail("verification failed: {}; putting the previous settings back also failed: {}",
                reason,
                back.error().message);
  return fail("verification failed: {}; the previous cache settings are back", reason);
}

} // namespace shimctl::commands
