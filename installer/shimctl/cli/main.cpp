// shimctl: the command line. Parses options (CLI11), calls the library, prints
// results, and maps errors to exit codes. Nothing else lives here.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <shimctl/cli/commands.hpp>
#include <shimctl/cli/help.hpp>
#include <shimctl/cli/progress.hpp>
#include <shimctl/cli/render.hpp>
#include <shimctl/cli/version.hpp>
#include <shimctl/core/install.hpp>
#include <shimctl/core/installed.hpp>
#include <shimctl/core/rollback.hpp>
#include <shimctl/core/status.hpp>
#include <shimctl/identity/identity.hpp>
#include <shimctl/verify/verify.hpp>
#include <unistd.h>

using namespace shimctl;
using util::ExitCode;

namespace shimctl::cli {

int report_error(const util::Error& e) {
  fmt::print(stderr, "shimctl: error: {}\n", e.message);
  return static_cast<int>(e.code);
}

} // namespace shimctl::cli

namespace {

using cli::report_error;

struct Common {
  std::string prefix;
  bool json = false;
  double wait_seconds = -1;
  core::SessionOptions session() const {
    core::SessionOptions s;
    if (wait_seconds >= 0)
      s.wait = std::chrono::milliseconds(static_cast<long>(wait_seconds * 1000));
    return s;
  }
};

std::string default_prefix(const std::string& given) {
  return given.empty() ? "/opt/rocm" : given;
}

void add_common(CLI::App* cmd, Common& common, bool prefix_required) {
  auto* opt = cmd->add_option("prefix",
                              common.prefix,
                              prefix_required ? "Toolchain root, e.g. /opt/rocm or /usr/local/cuda"
                                              : "Toolchain root (default /opt/rocm)");
  if (prefix_required)
    opt->required();
  cmd->add_flag("--json", common.json, "Print machine-readable JSON on stdout");
  cmd->add_option(
    "--wait",
    common.wait_seconds,
    "Wait up to SECONDS for another shimctl working on the prefix (default: fail at once)");
}

// A prefix without shims is planned, then installed, under one locked
// session; an installed one is updated (re-adoption, cache settings).
util::Result<core::InstallResult> install_or_update(const core::Context& context,
                                                    const core::InstallOptions& options) {
  TRY_ASSIGN(auto session, core::open_install_session(context, options));
  if (session.manifest)
    return core::update_installed(context, session, options);
  auto plan = core::plan_install(context, session, options);
  if (!plan) {
    core::discard_created_state(session);
    return std::unexpected(plan.error());
  }
  if (options.dry_run)
    return core::planned_result(*plan);
  auto result = core::apply_install(context, session, *plan, options);
  if (!result)
    core::discard_created_state(session);
  return result;
}

int run_install(const core::Context& context,
                core::InstallOptions options,
                const Common& common,
                const std::string& compilers) {
  options.prefix = common.prefix;
  options.session = common.session();
  for (std::size_t start = 0; start < compilers.size();) {
    auto end = std::min(compilers.find(',', start), compilers.size());
    if (end > start)
      options.compilers.push_back(compilers.substr(start, end - start));
    start = end + 1;
  }
  auto result = install_or_update(context, options);
  if (!result)
    return report_error(result.error());
  using Action = core::InstallResult::Action;
  if (common.json) {
    nlohmann::json j{ { "prefix", result->manifest.prefix },
                      { "action",
                        result->action == Action::installed      ? "installed"
                        : result->action == Action::unchanged    ? "unchanged"
                        : result->action == Action::readopted    ? "readopted"
                        : result->action == Action::reconfigured ? "reconfigured"
                                                                 : "planned" },
                      { "plan", result->plan },
                      { "notes", result->notes },
                      { "fingerprint", result->manifest.fingerprint.sha256 } };
    if (result->report)
      j["verify"] = cli::verify_json(*result->report);
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  for (const auto& note : result->notes)
    fmt::print("note: {}\n", note);
  switch (result->action) {
    case Action::planned:
      if (result->plan_changes_settings)
        fmt::print("dry run: would change in {}:\n", result->manifest.prefix);
      else
        fmt::print("dry run: would wrap {} compiler(s) in {}:\n",
                   result->manifest.compilers.size(),
                   result->manifest.prefix);
      for (const auto& line : result->plan)
        fmt::print("  {}\n", line);
      break;
    case Action::unchanged:
      fmt::print("{} is already installed; nothing changed\n", result->manifest.prefix);
      break;
    case Action::readopted:
      fmt::print("re-adopted upgraded compilers in {}; fingerprint {}\n",
                 result->manifest.prefix,
                 result->manifest.fingerprint.sha256.substr(0, 16));
      break;
    case Action::reconfigured:
      if (result->report)
        fmt::print("{}", cli::verify_table(*result->report));
      for (const auto& line : result->plan)
        fmt::print("changed {}\n", line);
      fmt::print("reconfigured: {} compiler(s) in {}\n",
                 result->manifest.compilers.size(),
                 result->manifest.prefix);
      break;
    case Action::installed:
      if (result->report)
        fmt::print("{}", cli::verify_table(*result->report));
      fmt::print(
        "installed: {} compiler(s) in {} now go through {}; undo with 'shimctl rollback {}'\n",
        result->manifest.compilers.size(),
        result->manifest.prefix,
        result->manifest.cache.kind,
        result->manifest.prefix);
      break;
  }
  return 0;
}

int run_verify(const core::Context& context, const Common& common, core::VerifyOptions options) {
  auto session = core::open_session(context, default_prefix(common.prefix), common.session());
  if (!session)
    return report_error(session.error());
  if (!session->manifest)
    return report_error({ fmt::format("{} is not installed; run 'shimctl install {}' first",
                                      session->prefix,
                                      session->prefix),
                          ExitCode::not_installed });
  auto report = core::verify(context, session->dir, *session->manifest, options);
  if (!report)
    return report_error(report.error());
  if (common.json)
    fmt::print("{}\n", cli::verify_json(*report).dump(2));
  else
    fmt::print("{}", cli::verify_table(*report));
  return report->ok() ? 0 : static_cast<int>(ExitCode::failure);
}

int run_rollback(const core::Context& context,
                 const Common& common,
                 bool force,
                 double busy_wait_seconds) {
  core::RollbackOptions options{ default_prefix(common.prefix), force, common.session(), {} };
  options.busy.limit = std::chrono::milliseconds(static_cast<long>(busy_wait_seconds * 1000));
  options.busy.notice = [](const std::string& line) { fmt::print(stderr, "shimctl: {}\n", line); };
  auto result = core::rollback(context, options);
  if (!result)
    return report_error(result.error());
  if (common.json) {
    fmt::print("{}\n",
               nlohmann::json{ { "was_installed", result->was_installed },
                               { "restored", result->restored },
                               { "kept", result->kept } }
                 .dump(2));
    return 0;
  }
  if (!result->was_installed) {
    fmt::print("{}: not installed; nothing to roll back\n", options.prefix);
    return 0;
  }
  for (const auto& k : result->kept)
    fmt::print("kept: {}\n", k);
  fmt::print("rolled back: {} original(s) restored byte-identical\n", result->restored.size());
  return 0;
}

int run_status(const core::Context& context, const Common& common) {
  auto report = core::status(context, default_prefix(common.prefix), common.session());
  if (!report)
    return report_error(report.error());
  if (common.json)
    fmt::print("{}\n", cli::status_json(*report).dump(2));
  else
    fmt::print("{}", cli::status_text(*report));
  return 0;
}

int run_fingerprint(const core::Context& context, const Common& common, bool key_only) {
  auto id = core::current_identity(context, default_prefix(common.prefix), common.session());
  if (!id)
    return report_error(id.error());
  if (key_only) {
    fmt::print("{}\n", id->fingerprint.cache_key(id->layout));
    return 0;
  }
  if (common.json) {
    fmt::print("{}\n", cli::fingerprint_json(id->fingerprint, id->layout).dump(2));
    return 0;
  }
  fmt::print("{}  {}\n", id->fingerprint.sha256, id->layout);
  for (const auto& in : id->fingerprint.inputs)
    fmt::print("  {}  {:>10}  {}\n", in.sha256.substr(0, 16), in.size, in.path);
  return 0;
}

int run_refresh(const core::Context& context, const Common& common) {
  auto id = core::refresh(context, default_prefix(common.prefix), common.session());
  if (!id)
    return report_error(id.error());
  fmt::print("refreshed: fingerprint {} ({} inputs)\n",
             id->fingerprint.sha256.substr(0, 16),
             id->fingerprint.inputs.size());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  auto context = core::locate_context();
  CLI::App app{ "shimctl: put a compiler cache behind a toolchain's own compiler paths, safely",
                "shimctl" };
  app.require_subcommand(1);
  app.set_version_flag(
    "--version",
    [&] { return cli::version_text(context); },
    "Print shimctl's version, the shim's and the cache tool's, then exit");

  Common common;
  core::InstallOptions install_options;
  std::string compilers;
  auto* install =
    app.add_subcommand("install", "Wrap a toolchain's compilers with the cache, then verify");
  add_common(install, common, true);
  install->add_option(
    "--compilers", compilers, "Only these compilers, comma-separated (e.g. hipcc,clang++)");
  install->add_option(
    "--layout", install_options.layout, "Force a toolchain layout (rocm, therock, cuda)");
  install
    ->add_option("--cache", install_options.cache_kind, "Cache tool: ccache (default) or sccache")
    ->check(CLI::IsMember({ "ccache", "sccache" }));
  install->add_option(
    "--cache-tool", install_options.cache_tool, "Path of the cache tool (default: from PATH)");
  install->add_option(
    "--cache-dir", install_options.cache_dir, "Cache directory the shim uses by default");
  install->add_option("--max-size", install_options.max_size, "Cache size limit (e.g. 20G)");
  install->add_option(
    "--remote", install_options.remote, "Remote storage URL (redis://HOST:PORT, http://...)");
  install->add_flag("--remote-read-only",
                    install_options.remote_read_only,
                    "Read the remote cache, never write it");
  install->add_option(
    "--shared-cache",
    install_options.shared_cache,
    "Cache directory shared by the members of --group (made group-owned, setgid 2770)");
  install->add_option(
    "--group", install_options.shared_group, "The group whose members share --shared-cache");
  install->add_flag(
    "--allow-world-writable",
    install_options.allow_world_writable,
    "Accept a world-writable --shared-cache (any local user could plant cache entries)");
  install->add_flag("--divert",
                    install_options.divert,
                    "For compilers a dpkg package owns: dpkg-divert them so package upgrades land "
                    "on NAME.real, under the shim");
  install->add_flag("--dry-run", install_options.dry_run, "Print the plan; change nothing");
  install->add_flag(
    "--keep-on-failure", install_options.keep_on_failure, "Keep the install if verification fails");
  install->add_flag("!--no-verify", install_options.verify, "Skip the verification compiles");
  install->add_option("--offload-arch",
                      install_options.verify_options.offload_arch,
                      "GPU target of the HIP test compile (default gfx90a)");
  install->add_option("--cuda-arch",
                      install_options.verify_options.cuda_arch,
                      "GPU target of the CUDA test compile (default sm_90)");

  core::VerifyOptions verify_options;
  auto* verify =
    app.add_subcommand("verify", "Check the shims and compile through them: the repeat must hit");
  add_common(verify, common, false);
  verify->add_option("--offload-arch",
                     verify_options.offload_arch,
                     "GPU target of the HIP test compile (default gfx90a)");
  verify->add_option(
    "--cuda-arch", verify_options.cuda_arch, "GPU target of the CUDA test compile (default sm_90)");

  bool force = false;
  auto* rollback =
    app.add_subcommand("rollback", "Put every original back byte-identical and remove the shims");
  add_common(rollback, common, false);
  rollback->add_flag("--force", force, "Restore originals even if they changed since install");
  double busy_wait = 120;
  rollback
    ->add_option("--busy-wait",
                 busy_wait,
                 "Wait up to SECONDS for compiles still running an original's .real before "
                 "removing it (default 120)")
    ->check(CLI::NonNegativeNumber);

  auto* status =
    app.add_subcommand("status", "Show what is wrapped, the cache and its hit/miss counts");
  add_common(status, common, false);

  auto* refresh =
    app.add_subcommand("refresh", "Record the toolchain's current identity after an update");
  add_common(refresh, common, false);

  auto* fingerprint =
    app.add_subcommand("fingerprint", "Print the toolchain fingerprint and its inputs");
  add_common(fingerprint, common, false);

  auto* cache_key =
    app.add_subcommand("cache-key", "Print a short key of the toolchain identity for CI caches");
  add_common(cache_key, common, false);

  cli::Registry registry;
  cli::add_cache_commands(app, context, registry);
  cli::add_build_commands(app, context, registry);
  cli::add_identity_commands(app, registry);
  cli::add_help(app, context, registry); // last: footers and metavars for every command

  // CLI11 reports an unknown first word as "A subcommand is required": name it instead.
  if (argc > 1 && argv[1][0] != '-') {
    try {
      (void)app.get_subcommand(argv[1]);
    } catch (const CLI::OptionNotFound&) {
      fmt::print(stderr, "shimctl: error: unknown command '{}'; see 'shimctl --help'\n", argv[1]);
      return static_cast<int>(ExitCode::usage);
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0)
      return app.exit(e);
    fmt::print(stderr, "shimctl: error: {}; see 'shimctl --help'\n", e.what());
    return static_cast<int>(ExitCode::usage);
  }
  cli::attach_progress(context, common.json); // progress lines; a progress bar on a terminal

  try {
    if (*install)
      return run_install(context, install_options, common, compilers);
    if (*verify)
      return run_verify(context, common, verify_options);
    if (*rollback)
      return run_rollback(context, common, force, busy_wait);
    if (*status)
      return run_status(context, common);
    if (*refresh)
      return run_refresh(context, common);
    if (*fingerprint)
      return run_fingerprint(context, common, false);
    if (*cache_key)
      return run_fingerprint(context, common, true);
    for (const auto& [command, runner] : registry.commands)
      if (command->parsed())
        return runner();
  } catch (const std::exception& e) {
    fmt::print(stderr, "shimctl: error: internal error: {}\n", e.what());
    return static_cast<int>(ExitCode::failure);
  }
  return 0;
}
