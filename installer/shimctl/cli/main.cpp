// shimctl: the command line. Every command lives in a cmd_*.cpp and registers
// its options and runner (commands.hpp); main parses, runs the one given, and
// maps what escapes to an exit code.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <shimctl/cache/cache_budget.hpp>
#include <shimctl/cache/tool.hpp>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/cli/help.hpp>
#include <shimctl/cli/version.hpp>
#include <shimctl/records/miss_recorder.hpp>
#include <shimctl/util/text.hpp>

using namespace shimctl;
using util::ExitCode;

int main(int argc, char** argv) {
  if (argc > 0 && std::string_view(argv[0]).ends_with("/lld"))
    return cli::run_as_lld(argc, argv);
  if (argc > 1 && std::string_view(argv[1]) == "compile-pieces")
    return cli::run_compile_pieces(argc, argv);
  if (argc > 1 && std::string_view(argv[1]) == "record-miss") {
    int status = records::run_record_miss(argc, argv);
    if (argc > 3) // after the compile, before the tool stores it: one entry late at most
      cache::keep_budget_after_miss(argv[3]);
    return status;
  }
  if (argc > 1 && std::string_view(argv[1]) == "device-link")
    return cli::run_device_link(argc, argv);
  auto context = core::locate_context();
  for (auto name : cache::tool_names())
    context.cache_tools.emplace_back(name);
  CLI::App app{ "shimctl: put a compiler cache behind a toolchain's own compiler paths, safely",
                "shimctl" };
  app.require_subcommand(1);
  app.set_version_flag(
    "--version",
    [&] { return cli::version_text(context); },
    "Print shimctl's version, the shim's and the cache tool's, then exit");
  cli::Registry registry;
  cli::add_commands(app, context, registry);
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
    fmt::print(
      stderr, "shimctl: error: {}; see 'shimctl --help'\n", util::redact_credentials(e.what()));
    return static_cast<int>(ExitCode::usage);
  }
  registry.warnings.attach(context); // stderr, and "warnings" in JSON results

  try {
    for (const auto& [command, runner] : registry.commands)
      if (command->parsed())
        return runner();
  } catch (const std::exception& e) {
    fmt::print(stderr, "shimctl: error: internal error: {}\n", util::redact_credentials(e.what()));
    return static_cast<int>(ExitCode::failure);
  }
  return 0;
}
