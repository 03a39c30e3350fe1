// `shimctl install`: discover → plan → fingerprint → transaction → verify.
#pragma once

#include <optional>
#include <shimctl/core/context.hpp>
#include <shimctl/core/manifest.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/core/transaction.hpp>
#include <shimctl/core/verify.hpp>
#include <string>
#include <vector>

namespace shimctl::core {

struct InstallOptions {
  std::string prefix;
  std::optional<std::string> layout;
  std::vector<std::string> compilers;
  std::optional<std::string> cache_kind; // --cache (ccache when not given)
  std::optional<std::string> cache_tool; // explicit path
  std::optional<std::string> cache_dir;
  std::optional<std::string> max_size;
  std::optional<std::string> remote;
  bool remote_read_only = false;
  std::optional<std::string> shared_cache; // --shared-cache DIR (with --group)
  std::optional<std::string> shared_group; // --group NAME
  bool allow_world_writable = false;
  bool divert = false; // --divert: dpkg-divert packaged compilers to their .real
  bool dry_run = false;
  bool keep_on_failure = false;
  bool verify = true;
  VerifyOptions verify_options;
  SessionOptions session;
};

struct InstallResult {
  enum class Action {
    installed,
    unchanged,
    planned,
    readopted,
    reconfigured
  } action = Action::installed;
  Manifest manifest;
  std::vector<std::string> plan;      // one line per step (per changed setting when reconfigured)
  std::vector<std::string> notes;     // what discovery skipped
  bool plan_changes_settings = false; // a dry run on an installed prefix: PLAN lists settings
  std::optional<VerifyReport> report;
};

[[nodiscard]] util::Result<InstallResult> install(const Context& context,
                                                  const InstallOptions& options);

// Builds the transaction steps that install MANIFEST's shims (exposed for tests).
[[nodiscard]] std::vector<Step> install_steps(const Manifest& manifest);

// --cache-dir as an absolute path (relative ones are taken from the working
// directory: the shim runs in every directory).
[[nodiscard]] util::Result<std::optional<std::string>> absolute_cache_dir(
  const std::optional<std::string>& dir);

// Pieces of install and refresh transactions.
[[nodiscard]] std::string shim_config_path(const std::string& dir);
[[nodiscard]] Step shim_step(const WrappedCompiler& compiler);
[[nodiscard]] Step manifest_step(const Manifest& manifest);
// Prints "[i/total] what" through CONTEXT's progress for each finished step.
[[nodiscard]] StepObserver step_progress(const Context& context, std::size_t total);

// The record of the regular file PATH (relative to the prefix).
[[nodiscard]] util::Result<FileRecord> record_original(const util::Dir& prefix_dir,
                                                       const std::string& path);

// Builds the steps that roll MANIFEST back.
[[nodiscard]] std::vector<Step> rollback_steps(const Manifest& manifest);

} // namespace shimctl::core
