#include <algorithm>
#include <shimctl/core/adopt.hpp>
#include <shimctl/core/shim_config.hpp>
#include <shimctl/core/status.hpp>
#include <shimctl/core/verify.hpp>
#include <shimctl/core/verify_compile.hpp>

namespace shimctl::core {

util::Result<StatusReport> status(const Context& context,
                                  const std::string& prefix,
                                  const SessionOptions& session_options) {
  TRY_ASSIGN(auto session, open_session(context, prefix, session_options));
  StatusReport report;
  report.prefix = session.prefix;
  report.recovered = session.recovered;
  if (!session.manifest)
    return report;
  const auto& m = *session.manifest;
  report.installed = true;
  report.manifest = m;
  TRY_ASSIGN(auto upgraded, upgraded_compilers(session));
  TRY_ASSIGN(auto by_package, diverted_updates(session));
  for (const auto& c : m.compilers) {
    CompilerStatus cs{ c.path, "wrapped", c.aliases.size() };
    auto [dir_path, name] = util::split_relative(c.path);
    auto dir = session.dir.open_relative(dir_path);
    auto real = dir ? dir->stat(util::split_relative(c.real).second)
                    : util::Result<std::optional<util::FileStat>>(std::nullopt);
    if (std::find(upgraded.begin(), upgraded.end(), c.path) != upgraded.end())
      cs.state = "shim replaced by another file (package upgrade?): run 'shimctl install'";
    else if (!real || !*real)
      cs.state = "original " + c.real + " missing";
    else if (std::find(by_package.begin(), by_package.end(), c.path) != by_package.end())
      cs.state = "updated by its package (diverted): run 'shimctl install'";
    report.compilers.push_back(cs);
  }
  auto env = shim_environment(m.cache, m.fingerprint.sha256, identity_paths(m));
  util::RunOptions options;
  options.env = tool_environment(env);
  report.cache_location = cache_location(m.cache, options);
  if (auto stats = read_stats(m.cache, options))
    report.stats = *stats;
  report.events = read_events(session.dir);
  report.changed = changed_identity_inputs(m);
  report.snapshot = snapshot_state(m);
  return report;
}

} // namespace shimctl::core
