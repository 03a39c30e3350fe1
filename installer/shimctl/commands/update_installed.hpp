// `shimctl install` on a prefix that is already installed: re-adopts
// compilers a package upgrade replaced (adopt.hpp), then applies the cache
// settings OPTIONS change (reconfigure.hpp); a dry run lists the changes.
#pragma once

#include <shimctl/commands/install_options.hpp>
#include <shimctl/core/context.hpp>
#include <shimctl/core/session.hpp>

namespace shimctl::commands {

// SESSION holds the prefix's manifest.
[[nodiscard]] util::Result<InstallResult> update_installed(const core::Context& context,
                                                           core::Session& session,
                                                           const InstallOptions& options);

} // namespace shimctl::commands
