// `shimctl refresh [PREFIX]`: record the toolchain's current identity after an update.
#include <fmt/format.h>
#include <memory>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/cli/progress.hpp>
#include <shimctl/commands/refresh.hpp>

namespace shimctl::cli {

void add_refresh_command(CLI::App& app, core::Context& context, Registry& registry) {
  auto common = std::make_shared<Common>();
  auto* cmd =
    app.add_subcommand("refresh", "Record the toolchain's current identity after an update");
  add_common(cmd, *common, false);
  registry.commands.push_back({ cmd, [&context, &registry, common] {
                                 attach_progress(context, common->json);
                                 auto id = commands::refresh(
                                   context, common->prefix_or_default(), common->session());
                                 if (!id)
                                   return report_error(id.error());
                                 if (common->json) {
                                   print_json({ { "fingerprint", id->fingerprint.sha256 },
                                                { "inputs", id->fingerprint.inputs.size() } },
                                              registry.warnings);
                                   return 0;
                                 }
                                 fmt::print("refreshed: fingerprint {} ({} inputs)\n",
                                            id->fingerprint.sha256.substr(0, 16),
                                            id->fingerprint.inputs.size());
                                 return 0;
                               } });
}

} // namespace shimctl::cli
