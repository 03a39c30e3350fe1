// `shimctl fingerprint` and `shimctl cache-key`: the toolchain identity of a prefix as it is now.
#include <shimctl/commands/fingerprint.hpp>
#include <shimctl/core/discovery.hpp>

namespace shimctl::commands {

using namespace shimctl::core;

util::Result<Identity> current_identity(const core::Context& context,
                                        const std::string& prefix,
                                        const core::SessionOptions& session_options) {
  TRY_ASSIGN(auto session, core::open_session(context, prefix, session_options));
  std::vector<std::string> wrapped;
  if (session.manifest) {
    for (const auto& c : session.manifest->compilers)
      wrapped.push_back(c.path);
    TRY_ASSIGN(auto layout, core::manifest_layout(context.layouts_dir, session.manifest->layout));
    Identity id{ layout.name, {} };
    TRY_ASSIGN(id.fingerprint,
               identity::fingerprint_toolchain(
                 context, session.prefix, layout, wrapped, false, identity::Announce::no));
    return id;
  }
  TRY_ASSIGN(auto layouts, core::load_layouts(context.layouts_dir));
  TRY_ASSIGN(auto toolchain, core::discover(session.prefix, layouts, {}));
  for (const auto& t : toolchain.targets)
    wrapped.push_back(t.path);
  Identity id{ toolchain.layout.name, {} };
  TRY_ASSIGN(id.fingerprint,
             identity::fingerprint_toolchain(
               context, session.prefix, toolchain.layout, wrapped, true, identity::Announce::no));
  return id;
}

} // namespace shimctl::commands
