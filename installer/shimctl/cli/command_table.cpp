// What the commands share: the common options, warnings, errors and JSON output.
#include <cstdio>
#include <fmt/format.h>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/util/text.hpp>

namespace shimctl::cli {

void Warnings::attach(core::Context& context) {
  context.warn = [this](const std::string& message) { add(message); };
}

void Warnings::add(const std::string& text) {
  auto message = util::redact_credentials(text); // a tool's words may quote a remote's URL
  fmt::print(stderr, "shimctl: warning: {}\n", message);
  std::fflush(stderr);
  list_.push_back(message);
}

std::string Common::prefix_or_default() const {
  return prefix.empty() ? "/opt/rocm" : prefix;
}

core::SessionOptions Common::session() const {
  core::SessionOptions s;
  if (wait_seconds >= 0)
    s.wait = std::chrono::milliseconds(static_cast<long>(wait_seconds * 1000));
  return s;
}

void add_common(CLI::App* cmd, Common& common, bool prefix_required) {
  auto* opt = cmd->add_option("prefix",
                              common.prefix,
                              prefix_required ? "Toolchain root, e.g. /opt/rocm or /usr/local/cuda"
                                              : "Toolchain root (default /opt/rocm)");
  if (prefix_required)
    opt->required();
  cmd->add_flag("--json", common.json, "Print machine-readable JSON on stdout");
  cmd->add_option(
    "--wait",
    common.wait_seconds,
    "Wait up to SECONDS for another shimctl working on the prefix (default: fail at once)");
}

void add_commands(CLI::App& app, core::Context& context, Registry& registry) {
  add_install_command(app, context, registry);
  add_verify_command(app, context, registry);
  add_rollback_command(app, context, registry);
  add_status_command(app, context, registry);
  add_refresh_command(app, context, registry);
  add_fingerprint_commands(app, context, registry);
  add_cache_commands(app, context, registry);
  add_measure_command(app, context, registry);
  add_explain_command(app, context, registry);
  add_check_build_command(app, context, registry);
  add_identity_commands(app, context, registry);
}

int report_error(const util::Error& e) {
  fmt::print(stderr, "shimctl: error: {}\n", util::redact_credentials(e.message));
  return static_cast<int>(e.code);
}

void print_json(nlohmann::json result, const Warnings& warnings) {
  result["warnings"] = warnings.list();
  fmt::print("{}\n", result.dump(2));
}

} // namespace shimctl::cli
