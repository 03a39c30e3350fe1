// Package upgrades under an installed shim: a package manager replaced a
// wrapped compiler with a newer file. Install adopts the newer file as the
// original (its .real, the manifest and the fingerprint follow).
#pragma once

#include <shimctl/commands/install_options.hpp>
#include <shimctl/core/context.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/core/transaction.hpp>

namespace shimctl::commands {

// Compilers whose shim was replaced by another regular file.
[[nodiscard]] util::Result<std::vector<std::string>> upgraded_compilers(
  const core::Session& session);

// Diverted compilers (`install --divert`) whose .real no longer matches the
// manifest: dpkg installed the package's newer file there, under the shim.
[[nodiscard]] util::Result<std::vector<std::string>> diverted_updates(const core::Session& session);

// Re-adopts every upgraded compiler (and records the new .real of every
// diverted one); a no-op when there is none.
[[nodiscard]] util::Status readopt_upgraded(const core::Context& context,
                                            core::Session& session,
                                            InstallResult& result);

// Rewrites the fingerprint, shim configs and manifest of SESSION for the
// toolchain as it is now (refresh, and the end of a re-adoption), and the
// secrets file with SECRET (write_secret or remove_secret) in the same
// transaction (reconfigure).
[[nodiscard]] util::Status rewrite_identity(const core::Context& context,
                                            core::Session& session,
                                            const std::vector<std::string>& reshim,
                                            core::Manifest& updated,
                                            const std::optional<core::Step>& secret = std::nullopt);

} // namespace shimctl::commands
