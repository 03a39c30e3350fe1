#include <algorithm>
#include <shimctl/core/adopt.hpp>
#include <shimctl/core/discovery.hpp>
#include <shimctl/identity/identity.hpp>

namespace shimctl::identity {

using util::ExitCode;
using util::fail;

util::Result<Identity> current_identity(const core::Context& context,
                                        const std::string& prefix,
                                        const core::SessionOptions& session_options) {
  TRY_ASSIGN(auto layouts, core::load_layouts(context.layouts_dir));
  TRY_ASSIGN(auto session, core::open_session(context, prefix, session_options));
  std::vector<std::string> wrapped;
  const core::Layout* layout = nullptr;
  bool before_install = !session.manifest;
  if (session.manifest) {
    for (const auto& c : session.manifest->compilers)
      wrapped.push_back(c.path);
    for (const auto& l : layouts)
      if (l.name == session.manifest->layout)
        layout = &l;
    if (!layout)
      return fail(
        ExitCode::corrupt, "the manifest names an unknown layout '{}'", session.manifest->layout);
    Identity id{ layout->name, {} };
    TRY_ASSIGN(auto found, toolchain_files(session.prefix, *layout, wrapped));
    TRY_ASSIGN(id.fingerprint,
               compute_fingerprint(session.prefix, found.files, false, fingerprint_meter(context)));
    return id;
  }
  TRY_ASSIGN(auto toolchain, core::discover(session.prefix, layouts, {}));
  for (const auto& t : toolchain.targets)
    wrapped.push_back(t.path);
  Identity id{ toolchain.layout.name, {} };
  TRY_ASSIGN(auto found, toolchain_files(session.prefix, toolchain.layout, wrapped));
  TRY_ASSIGN(
    id.fingerprint,
    compute_fingerprint(session.prefix, found.files, before_install, fingerprint_meter(context)));
  return id;
}

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
  TRY(core::rewrite_identity(context, session, {}, updated));
  return Identity{ updated.layout, updated.fingerprint };
}

} // namespace shimctl::identity
