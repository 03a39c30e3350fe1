#include <algorithm>
#include <fcntl.h>
#include <shimctl/core/discovery.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/core/state_files.hpp>
#include <shimctl/core/transaction.hpp>
#include <shimctl/util/sha256.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::core {

using util::ExitCode;
using util::fail;

util::Result<std::string> read_shim_binary(const Context& context) {
  auto [dir, name] = util::split_relative(context.shim_binary);
  auto opened = util::Dir::open(dir.empty() ? "/" : dir);
  if (!opened)
    return fail("the shim binary {} is missing; rebuild or reinstall shimctl", context.shim_binary);
  auto bytes = opened->read_file(name, 64 << 20);
  if (!bytes)
    return fail("the shim binary {} is missing; rebuild or reinstall shimctl", context.shim_binary);
  return bytes;
}

util::Result<std::optional<Manifest>> load_manifest(const util::Dir& prefix_dir,
                                                    const std::string& prefix,
                                                    const std::vector<std::string>& cache_tools) {
  auto state = prefix_dir.open_relative(state_dir_name);
  if (!state)
    return std::optional<Manifest>{};
  TRY_ASSIGN(auto present, state->stat(manifest_file));
  if (!present)
    return std::optional<Manifest>{};
  if (present->kind != util::FileKind::file)
    return fail(ExitCode::corrupt, "{} is not a regular file", state->path_of(manifest_file));
  TRY_ASSIGN(auto text, state->read_file(manifest_file, 16 << 20));
  auto manifest = parse_manifest(text, prefix, cache_tools);
  if (!manifest)
    return fail(ExitCode::corrupt,
                "{}: {}; nothing was changed (restore the file, or remove it "
                "and the shims by hand)",
                state->path_of(manifest_file),
                manifest.error().message);
  if (auto paths = check_manifest_paths(prefix_dir, *manifest); !paths)
    return fail(ExitCode::corrupt,
                "{}: {}; nothing was changed",
                state->path_of(manifest_file),
                paths.error().message);
  return std::optional<Manifest>{ std::move(*manifest) };
}

namespace {

bool still_linked(const util::Dir& prefix_dir, const util::Dir& state) {
  struct stat opened {};
  auto now = prefix_dir.stat(state_dir_name);
  return ::fstat(state.fd(), &opened) == 0 && opened.st_nlink > 0 && now && *now &&
         (*now)->ino == opened.st_ino && (*now)->dev == opened.st_dev;
}

// False when this user could neither open the lock file for writing nor create it.
bool may_lock(const util::Dir& state) {
  if (::faccessat(state.fd(), std::string(lock_file).c_str(), R_OK | W_OK, AT_EACCESS) == 0)
    return true;
  return errno == ENOENT && ::faccessat(state.fd(), ".", W_OK | X_OK, AT_EACCESS) == 0;
}

// Takes the lock in PREFIX/.shimctl, creating the directory if asked. The
// holder we waited for may have removed the directory (a finished rollback):
// then start again, with what is left of the wait. False: no state directory
// and none wanted.
util::Result<bool> lock_state(Session& session, const SessionOptions& options) {
  using clock = std::chrono::steady_clock;
  auto deadline = clock::now() + options.wait.value_or(std::chrono::milliseconds(0));
  while (true) {
    TRY_ASSIGN(auto state_stat, session.dir.stat(state_dir_name));
    if (state_stat && state_stat->kind != util::FileKind::directory)
      return fail(ExitCode::corrupt,
                  "{}/{} is not a directory; move it away",
                  session.prefix,
                  state_dir_name);
    if (!state_stat) {
      if (!options.create_state)
        return false;
      if (auto made = session.dir.make_dir(state_dir_name, 0755); !made)
        return fail(ExitCode::usage,
                    "cannot write to {}: {}; run as the toolchain's owner",
                    session.prefix,
                    made.error().message);
      session.state_created = true;
    }
    TRY_ASSIGN(auto state, session.dir.open_relative(state_dir_name));
    if (options.read_only && !may_lock(state)) {
      session.read_only = true;
      return false;
    }
    std::optional<std::chrono::milliseconds> left;
    if (options.wait)
      left =
        std::max(std::chrono::milliseconds(0),
                 std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()));
    auto lock = util::FileLock::acquire(state, lock_file, left);
    if (still_linked(session.dir, state)) {
      if (!lock)
        return std::unexpected(lock.error());
      session.lock.emplace(std::move(*lock));
      return true;
    }
    if (!lock && lock.error().code == ExitCode::busy)
      return std::unexpected(lock.error());
  }
}

} // namespace

util::Result<Session> open_session(const Context& context,
                                   const std::string& prefix_arg,
                                   const SessionOptions& options) {
  Session session;
  TRY_ASSIGN(session.prefix, canonical_prefix(prefix_arg));
  TRY_ASSIGN(session.dir, util::Dir::open(session.prefix));
  TRY_ASSIGN(bool locked, lock_state(session, options));
  if (!locked && !session.read_only)
    return session;
  TRY_ASSIGN(session.shim_bytes, read_shim_binary(context));
  if (session.read_only) {
    TRY_ASSIGN(auto state, session.dir.open_relative(state_dir_name));
    TRY_ASSIGN(auto journal, state.stat(journal_file));
    if (journal)
      return fail(ExitCode::busy,
                  "{}/{}/{} exists: a shimctl command is working on {}, or one was interrupted; "
                  "its owner's next shimctl command finishes it (this user may not)",
                  session.prefix,
                  state_dir_name,
                  journal_file,
                  session.prefix);
  } else {
    Transaction transaction(session.dir, session.shim_bytes);
    TRY_ASSIGN(session.recovered, transaction.recover());
    if (!session.recovered.empty())
      context.progress("recovered: " + session.recovered);
  }
  TRY_ASSIGN(session.manifest, load_manifest(session.dir, session.prefix, context.cache_tools));
  if (session.manifest) {
    auto shim = check_manifest_shim(session.dir,
                                    *session.manifest,
                                    util::sha256_hex(session.shim_bytes),
                                    session.shim_bytes.size());
    if (!shim)
      return fail(ExitCode::corrupt,
                  "{}/{}/{}: {}; nothing was changed (restore the manifest)",
                  session.prefix,
                  state_dir_name,
                  manifest_file,
                  shim.error().message);
  }
  return session;
}

void remove_state_dir(const util::Dir& prefix_dir) {
  if (auto state = prefix_dir.open_relative(state_dir_name)) {
    for (auto name : { journal_file,
                       manifest_file,
                       events_file,
                       secrets_file,
                       lock_file,
                       identity_snapshot_file })
      (void)state->remove(name);
    // An identity snapshot whose writer died before its rename; a secret's staged or kept copy.
    if (auto names = state->list())
      for (const auto& name : *names)
        if (name.starts_with("." + std::string(identity_snapshot_file) + ".shimctl-tmp.") ||
            name.starts_with("." + std::string(secrets_file) + ".shimctl-") ||
            name.starts_with(".." + std::string(secrets_file) + ".shimctl-"))
          (void)state->remove(name);
  }
  (void)prefix_dir.remove_dir(state_dir_name);
}

util::Result<Session> open_installed_session(const Context& context,
                                             const std::string& prefix,
                                             const SessionOptions& options) {
  TRY_ASSIGN(auto session, open_session(context, prefix, options));
  if (!session.manifest)
    return fail(ExitCode::not_installed,
                "{} is not installed; run 'shimctl install {}' first",
                session.prefix,
                session.prefix);
  return session;
}

} // namespace shimctl::core
