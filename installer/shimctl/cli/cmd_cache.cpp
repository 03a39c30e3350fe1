#include <shimctl/cli/commands.hpp>

namespace shimctl::cli {

void add_cache_commands(CLI::App& app, core::Context& context, Registry& registry) {
  (void)app;
  (void)context;
  (void)registry;
}

}  // namespace shimctl::cli
