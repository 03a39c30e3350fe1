// `shimctl refresh`: records the toolchain's current identity in the manifest.
#include <shimctl/commands/adopt.hpp>
#include <shimctl/commands/refresh.hpp>

namespace shimctl::commands {

util::Result<Identity> refresh(const core::Context& context,
                               const std::string& prefix,
                               const core::SessionOptions& session_options) {
  TRY_ASSIGN(auto session, core::open_installed_session(context, prefix, session_options));
  core::Manifest updated = *session.manifest;
  TRY(commands::rewrite_identity(context, session, {}, updated));
  return Identity{ updated.layout, updated.fingerprint };
}

} // namespace shimctl::commands
