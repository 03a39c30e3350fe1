// `shimctl identity-check PREFIX` (hidden): what the shim runs when its
// identity snapshot is stale. Prints the toolchain's current fingerprint.
#include <fmt/format.h>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/identity/identity_check.hpp>

namespace shimctl::cli {

void add_identity_commands(CLI::App& app, core::Context& context, Registry& registry) {
  auto* check = app.add_subcommand(
    "identity-check", "Re-hash the toolchain identity for the shim and print the fingerprint");
  check->group(""); // the shim's, not the user's
  auto prefix = std::make_shared<std::string>();
  check->add_option("prefix", *prefix, "The installed prefix")->required();
  registry.commands.push_back(
    { check, [&context, &registry, prefix] {
       auto result = identity::check_identity(*prefix, context.cache_tools);
       if (!result)
         return report_error(result.error());
       const auto& snapshot = result->snapshot;
       if (!snapshot.written && !result->user_snapshot.empty())
         registry.warnings.add(fmt::format("identity snapshot not written: {}; wrote {} instead",
                                           snapshot.why_not,
                                           result->user_snapshot));
       else if (!snapshot.written)
         registry.warnings.add(fmt::format(
           "identity snapshot not written: {}{}",
           snapshot.why_not,
           result->user_why_not.empty() ? "" : "; nor the user's: " + result->user_why_not));
       fmt::print("{}\n", snapshot.fingerprint);
       return 0;
     } });
}

} // namespace shimctl::cli
