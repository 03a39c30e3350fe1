// `shimctl install PREFIX [OPTIONS]`: wrap the compilers, verify, write the manifest.
#include <algorithm>
#include <fmt/format.h>
#include <memory>
#include <shimctl/cache/tool.hpp>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/cli/progress.hpp>
#include <shimctl/cli/render.hpp>
#include <shimctl/commands/install.hpp>

namespace shimctl::cli {

namespace {

std::vector<std::string> cache_tool_names() {
  std::vector<std::string> names;
  for (auto name : cache::tool_names())
    names.emplace_back(name);
  return names;
}

struct InstallArgs {
  Common common;
  commands::InstallOptions options;
};

std::string action_name(commands::InstallResult::Action action) {
  using Action = commands::InstallResult::Action;
  switch (action) {
    case Action::installed:
      return "installed";
    case Action::unchanged:
      return "unchanged";
    case Action::readopted:
      return "readopted";
    case Action::reconfigured:
      return "reconfigured";
    case Action::planned:
      break;
  }
  return "planned";
}

void print_text(const commands::InstallResult& result) {
  using Action = commands::InstallResult::Action;
  const auto& manifest = result.manifest;
  for (const auto& note : result.notes)
    fmt::print("note: {}\n", note);
  switch (result.action) {
    case Action::planned:
      if (result.plan_changes_settings)
        fmt::print("dry run: would change in {}:\n", manifest.prefix);
      else
        fmt::print("dry run: would wrap {} compiler(s) in {}:\n",
                   manifest.compilers.size(),
                   manifest.prefix);
      for (const auto& line : result.plan)
        fmt::print("  {}\n", line);
      break;
    case Action::unchanged:
      fmt::print("{} is already installed; nothing changed\n", manifest.prefix);
      break;
    case Action::readopted:
      fmt::print("re-adopted upgraded compilers in {}; fingerprint {}\n",
                 manifest.prefix,
                 manifest.fingerprint.sha256.substr(0, 16));
      break;
    case Action::reconfigured:
      if (result.report)
        fmt::print("{}", verify_table(*result.report));
      for (const auto& line : result.plan)
        fmt::print("changed {}\n", line);
      fmt::print(
        "reconfigured: {} compiler(s) in {}\n", manifest.compilers.size(), manifest.prefix);
      break;
    case Action::installed:
      if (result.report)
        fmt::print("{}", verify_table(*result.report));
      fmt::print(
        "installed: {} compiler(s) in {} now go through {}; undo with 'shimctl rollback {}'\n",
        manifest.compilers.size(),
        manifest.prefix,
        manifest.cache.kind,
        manifest.prefix);
      break;
  }
}

int run_install(core::Context& context, const InstallArgs& args, const Warnings& warnings) {
  attach_progress(context, args.common.json);
  auto options = args.options;
  options.prefix = args.common.prefix;
  options.session = args.common.session();
  std::erase(options.compilers, ""); // --compilers "" means every compiler, as before
  auto result = commands::install(context, options);
  if (!result)
    return report_error(result.error());
  if (!args.common.json) {
    print_text(*result);
    return 0;
  }
  nlohmann::json j{ { "prefix", result->manifest.prefix },
                    { "action", action_name(result->action) },
                    { "plan", result->plan },
                    { "notes", result->notes },
                    { "fingerprint", result->manifest.fingerprint.sha256 } };
  if (result->report)
    j["verify"] = verify_json(*result->report);
  print_json(std::move(j), warnings);
  return 0;
}

} // namespace

void add_install_command(CLI::App& app, core::Context& context, Registry& registry) {
  auto args = std::make_shared<InstallArgs>();
  auto& o = args->options;
  auto* cmd =
    app.add_subcommand("install", "Wrap a toolchain's compilers with the cache, then verify");
  add_common(cmd, args->common, true);
  cmd
    ->add_option(
      "--compilers", o.compilers, "Only these compilers, comma-separated (e.g. hipcc,clang++)")
    ->delimiter(',')
    ->allow_extra_args(false); // one value per --compilers: the prefix is not a compiler
  cmd->add_option("--layout", o.layout, "Force a toolchain layout (rocm, therock, cuda)");
  cmd->add_option("--cache", o.cache_kind, "Cache tool: ccache (default) or sccache")
    ->check(CLI::IsMember(cache_tool_names()));
  cmd->add_option("--cache-tool", o.cache_tool, "Path of the cache tool (default: from PATH)");
  cmd->add_option("--cache-dir", o.cache_dir, "Cache directory the shim uses by default");
  cmd->add_option("--max-size", o.max_size, "Cache size limit (e.g. 20G)");
  cmd
    ->add_option("--base-dir",
                 o.base_dirs,
                 "Extra root of the location-free paths: a dependency tree (absolute path) that "
                 "sits elsewhere on other machines; repeatable, at most 4, in order")
    ->allow_extra_args(false); // one directory per --base-dir: the prefix is not one
  cmd->add_option("--remote",
                  o.remote,
                  "Remote storage URL (redis://[PASSWORD@]HOST:PORT, http://...); a password is "
                  "kept only in PREFIX/.shimctl/secrets (mode 0600, 0640 with --group)");
  cmd->add_flag("--remote-read-only", o.remote_read_only, "Read the remote cache, never write it");
  cmd->add_option(
    "--shared-cache",
    o.shared_cache,
    "Cache directory shared by the members of --group (made group-owned, setgid 2770)");
  cmd->add_option("--group", o.shared_group, "The group whose members share --shared-cache");
  cmd->add_flag(
    "--allow-world-writable",
    o.allow_world_writable,
    "Accept a world-writable --shared-cache (any local user could plant cache entries)");
  cmd->add_flag("--divert",
                o.divert,
                "For compilers a dpkg package owns: dpkg-divert them so package upgrades land "
                "on NAME.real, under the shim");
  cmd->add_flag("--dry-run", o.dry_run, "Print the plan; change nothing");
  cmd->add_flag("--keep-on-failure", o.keep_on_failure, "Keep the install if verification fails");
  cmd->add_flag("!--no-verify", o.verify, "Skip the verification compiles");
  cmd->add_option("--offload-arch",
                  o.verify_options.offload_arch,
                  "GPU target of the HIP test compile (default gfx90a)");
  cmd->add_option("--cuda-arch",
                  o.verify_options.cuda_arch,
                  "GPU target of the CUDA test compile (default sm_90)");
  registry.commands.push_back({ cmd, [&context, &registry, args] {
                                 return run_install(context, *args, registry.warnings);
                               } });
}

} // namespace shimctl::cli
