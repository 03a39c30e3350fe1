#include <algorithm>
#include <fmt/format.h>
#include <shimctl/build/build_needs.hpp>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/cache/remote_url.hpp>
#include <shimctl/cache/sccache_server.hpp>
#include <shimctl/cache/secrets.hpp>
#include <shimctl/cache/shared_cache.hpp>
#include <shimctl/cache/shim_config.hpp>
#include <shimctl/commands/install.hpp>
#include <shimctl/commands/rollback.hpp>
#include <shimctl/commands/steps.hpp>
#include <shimctl/commands/update_installed.hpp>
#include <shimctl/core/discovery.hpp>
#include <shimctl/core/divert.hpp>
#include <shimctl/core/test_hooks.hpp>
#include <shimctl/identity/fingerprint.hpp>
#include <shimctl/identity/identity_snapshot.hpp>
#include <shimctl/identity/probe.hpp>
#include <shimctl/records/cache_fullness.hpp>
#include <shimctl/util/random.hpp>
#include <shimctl/util/sha256.hpp>
#include <shimctl/verify/verify.hpp>

namespace shimctl::commands {

using namespace shimctl::core;

using util::ExitCode;
using util::fail;

namespace {

util::Status refuse_foreign_reals(const util::Dir& prefix_dir, const Toolchain& toolchain) {
  for (const auto& target : toolchain.targets) {
    TRY_ASSIGN(auto dir, prefix_dir.open_relative(target.dir()));
    TRY_ASSIGN(auto real, dir.stat(target.real_name()));
    if (real)
      return fail(ExitCode::usage,
                  "{} already exists and shimctl did not create it (no manifest); move it away "
                  "or restore the original by hand, then install again",
                  dir.path_of(target.real_name()));
  }
  return {};
}

// The fingerprint's inputs: the layout's patterns and what the compilers'
// job lists show. A wrapped hipcc whose job list links no device library is
// refused: the cache key could not follow the bitcode, and a changed device
// library would be served stale objects.
util::Result<std::vector<std::string>> planned_identity_files(const Context& context,
                                                              const Toolchain& toolchain) {
  std::vector<std::string> wrapped;
  for (const auto& t : toolchain.targets)
    wrapped.push_back(t.path);
  context.progress("probing the compilers' job lists for identity inputs");
  TRY_ASSIGN(auto found, identity::toolchain_files(toolchain.prefix, toolchain.layout, wrapped));
  if (auto missing = identity::missing_device_libraries(toolchain.prefix, found.reported, wrapped);
      !missing.empty())
    return fail(ExitCode::usage, "{}", missing);
  return found.files;
}

util::Result<Manifest> plan_manifest(const Context& context,
                                     const util::Dir& prefix_dir,
                                     const Toolchain& toolchain,
                                     const std::vector<std::string>& files,
                                     const CacheSettings& cache,
                                     const std::string& shim_bytes) {
  Manifest m;
  m.shimctl_version = context.version;
  m.created = utc_now_iso8601();
  m.prefix = toolchain.prefix;
  m.layout = toolchain.layout.name;
  m.cache = cache;
  m.shim_sha256 = util::sha256_hex(shim_bytes);
  m.shim_size = shim_bytes.size();
  TRY_ASSIGN(
    m.fingerprint,
    identity::fingerprint_files(context, toolchain.prefix, files, true, identity::Announce::yes));
  for (const auto& t : toolchain.targets) {
    WrappedCompiler c;
    c.path = t.path;
    c.real = t.real_path();
    c.family = t.spec.family;
    c.name_handling = t.spec.name_handling;
    c.verify = t.spec.verify;
    TRY_ASSIGN(c.original, record_original(prefix_dir, t.path));
    c.aliases = t.aliases;
    if (c.name_handling == NameHandling::argv0) {
      TRY_ASSIGN(c.job_lists, identity::record_job_lists(toolchain.prefix, t));
    }
    m.compilers.push_back(std::move(c));
  }
  for (const auto& dir : cache::shim_directories(m))
    m.created_files.push_back(shim_config_path(dir));
  return m;
}

util::Result<cache::SharedCache> shared_cache_settings(const InstallOptions& options) {
  if (!options.shared_cache || !options.shared_group)
    return fail(ExitCode::usage,
                "--shared-cache DIR and --group NAME go together: the group "
                "whose members share the cache");
  if (options.cache_dir)
    return fail(ExitCode::usage,
                "--shared-cache and --cache-dir both name the cache directory; "
                "give one");
  const auto* tool =
    options.cache_kind ? cache::tool_named(*options.cache_kind) : &cache::default_tool();
  if (!tool || !tool->group_shared_cache())
    return fail(ExitCode::usage,
                "--shared-cache works with ccache only (it sets ccache's umask "
                "for the group)");
  return cache::prepare_shared_cache({ *options.shared_cache,
                                       *options.shared_group,
                                       options.allow_world_writable,
                                       !options.dry_run });
}

// A --max-size below what one build needs of the cache dir (`shimctl measure` kept it): the
// build's entries would evict each other before the next build could hit them.
void warn_below_build_need(const Context& context, const core::CacheSettings& cache) {
  if (!cache.max_size)
    return;
  auto max = records::parse_size(*cache.max_size);
  const auto& tool = cache::tool_of(cache);
  std::string dir = tool.cache_location(cache, {});
  auto need = dir.starts_with('/') ? build::kept_build_need(dir) : std::nullopt;
  if (!max || *max == 0 || !need) // 0: no limit
    return;
  auto holding = tool.limit_holding(need->bytes, need->files);
  if (*max >= holding)
    return;
  context.warn(fmt::format("--max-size {} cannot hold one build of {}: it needs {} in {} entries "
                           "('shimctl measure' of a build), and {} keeps them all under a limit "
                           "of {} or more; below that the build evicts its own entries: give "
                           "--max-size {}",
                           *cache.max_size,
                           dir,
                           util::size_text(need->bytes),
                           need->files,
                           tool.name(),
                           util::size_text(holding),
                           fmt::format("{}M", (holding + 999'999) / 1'000'000)));
}

} // namespace

util::Result<Session> open_install_session(const Context& context, const InstallOptions& options) {
  return open_session(context, options.prefix, { options.session.wait, !options.dry_run });
}

void discard_created_state(const Session& session) {
  if (session.state_created && !session.manifest)
    remove_state_dir(session.dir);
}

util::Result<InstallPlan> plan_install(const Context& context,
                                       Session& session,
                                       const InstallOptions& options) {
  TRY_ASSIGN(auto layouts, load_layouts(context.layouts_dir));
  DiscoveryOptions discovery{ options.layout, options.compilers };
  TRY_ASSIGN(auto toolchain, discover(session.prefix, layouts, discovery));
  InstallPlan plan;
  plan.notes = toolchain.notes;
  TRY(refuse_foreign_reals(session.dir, toolchain));
  TRY_ASSIGN(auto files, planned_identity_files(context, toolchain));
  TRY_ASSIGN(
    auto cache,
    cache::find_cache_tool(options.cache_kind.value_or(std::string(cache::default_tool().name())),
                           options.cache_tool));
  TRY_ASSIGN(cache.dir, absolute_cache_dir(options.cache_dir));
  cache.max_size = options.max_size;
  warn_below_build_need(context, cache);
  TRY_ASSIGN(cache.base_dirs, canonical_base_dirs(options.base_dirs));
  // From here on the remote is redacted; its credential, if any, only in REMOTE_URL.
  auto remote_url = cache::set_remote(cache, options.remote);
  cache.remote_read_only =
    options.remote_read_only || (options.remote && cache::names_read_only(*options.remote));
  TRY(cache::tool_of(cache).check_remote(cache));
  if (options.shared_cache || options.shared_group) {
    TRY_ASSIGN(auto shared, shared_cache_settings(options));
    cache.dir = shared.dir.empty() ? *options.shared_cache : shared.dir;
    cache.shared_group = options.shared_group;
    if (!shared.action.empty())
      context.progress(shared.action);
  }
  std::optional<Step> secret;
  if (remote_url) {
    TRY_ASSIGN(cache.secret_id, util::random_hex(secret_id_digits));
    TRY_ASSIGN(secret,
               secret_step(cache, cache::tool_of(cache).secret_environment(cache, *remote_url)));
  }
  if (session.shim_bytes.empty()) { // a dry run on a prefix without state: not read yet
    TRY_ASSIGN(session.shim_bytes, read_shim_binary(context));
  }
  TRY_ASSIGN(plan.manifest,
             plan_manifest(context, session.dir, toolchain, files, cache, session.shim_bytes));
  TRY(plan_diversions(plan.manifest, options.divert, plan.notes));
  plan.journal = {
    "install", Recovery::undo, plan.manifest.shim_sha256, install_steps(plan.manifest, secret)
  };
  test_hooks::after_plan();
  return plan;
}

InstallResult planned_result(const InstallPlan& plan) {
  InstallResult result;
  result.action = InstallResult::Action::planned;
  result.manifest = plan.manifest;
  result.notes = plan.notes;
  for (const auto& step : plan.journal.steps)
    result.plan.push_back(step.describe());
  return result;
}

util::Result<InstallResult> apply_install(const Context& context,
                                          Session& session,
                                          const InstallPlan& plan,
                                          const InstallOptions& options) {
  InstallResult result = planned_result(plan);
  Transaction transaction(session.dir, session.shim_bytes);
  TRY(transaction.run(plan.journal, step_progress(context, plan.journal.steps.size())));
  result.action = InstallResult::Action::installed;
  session.manifest = result.manifest;
  identity::record_identity_snapshot(context, session.dir, result.manifest);
  if (!options.verify)
    return result;

  context.progress("verifying with real compiles");
  TRY_ASSIGN(auto report,
             verify::verify(context, session.dir, result.manifest, options.verify_options));
  result.report = report;
  if (report.ok())
    return result;
  auto reason = report.first_failure();
  if (options.keep_on_failure)
    return fail("verification failed: {} (kept the installation: --keep-on-failure)", reason);
  auto undone = rollback_session(context, session, {});
  if (!undone)
    return fail("verification failed: {}; the automatic rollback also failed: {}",
                reason,
                undone.error().message);
  return fail("verification failed: {}; rolled back, the toolchain is as it was", reason);
}

// A prefix without shims is planned, then installed, under one locked session;
// an installed one is updated (re-adoption, cache settings in place).
util::Result<InstallResult> install(const Context& context, const InstallOptions& options) {
  TRY(check_install_options(context, options)); // bad input: exit 2 before any work
  TRY_ASSIGN(auto session, open_install_session(context, options));
  if (session.manifest)
    return update_installed(context, session, options);
  auto plan = plan_install(context, session, options);
  if (!plan) {
    discard_created_state(session);
    return std::unexpected(plan.error());
  }
  if (options.dry_run)
    return planned_result(*plan);
  auto result = apply_install(context, session, *plan, options);
  if (!result)
    discard_created_state(session);
  return result;
}

} // namespace shimctl::commands
