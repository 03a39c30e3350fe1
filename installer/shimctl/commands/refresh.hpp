// `shimctl refresh`: records the toolchain's current identity in the manifest.
#pragma once

#include <shimctl/commands/fingerprint.hpp>
#include <shimctl/core/context.hpp>
#include <shimctl/core/session.hpp>
#include <string>

namespace shimctl::commands {

// `shimctl refresh`: records the toolchain's current identity.
[[nodiscard]] util::Result<Identity> refresh(const core::Context& context,
                                             const std::string& prefix,
                                             const core::SessionOptions& session);

} // namespace shimctl::commands
