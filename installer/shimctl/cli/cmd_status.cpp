// `shimctl status [PREFIX]`: what is wrapped, the cache, hits and misses.
#include <fmt/format.h>
#include <memory>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/cli/progress.hpp>
#include <shimctl/cli/render.hpp>
#include <shimctl/commands/status.hpp>

namespace shimctl::cli {

void add_status_command(CLI::App& app, core::Context& context, Registry& registry) {
  auto common = std::make_shared<Common>();
  auto* cmd =
    app.add_subcommand("status", "Show what is wrapped, the cache and its hit/miss counts");
  add_common(cmd, *common, false);
  registry.commands.push_back(
    { cmd, [&context, &registry, common] {
       attach_progress(context, common->json);
       auto report = commands::status(context, common->prefix_or_default(), common->session());
       if (!report)
         return report_error(report.error());
       if (common->json)
         print_json(status_json(*report), registry.warnings);
       else
         fmt::print("{}", status_text(*report));
       // Not installed: the exit code verify, refresh and cache give.
       return report->installed ? 0 : static_cast<int>(util::ExitCode::not_installed);
     } });
}

} // namespace shimctl::cli
