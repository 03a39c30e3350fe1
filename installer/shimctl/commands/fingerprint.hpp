// The toolchain identity of a prefix as it is now, installed or not.
#pragma once

#include <shimctl/core/context.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/identity/fingerprint.hpp>
#include <string>

namespace shimctl::commands {

struct Identity {
  std::string layout;
  core::Fingerprint fingerprint;
};

[[nodiscard]] util::Result<Identity> current_identity(const core::Context& context,
                                                      const std::string& prefix,
                                                      const core::SessionOptions& session);

} // namespace shimctl::commands
