// `shimctl rollback [PREFIX]`: every original back byte-identical, the shims removed.
#include <fmt/format.h>
#include <memory>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/cli/progress.hpp>
#include <shimctl/commands/rollback.hpp>

namespace shimctl::cli {

namespace {

struct RollbackArgs {
  Common common;
  bool force = false;
  double busy_wait_seconds = 120;
};

int run_rollback(core::Context& context, const RollbackArgs& args, const Warnings& warnings) {
  attach_progress(context, args.common.json);
  commands::RollbackOptions options{
    args.common.prefix_or_default(), args.force, args.common.session(), {}
  };
  options.busy.limit = std::chrono::milliseconds(static_cast<long>(args.busy_wait_seconds * 1000));
  options.busy.notice = [](const std::string& line) { fmt::print(stderr, "shimctl: {}\n", line); };
  auto result = commands::rollback(context, options);
  if (!result)
    return report_error(result.error());
  if (args.common.json) {
    print_json({ { "was_installed", result->was_installed },
                 { "restored", result->restored },
                 { "kept", result->kept },
                 { "sccache_servers_stopped", result->servers_stopped } },
               warnings);
    return 0;
  }
  if (!result->was_installed) {
    fmt::print("{}: not installed; nothing to roll back\n", options.prefix);
    return 0;
  }
  for (const auto& k : result->kept)
    fmt::print("kept: {}\n", k);
  if (result->servers_stopped)
    fmt::print("stopped {} sccache server(s) the shims had started\n", result->servers_stopped);
  fmt::print("rolled back: {} original(s) restored byte-identical\n", result->restored.size());
  return 0;
}

} // namespace

void add_rollback_command(CLI::App& app, core::Context& context, Registry& registry) {
  auto args = std::make_shared<RollbackArgs>();
  auto* cmd =
    app.add_subcommand("rollback", "Put every original back byte-identical and remove the shims");
  add_common(cmd, args->common, false);
  cmd->add_flag("--force", args->force, "Restore originals even if they changed since install");
  cmd
    ->add_option("--busy-wait",
                 args->busy_wait_seconds,
                 "Wait up to SECONDS for compiles still running an original's .real before "
                 "removing it (default 120)")
    ->check(CLI::NonNegativeNumber);
  registry.commands.push_back({ cmd, [&context, &registry, args] {
                                 return run_rollback(context, *args, registry.warnings);
                               } });
}

} // namespace shimctl::cli
