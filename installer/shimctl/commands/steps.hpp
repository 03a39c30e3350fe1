// The transaction steps of install, rollback, adopt and refresh: which files
// each one links, writes and restores, in which order.
#pragma once

#include <optional>
#include <shimctl/core/context.hpp>
#include <shimctl/core/manifest.hpp>
#include <shimctl/core/transaction.hpp>
#include <shimctl/util/dir.hpp>
#include <string>
#include <vector>

namespace shimctl::commands {

// The steps that install MANIFEST's shims. Each link_real carries the
// original's planned SHA-256: the transaction refuses an original that changed
// since it was planned. SECRET (secret_step) goes before the shim configs that name it.
[[nodiscard]] std::vector<core::Step> install_steps(
  const core::Manifest& manifest,
  const std::optional<core::Step>& secret = std::nullopt);

// The secrets file (cache/secrets.hpp) with LINES: write_secret, mode and group
// from CACHE (0600, or 0640 with the shared cache's group); no LINES: remove_secret.
[[nodiscard]] util::Result<core::Step> secret_step(
  const core::CacheSettings& cache,
  const std::optional<std::vector<std::string>>& lines);

// The steps that roll MANIFEST back.
[[nodiscard]] std::vector<core::Step> rollback_steps(const core::Manifest& manifest);

[[nodiscard]] core::Step shim_step(const core::WrappedCompiler& compiler);
[[nodiscard]] core::Step manifest_step(const core::Manifest& manifest);

// Prints "[i/total] what" through CONTEXT's progress for each finished step.
[[nodiscard]] core::StepObserver step_progress(const core::Context& context, std::size_t total);

// The record of the regular file PATH (relative to the prefix).
[[nodiscard]] util::Result<core::FileRecord> record_original(const util::Dir& prefix_dir,
                                                             const std::string& path);

} // namespace shimctl::commands
