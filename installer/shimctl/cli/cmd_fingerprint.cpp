// `shimctl fingerprint [PREFIX]` and `shimctl cache-key [PREFIX]`: the toolchain
// identity as it is now, in full or as a short key for CI caches.
#include <fmt/format.h>
#include <memory>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/cli/progress.hpp>
#include <shimctl/cli/render.hpp>
#include <shimctl/commands/fingerprint.hpp>

namespace shimctl::cli {

namespace {

enum class KeyOnly { yes, no };

int run_fingerprint(core::Context& context,
                    const Common& common,
                    KeyOnly key_only,
                    const Warnings& warnings) {
  attach_progress(context, common.json);
  auto id = commands::current_identity(context, common.prefix_or_default(), common.session());
  if (!id)
    return report_error(id.error());
  if (key_only == KeyOnly::yes) {
    if (common.json)
      print_json({ { "cache_key", id->fingerprint.cache_key(id->layout) } }, warnings);
    else
      fmt::print("{}\n", id->fingerprint.cache_key(id->layout));
    return 0;
  }
  if (common.json) {
    print_json(fingerprint_json(id->fingerprint, id->layout), warnings);
    return 0;
  }
  fmt::print("{}  {}\n", id->fingerprint.sha256, id->layout);
  for (const auto& in : id->fingerprint.inputs)
    fmt::print("  {}  {:>10}  {}\n", in.sha256.substr(0, 16), in.size, in.path);
  return 0;
}

void add_command(CLI::App& app,
                 core::Context& context,
                 Registry& registry,
                 KeyOnly key_only,
                 const std::string& name,
                 const std::string& description) {
  auto common = std::make_shared<Common>();
  auto* cmd = app.add_subcommand(name, description);
  add_common(cmd, *common, false);
  registry.commands.push_back({ cmd, [&context, &registry, common, key_only] {
                                 return run_fingerprint(
                                   context, *common, key_only, registry.warnings);
                               } });
}

} // namespace

void add_fingerprint_commands(CLI::App& app, core::Context& context, Registry& registry) {
  add_command(app,
              context,
              registry,
              KeyOnly::no,
              "fingerprint",
              "Print the toolchain fingerprint and its inputs");
  add_command(app,
              context,
              registry,
              KeyOnly::yes,
              "cache-key",
              "Print a short key of the toolchain identity for CI caches");
}

} // namespace shimctl::cli
