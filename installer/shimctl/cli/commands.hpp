// Subcommands that live in their own files register here; main dispatches.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <shimctl/core/context.hpp>
#include <shimctl/util/error.hpp>
#include <utility>
#include <vector>

namespace shimctl::cli {

using Runner = std::function<int()>;

struct Registry {
  std::vector<std::pair<CLI::App*, Runner>> commands;
};

// `shimctl cache export|import` (cmd_cache.cpp).
void add_cache_commands(CLI::App& app, core::Context& context, Registry& registry);
// `shimctl measure` and `shimctl check-build` (cmd_build.cpp).
void add_build_commands(CLI::App& app, core::Context& context, Registry& registry);

// `shimctl identity-check` (cmd_identity.cpp), hidden: the shim's helper.
void add_identity_commands(CLI::App& app, Registry& registry);

// Prints "shimctl: error: MESSAGE" and returns the error's exit code.
int report_error(const util::Error& error);

} // namespace shimctl::cli
