// `shimctl fingerprint` and `shimctl cache-key`: the toolchain identity of a prefix as it is now.
#include <shimctl/commands/fingerprint.hpp>
#include <shimctl/core/discovery.hpp>

namespace shimctl::commands {

using namespace shimctl::core;

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
    TRY_ASSIGN(auto found, identity::toolchain_files(session.prefix, *layout, wrapped));
    TRY_ASSIGN(id.fingerprint,
               identity::compute_fingerprint(
                 session.prefix, found.files, false, identity::fingerprint_meter(context)));
    return id;
  }
  TRY_ASSIGN(auto toolchain, core::discover(session.prefix, layouts, {}));
  for (const auto& t : toolchain.targets)
    wrapped.push_back(t.path);
  Identity id{ toolchain.layout.name, {} };
  TRY_ASSIGN(auto found, identity::toolchain_files(session.prefix, toolchain.layout, wrapped));
  TRY_ASSIGN(id.fingerprint,
             identity::compute_fingerprint(
               session.prefix, found.files, before_install, identity::fingerprint_meter(context)));
  return id;
}

} // namespace shimctl::commands
