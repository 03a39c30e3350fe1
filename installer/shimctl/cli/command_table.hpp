// The commands: each cmd_<name>.cpp adds its subcommand(s) to the parser and
// a runner to the registry; main parses and runs the one that was given.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <shimctl/core/context.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <utility>
#include <vector>

namespace shimctl::cli {

using Runner = std::function<int()>;

// The one channel for warnings: something the user should know although the
// command succeeds. Each is printed at once on stderr as
// "shimctl: warning: MESSAGE" (under --json too) and kept for the "warnings"
// array of the JSON result.
class Warnings {
public:
  // Makes CONTEXT.warn (the core's warnings) go here.
  void attach(core::Context& context);
  void add(const std::string& message);
  [[nodiscard]] const std::vector<std::string>& list() const {
    return list_;
  }

private:
  std::vector<std::string> list_;
};

struct Registry {
  std::vector<std::pair<CLI::App*, Runner>> commands;
  Warnings warnings;
};

// What every prefix command takes: the prefix, --json and --wait.
struct Common {
  std::string prefix;
  bool json = false;
  double wait_seconds = -1; // < 0: fail at once if the prefix is busy
  // The prefix given, or /opt/rocm.
  [[nodiscard]] std::string prefix_or_default() const;
  [[nodiscard]] core::SessionOptions session() const;
};

// Adds the prefix positional, --json and --wait to CMD.
void add_common(CLI::App* cmd, Common& common, bool prefix_required);

// Every command, in the order of --help and the man page.
void add_commands(CLI::App& app, core::Context& context, Registry& registry);

// `shimctl install` (cmd_install.cpp).
void add_install_command(CLI::App& app, core::Context& context, Registry& registry);
// `shimctl verify` (cmd_verify.cpp).
void add_verify_command(CLI::App& app, core::Context& context, Registry& registry);
// `shimctl rollback` (cmd_rollback.cpp).
void add_rollback_command(CLI::App& app, core::Context& context, Registry& registry);
// `shimctl status` (cmd_status.cpp).
void add_status_command(CLI::App& app, core::Context& context, Registry& registry);
// `shimctl refresh` (cmd_refresh.cpp).
void add_refresh_command(CLI::App& app, core::Context& context, Registry& registry);
// `shimctl fingerprint` and `shimctl cache-key` (cmd_fingerprint.cpp).
void add_fingerprint_commands(CLI::App& app, core::Context& context, Registry& registry);
// `shimctl compile-pieces ...` (cmd_compile_pieces.cpp): the shim's, dispatched by main before
// the parser (it must start fast and never fail a compile); returns the compile's exit code.
int run_compile_pieces(int argc, char** argv);
// `shimctl device-link ...` (cmd_device_link.cpp): the shim's, dispatched as compile-pieces is.
int run_device_link(int argc, char** argv);
// shimctl run as `lld` (cmd_device_link.cpp): the old driver's device link through the store.
int run_as_lld(int argc, char** argv);
// `shimctl cache export|import` (cmd_cache.cpp).
void add_cache_commands(CLI::App& app, core::Context& context, Registry& registry);
// `shimctl measure` (cmd_measure.cpp).
void add_measure_command(CLI::App& app, core::Context& context, Registry& registry);
// `shimctl explain` (cmd_explain.cpp).
void add_explain_command(CLI::App& app, core::Context& context, Registry& registry);
// `shimctl check-build` (cmd_check_build.cpp).
void add_check_build_command(CLI::App& app, core::Context& context, Registry& registry);
// `shimctl identity-check` (cmd_identity.cpp), hidden: the shim's helper.
void add_identity_commands(CLI::App& app, core::Context& context, Registry& registry);

// Prints "shimctl: error: MESSAGE" and returns the error's exit code.
int report_error(const util::Error& error);

// Prints RESULT (a JSON object) on stdout with the warnings so far as "warnings".
void print_json(nlohmann::json result, const Warnings& warnings);

} // namespace shimctl::cli
