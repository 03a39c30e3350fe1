// `shimctl install` on a prefix that is already installed: the cache settings
// it asks for (--cache-dir, --max-size, --remote, --remote-read-only,
// --base-dir) are applied to the shim configs and the manifest in one
// transaction, then verified; a failed verification puts the previous
// settings back. Changes that need the shims re-made (another cache tool,
// shared cache, compiler set, layout) are refused with the commands that make
// them.
#pragma once

#include <optional>
#include <shimctl/cache/secrets.hpp>
#include <shimctl/commands/install_options.hpp>
#include <shimctl/core/context.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/core/transaction.hpp>
#include <string>
#include <vector>

namespace shimctl::commands {

struct Reconfiguration {
  core::CacheSettings cache;        // the settings asked for
  std::vector<std::string> changes; // "remote: none -> redis://...", one per setting; empty: none
  // The secrets file (a remote's credential, cache/secrets.hpp) when it changes: the step that
  // writes or removes it, and the one that puts the present file back.
  std::optional<core::Step> secret;
  std::optional<core::Step> previous_secret;
};

// What OPTIONS ask to change in INSTALLED's settings; a usage error naming
// the option when it asks for a change install cannot make in place.
// SECRETS: the prefix's secrets file as read now. A remote's credential that
// an older shimctl kept in the manifest moves to the secrets file.
[[nodiscard]] util::Result<Reconfiguration> requested_reconfiguration(
  const InstallOptions& options,
  const core::Manifest& installed,
  const cache::SecretsFile& secrets);

// Applies CHANGE to SESSION's installation (shim configs, manifest, identity
// snapshot) as one transaction; then, when OPTIONS.verify, verifies, and on
// a failure puts the previous settings back and fails.
[[nodiscard]] util::Status reconfigure(const core::Context& context,
                                       core::Session& session,
                                       const InstallOptions& options,
                                       const Reconfiguration& change,
                                       InstallResult& result);

} // namespace shimctl::commands
