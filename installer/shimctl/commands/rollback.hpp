// `shimctl rollback`: every changed path back, byte-identical, with its mode,
// owner and inode; shims, .real files, configs and the manifest removed.
#pragma once

#include <shimctl/core/context.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/core/transaction.hpp>
#include <string>
#include <vector>

namespace shimctl::commands {

struct RollbackOptions {
  std::string prefix;
  bool force = false; // restore a .real even if it no longer matches its hash
  core::SessionOptions session;
  core::BusyWait busy; // how long to wait for compiles still running a .real
};

struct RollbackResult {
  bool was_installed = true;
  std::vector<std::string> restored; // paths put back
  std::vector<std::string> kept;     // newer files kept (package upgrades), with why
  std::size_t servers_stopped = 0;   // sccache servers the shims had started
};

[[nodiscard]] util::Result<RollbackResult> rollback(const core::Context& context,
                                                    const RollbackOptions& options);

// Rolls back within an open, locked session (install's automatic rollback).
[[nodiscard]] util::Result<RollbackResult> rollback_session(const core::Context& context,
                                                            core::Session& session,
                                                            const RollbackOptions& options);

} // namespace shimctl::commands
