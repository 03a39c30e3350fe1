// `shimctl refresh`: records the toolchain's current identity in the manifest.
#include <shimctl/commands/adopt.hpp>
#include <shimctl/commands/refresh.hpp>

namespace shimctl::commands {

using util::ExitCode;
using util::fail;

util::Result<Identity> refresh(const core::Context& context,
                               const std::string& prefix,
                               const core::SessionOptions& session_options) {
  TRY_ASSIGN(auto session, core::open_session(context, prefix, session_options));
  if (!session.manifest)
    return fail(ExitCode::not_installed,
                "{} is not installed; run 'shimctl install {}' first",
                session.prefix,
                session.prefix);
  core::Manifest updated = *session.manifest;
  TRY(commands::rewrite_identity(context, session, {}, updated));
  return Identity{ updated.layout, updated.fingerprint };
}

} // namespace shimctl::commands
