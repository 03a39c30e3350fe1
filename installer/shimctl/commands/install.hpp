// `shimctl install`: a prefix without shims is planned (discover → probe →
// fingerprint → the journal) and applied (transaction → identity snapshot →
// verify), both under one locked session; an installed prefix goes to
// update_installed (update_installed.hpp) instead.
#pragma once

#include <shimctl/commands/install_options.hpp>
#include <shimctl/core/context.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/core/transaction.hpp>
#include <string>
#include <vector>

namespace shimctl::commands {

// `shimctl install`: install OPTIONS.prefix, or update it when installed
// already (re-adoption, cache settings in place); a dry run plans only.
[[nodiscard]] util::Result<InstallResult> install(const core::Context& context,
                                                  const InstallOptions& options);

struct InstallPlan {
  core::Manifest manifest;        // what the prefix will record once installed
  core::Journal journal;          // the steps that install it
  std::vector<std::string> notes; // what discovery skipped, diversions not made
};

// The session install works in: locked, with the state directory created
// unless OPTIONS.dry_run (a dry run changes nothing, not even .shimctl).
[[nodiscard]] util::Result<core::Session> open_install_session(const core::Context& context,
                                                               const InstallOptions& options);

// Plans the installation of SESSION's prefix (which has no manifest). Reads
// the shim once: SESSION's bytes are what the plan's hash and the transaction use.
[[nodiscard]] util::Result<InstallPlan> plan_install(const core::Context& context,
                                                     core::Session& session,
                                                     const InstallOptions& options);

// Runs PLAN's transaction, records the identity snapshot and verifies; a
// failed verification rolls back (unless OPTIONS.keep_on_failure). An
// original that no longer has the hash PLAN recorded is refused by the
// transaction, nothing changed.
[[nodiscard]] util::Result<InstallResult> apply_install(const core::Context& context,
                                                        core::Session& session,
                                                        const InstallPlan& plan,
                                                        const InstallOptions& options);

// A dry run's result: PLAN's steps, nothing done.
[[nodiscard]] InstallResult planned_result(const InstallPlan& plan);

// Removes the state directory that open_install_session created, after a
// plan or an apply that failed (best effort; a no-op when it existed before
// or when the session holds a manifest: an installation kept on failure).
void discard_created_state(const core::Session& session);

} // namespace shimctl::commands
