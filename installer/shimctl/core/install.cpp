#include <algorithm>
#include <filesystem>
#include <shimctl/core/adopt.hpp>
#include <shimctl/core/cache_backend.hpp>
#include <shimctl/core/discovery.hpp>
#include <shimctl/core/divert.hpp>
#include <shimctl/core/fingerprint.hpp>
#include <shimctl/core/identity_snapshot.hpp>
#include <shimctl/core/install.hpp>
#include <shimctl/core/probe.hpp>
#include <shimctl/core/reconfigure.hpp>
#include <shimctl/core/rollback.hpp>
#include <shimctl/core/sccache_server.hpp>
#include <shimctl/core/shared_cache.hpp>
#include <shimctl/core/shim_config.hpp>
#include <shimctl/util/sha256.hpp>

namespace shimctl::core {

using util::ExitCode;
using util::fail;

std::string shim_config_path(const std::string& dir) {
  return dir.empty() ? std::string(shim_config_file) : dir + "/" + std::string(shim_config_file);
}

Step shim_step(const WrappedCompiler& c) {
  auto shim = Step::of(StepKind::place_shim, c.path);
  shim.mode = c.original.mode;
  shim.uid = c.original.uid;
  shim.gid = c.original.gid;
  return shim;
}

Step manifest_step(const Manifest& m) {
  auto step = Step::of(StepKind::write_file, fmt::format("{}/{}", state_dir_name, manifest_file));
  step.content = to_json(m);
  return step;
}

StepObserver step_progress(const Context& context, std::size_t total) {
  return [&context, total](std::size_t i, const Step&, const std::string& what) {
    context.progress(fmt::format("[{}/{}] {}", i + 1, total, what));
  };
}

std::vector<Step> install_steps(const Manifest& m) {
  std::vector<Step> steps;
  for (const auto& c : m.compilers)
    steps.push_back(Step::of(StepKind::link_real, c.path));
  // After link_real (the .real exists), before place_shim (dpkg must not
  // see a shim at a packaged path without the diversion).
  for (const auto& c : m.compilers)
    if (c.diverted_by)
      steps.push_back(Step::of(StepKind::divert, c.path));
  auto env = shim_environment(m.cache, m.fingerprint.sha256, identity_paths(m));
  for (const auto& dir : shim_directories(m)) {
    auto conf = Step::of(StepKind::write_file, shim_config_path(dir));
    conf.content = render_shim_config(m, dir, env);
    steps.push_back(conf);
  }
  for (const auto& c : m.compilers)
    steps.push_back(shim_step(c));
  steps.push_back(manifest_step(m));
  return steps;
}

util::Result<FileRecord> record_original(const util::Dir& prefix_dir, const std::string& path) {
  auto [dir_path, name] = util::split_relative(path);
  TRY_ASSIGN(auto dir, prefix_dir.open_relative(dir_path));
  TRY_ASSIGN(auto st, dir.stat(name));
  if (!st || st->kind != util::FileKind::file)
    return fail("{} is not a regular file", dir.path_of(name));
  FileRecord r;
  TRY_ASSIGN(r.sha256, dir.sha256(name));
  r.size = st->size;
  r.mode = st->mode;
  r.uid = st->uid;
  r.gid = st->gid;
  return r;
}

util::Result<std::optional<std::string>> absolute_cache_dir(const std::optional<std::string>& dir) {
  if (!dir)
    return std::nullopt;
  if (dir->empty())
    return fail(ExitCode::usage, "--cache-dir is empty; name a directory");
  std::error_code ec;
  auto absolute = std::filesystem::absolute(*dir, ec);
  if (ec)
    return fail(ExitCode::usage, "--cache-dir {}: {}", *dir, ec.message());
  auto text = absolute.lexically_normal().string();
  if (text.size() > 1 && text.ends_with('/'))
    text.pop_back();
  return text;
}

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
  TRY_ASSIGN(auto found, toolchain_files(toolchain.prefix, toolchain.layout, wrapped));
  if (auto missing = missing_device_libraries(toolchain.prefix, found.reported, wrapped);
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
  context.progress(fmt::format("fingerprinting {} toolchain files", files.size()));
  TRY_ASSIGN(m.fingerprint,
             compute_fingerprint(toolchain.prefix, files, true, fingerprint_meter(context)));
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
      TRY_ASSIGN(c.job_lists, record_job_lists(toolchain.prefix, t));
    }
    m.compilers.push_back(std::move(c));
  }
  for (const auto& dir : shim_directories(m))
    m.created_files.push_back(dir.empty() ? std::string(shim_config_file)
                                          : dir + "/" + std::string(shim_config_file));
  return m;
}

util::Result<SharedCache> shared_cache_settings(const InstallOptions& options) {
  if (!options.shared_cache || !options.shared_group)
    return fail(ExitCode::usage,
                "--shared-cache DIR and --group NAME go together: the group "
                "whose members share the cache");
  if (options.cache_dir)
    return fail(ExitCode::usage,
                "--shared-cache and --cache-dir both name the cache directory; "
                "give one");
  if (options.cache_kind.value_or("ccache") != "ccache")
    return fail(ExitCode::usage,
                "--shared-cache works with ccache only (it sets ccache's umask "
                "for the group)");
  return prepare_shared_cache({ *options.shared_cache,
                                *options.shared_group,
                                options.allow_world_writable,
                                !options.dry_run });
}

} // namespace

util::Result<InstallResult> install(const Context& context, const InstallOptions& options) {
  TRY_ASSIGN(auto layouts, load_layouts(context.layouts_dir));
  TRY_ASSIGN(auto existing, open_session(context, options.prefix, { options.session.wait, false }));
  InstallResult result;
  if (existing.manifest) {
    result.action = InstallResult::Action::unchanged;
    result.manifest = *existing.manifest;
    TRY(readopt_upgraded(context, existing, result));
    TRY_ASSIGN(auto change, requested_reconfiguration(options, result.manifest));
    if (!change.changes.empty() && options.dry_run) {
      result.action = InstallResult::Action::planned;
      result.plan = change.changes;
      result.plan_changes_settings = true;
      return result;
    }
    if (!change.changes.empty())
      TRY(reconfigure(context, existing, options, change, result));
    bool diverted = std::any_of(result.manifest.compilers.begin(),
                                result.manifest.compilers.end(),
                                [](const WrappedCompiler& c) { return c.diverted_by.has_value(); });
    if (options.divert && !diverted)
      result.notes.push_back("installed without --divert: run 'shimctl rollback', then "
                             "'shimctl install --divert' to add the dpkg diversions");
    return result;
  }

  DiscoveryOptions discovery{ options.layout, options.compilers };
  TRY_ASSIGN(auto toolchain, discover(existing.prefix, layouts, discovery));
  result.notes = toolchain.notes;
  TRY(refuse_foreign_reals(existing.dir, toolchain));
  TRY_ASSIGN(auto files, planned_identity_files(context, toolchain));
  TRY_ASSIGN(auto cache,
             find_cache_tool(options.cache_kind.value_or("ccache"), options.cache_tool));
  TRY_ASSIGN(cache.dir, absolute_cache_dir(options.cache_dir));
  cache.max_size = options.max_size;
  cache.remote = options.remote;
  cache.remote_read_only = options.remote_read_only;
  TRY(check_sccache_remote(cache));
  if (options.shared_cache || options.shared_group) {
    TRY_ASSIGN(auto shared, shared_cache_settings(options));
    cache.dir = shared.dir.empty() ? *options.shared_cache : shared.dir;
    cache.shared_group = options.shared_group;
    if (!shared.action.empty())
      context.progress(shared.action);
  }
  TRY_ASSIGN(auto shim_bytes, read_shim_binary(context));
  TRY_ASSIGN(result.manifest,
             plan_manifest(context, existing.dir, toolchain, files, cache, shim_bytes));
  TRY(plan_diversions(result.manifest, options.divert, result.notes));
  Journal journal{
    "install", Recovery::undo, result.manifest.shim_sha256, install_steps(result.manifest)
  };
  for (const auto& step : journal.steps)
    result.plan.push_back(step.describe());
  if (options.dry_run) {
    result.action = InstallResult::Action::planned;
    return result;
  }

  bool had_state = existing.lock.has_value();
  existing.lock.reset();
  TRY_ASSIGN(auto session, open_session(context, options.prefix, { options.session.wait, true }));
  if (session.manifest) {
    // Another shimctl installed while we planned without the lock.
    result.action = InstallResult::Action::unchanged;
    result.manifest = *session.manifest;
    return result;
  }
  Transaction transaction(session.dir, session.shim_bytes);
  auto done = transaction.run(journal, step_progress(context, journal.steps.size()));
  if (!done) {
    if (!had_state)
      remove_state_dir(session.dir);
    return std::unexpected(done.error());
  }
  result.action = InstallResult::Action::installed;
  session.manifest = result.manifest;
  record_identity_snapshot(context, session.dir, result.manifest);
  if (!options.verify)
    return result;

  context.progress("verifying with real compiles");
  TRY_ASSIGN(auto report, verify(context, session.dir, result.manifest, options.verify_options));
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
  if (!had_state)
    remove_state_dir(session.dir);
  return fail("verification failed: {}; rolled back, the toolchain is as it was", reason);
}

} // namespace shimctl::core
