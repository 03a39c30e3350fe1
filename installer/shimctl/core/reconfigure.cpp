#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h> // fmt::join (fmt >= 10)
#include <set>
#include <shimctl/cache/sccache_server.hpp>
#include <shimctl/core/adopt.hpp>
#include <shimctl/core/reconfigure.hpp>
#include <shimctl/verify/verify.hpp>

namespace shimctl::core {

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

util::Result<Reconfiguration> requested_reconfiguration(const InstallOptions& o,
                                                        const Manifest& m) {
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

  Reconfiguration r{ m.cache, {} };
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
  if (o.remote && (o.remote != m.cache.remote || o.remote_read_only != m.cache.remote_read_only)) {
    r.changes.push_back(fmt::format("remote: {}{} -> {}{}",
                                    shown(m.cache.remote),
                                    m.cache.remote_read_only ? " (read-only)" : "",
                                    *o.remote,
                                    o.remote_read_only ? " (read-only)" : ""));
    r.cache.remote = o.remote;
    r.cache.remote_read_only = o.remote_read_only;
  } else if (!o.remote && o.remote_read_only && !m.cache.remote_read_only) {
    if (!m.cache.remote)
      return fail(ExitCode::usage,
                  "--remote-read-only: {} has no remote storage; add --remote URL "
                  "(nothing changed)",
                  m.prefix);
    r.changes.push_back(
      fmt::format("remote: {} -> {} (read-only)", *m.cache.remote, *m.cache.remote));
    r.cache.remote_read_only = true;
  }
  if (!r.changes.empty())
    TRY(cache::check_sccache_remote(r.cache));
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
  TRY(rewrite_identity(context, session, {}, updated));
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
  if (auto back = rewrite_identity(context, session, {}, restored); !back)
    return fail("verification failed: {}; putting the previous settings back also failed: {}",
                reason,
                back.error().message);
  return fail("verification failed: {}; the previous cache settings are back", reason);
}

} // namespace shimctl::core
