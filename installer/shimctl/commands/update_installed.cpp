#include <algorithm>
#include <shimctl/cache/secrets.hpp>
#include <shimctl/commands/adopt.hpp>
#include <shimctl/commands/reconfigure.hpp>
#include <shimctl/commands/update_installed.hpp>

namespace shimctl::commands {

using namespace shimctl::core;

util::Result<InstallResult> update_installed(const Context& context,
                                             Session& session,
                                             const InstallOptions& options) {
  InstallResult result;
  result.action = InstallResult::Action::unchanged;
  result.manifest = *session.manifest;
  TRY(readopt_upgraded(context, session, result));
  TRY_ASSIGN(auto change,
             requested_reconfiguration(
               options, result.manifest, cache::read_secrets(result.manifest.prefix)));
  if (!change.changes.empty() && options.dry_run) {
    result.action = InstallResult::Action::planned;
    result.plan = change.changes;
    result.plan_changes_settings = true;
    return result;
  }
  if (!change.changes.empty())
    TRY(reconfigure(context, session, options, change, result));
  bool diverted = std::any_of(result.manifest.compilers.begin(),
                              result.manifest.compilers.end(),
                              [](const WrappedCompiler& c) { return c.diverted_by.has_value(); });
  if (options.divert && !diverted)
    result.notes.push_back("installed without --divert: run 'shimctl rollback', then "
                           "'shimctl install --divert' to add the dpkg diversions");
  return result;
}

} // namespace shimctl::commands
