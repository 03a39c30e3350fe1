#include <shimctl/cache/tool.hpp>
#include <shimctl/commands/rollback.hpp>
#include <shimctl/commands/steps.hpp>
#include <shimctl/core/transaction.hpp>

namespace shimctl::commands {

using namespace shimctl::core;

using util::ExitCode;
using util::fail;

namespace {

struct Inspection {
  std::vector<std::string> mismatched; // .real files that changed since install
  std::vector<std::string> missing;    // neither the shim's original nor a compiler left
  std::vector<std::string> upgraded;   // the shim was replaced by a newer compiler
  std::vector<std::string> updated;    // diverted: the package put a newer file at .real
};

util::Result<Inspection> inspect(const Session& session, const Manifest& m) {
  Inspection found;
  for (const auto& c : m.compilers) {
    auto [dir_path, name] = util::split_relative(c.path);
    TRY_ASSIGN(auto dir, session.dir.open_relative(dir_path));
    auto real_name = util::split_relative(c.real).second;
    TRY_ASSIGN(auto real, dir.stat(real_name));
    TRY_ASSIGN(auto current, dir.stat(name));
    bool shim_in_place = false;
    if (current && current->kind == util::FileKind::file && current->size == m.shim_size) {
      TRY_ASSIGN(auto digest, dir.sha256(name));
      shim_in_place = digest == m.shim_sha256;
    }
    if (current && !shim_in_place) {
      if (real && !(real->ino == current->ino && real->dev == current->dev))
        found.upgraded.push_back(c.path);
      continue;
    }
    if (!real) {
      if (shim_in_place)
        found.missing.push_back(c.real);
      continue;
    }
    TRY_ASSIGN(auto digest, dir.sha256(real_name));
    // Under a dpkg diversion a changed .real is the package's newer file, put
    // there by dpkg itself: restoring it is right, no --force needed.
    if (digest != c.original.sha256 && c.diverted_by)
      found.updated.push_back(c.path);
    else if (digest != c.original.sha256)
      found.mismatched.push_back(c.real);
  }
  return found;
}

// The state directory goes last; a waiting shimctl notices that its lock
// file or the directory is gone and starts again. Best effort: a directory
// that still holds foreign files stays.
std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items)
    out += (out.empty() ? "" : ", ") + i;
  return out;
}

} // namespace

util::Result<RollbackResult> rollback_session(const Context& context,
                                              Session& session,
                                              const RollbackOptions& options) {
  RollbackResult result;
  if (!session.manifest) {
    result.was_installed = false;
    return result;
  }
  const auto& m = *session.manifest;
  TRY_ASSIGN(auto found, inspect(session, m));
  if (!found.missing.empty())
    return fail("cannot roll back: the original {} is missing; nothing was changed (reinstall the "
                "toolchain package, then run 'shimctl rollback' again)",
                join(found.missing));
  if (!found.mismatched.empty() && !options.force)
    return fail("{} no longer matches the SHA-256 recorded at install; nothing was changed "
                "(--force restores it anyway)",
                join(found.mismatched));
  Journal journal{ "rollback", Recovery::redo, m.shim_sha256, rollback_steps(m) };
  Transaction transaction(session.dir, session.shim_bytes);
  transaction.set_busy_wait(options.busy);
  TRY(transaction.run(journal, step_progress(context, journal.steps.size())));
  for (const auto& c : m.compilers) {
    if (std::find(found.upgraded.begin(), found.upgraded.end(), c.path) != found.upgraded.end())
      result.kept.push_back(fmt::format("{}: a newer compiler replaced the shim; kept it and "
                                        "removed the stale {}",
                                        c.path,
                                        c.real));
    else if (std::find(found.updated.begin(), found.updated.end(), c.path) != found.updated.end())
      result.kept.push_back(fmt::format("{}: its package updated it under the diversion; "
                                        "restored the package's newer file from {}",
                                        c.path,
                                        c.real));
    else
      result.restored.push_back(c.path);
  }
  // The servers the shims started (any user's) would keep running the
  // compiles of a configuration that is gone: stop them, letting each finish.
  result.servers_stopped =
    cache::tool_of(m.cache).stop_started(fmt::format("{}/{}", m.prefix, state_dir_name), m.cache);
  remove_state_dir(session.dir);
  session.manifest.reset();
  return result;
}

util::Result<RollbackResult> rollback(const Context& context, const RollbackOptions& options) {
  TRY_ASSIGN(auto session, open_session(context, options.prefix, options.session));
  if (!session.manifest) {
    // A state directory without a manifest is what an undone install leaves
    // (recovery after a crash): remove it so the prefix is as it was.
    if (session.lock)
      remove_state_dir(session.dir);
    RollbackResult result;
    result.was_installed = false;
    return result;
  }
  return rollback_session(context, session, options);
}

} // namespace shimctl::commands
