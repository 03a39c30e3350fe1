// `shimctl install` on a prefix without shims: plan (discover → probe →
// fingerprint → the journal) and apply (transaction → identity snapshot →
// verify), both under one locked session. An installed prefix goes to
// update_installed (installed.hpp) instead.
#pragma once

#include <shimctl/core/context.hpp>
#include <shimctl/core/install_options.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/core/transaction.hpp>
#include <string>
#include <vector>

namespace shimctl::core {

struct InstallPlan {
  Manifest manifest;              // what the prefix will record once installed
  Journal journal;                // the steps that install it
  std::vector<std::string> notes; // what discovery skipped, diversions not made
};

// The session install works in: locked, with the state directory created
// unless OPTIONS.dry_run (a dry run changes nothing, not even .shimctl).
[[nodiscard]] util::Result<Session> open_install_session(const Context& context,
                                                         const InstallOptions& options);

// Plans the installation of SESSION's prefix (which has no manifest). Reads
// the shim once: SESSION's bytes are what the plan's hash and the transaction use.
[[nodiscard]] util::Result<InstallPlan> plan_install(const Context& context,
                                                     Session& session,
                                                     const InstallOptions& options);

// Runs PLAN's transaction, records the identity snapshot and verifies; a
// failed verification rolls back (unless OPTIONS.keep_on_failure). An
// original that no longer has the hash PLAN recorded is refused by the
// transaction, nothing changed.
[[nodiscard]] util::Result<InstallResult> apply_install(const Context& context,
                                                        Session& session,
                                                        const InstallPlan& plan,
                                                        const InstallOptions& options);

// A dry run's result: PLAN's steps, nothing done.
[[nodiscard]] InstallResult planned_result(const InstallPlan& plan);

// Removes the state directory that open_install_session created, after a
// plan or an apply that failed (best effort; a no-op when it existed before
// or when the session holds a manifest: an installation kept on failure).
void discard_created_state(const Session& session);

} // namespace shimctl::core
