// `shimctl verify [PREFIX]`: check the installation and compile through the shims.
#include <fmt/format.h>
#include <memory>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/cli/progress.hpp>
#include <shimctl/cli/render.hpp>
#include <shimctl/verify/verify.hpp>

namespace shimctl::cli {

namespace {

struct VerifyArgs {
  Common common;
  verify::VerifyOptions options;
};

int run_verify(core::Context& context, const VerifyArgs& args, const Warnings& warnings) {
  attach_progress(context, args.common.json);
  auto report =
    verify::verify(context, args.common.prefix_or_default(), args.common.session(), args.options);
  if (!report)
    return report_error(report.error());
  if (args.common.json)
    print_json(verify_json(*report), warnings);
  else
    fmt::print("{}", verify_table(*report));
  return report->ok() ? 0 : static_cast<int>(util::ExitCode::failure);
}

} // namespace

void add_verify_command(CLI::App& app, core::Context& context, Registry& registry) {
  auto args = std::make_shared<VerifyArgs>();
  auto* cmd =
    app.add_subcommand("verify", "Check the shims and compile through them: the repeat must hit");
  add_common(cmd, args->common, false);
  cmd->add_option("--offload-arch",
                  args->options.offload_arch,
                  "GPU target of the HIP test compile (default gfx90a)");
  cmd->add_option(
    "--cuda-arch", args->options.cuda_arch, "GPU target of the CUDA test compile (default sm_90)");
  registry.commands.push_back(
    { cmd, [&context, &registry, args] { return run_verify(context, *args, registry.warnings); } });
}

} // namespace shimctl::cli
