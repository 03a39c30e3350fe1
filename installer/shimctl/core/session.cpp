#include <shimctl/core/discovery.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/core/transaction.hpp>

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
                                                    const std::string& prefix) {
  auto state = prefix_dir.open_relative(state_dir_name);
  if (!state)
    return std::optional<Manifest>{};
  TRY_ASSIGN(auto present, state->stat(manifest_file));
  if (!present)
    return std::optional<Manifest>{};
  if (present->kind != util::FileKind::file)
    return fail(ExitCode::corrupt, "{} is not a regular file", state->path_of(manifest_file));
  TRY_ASSIGN(auto text, state->read_file(manifest_file, 16 << 20));
  auto manifest = parse_manifest(text, prefix);
  if (!manifest)
    return fail(ExitCode::corrupt, "{}: {}; nothing was changed (restore the file, or remove it "
                "and the shims by hand)", state->path_of(manifest_file), manifest.error().message);
  return std::optional<Manifest>{std::move(*manifest)};
}

util::Result<Session> open_session(const Context& context, const std::string& prefix_arg,
                                   const SessionOptions& options) {
  Session session;
  TRY_ASSIGN(session.prefix, canonical_prefix(prefix_arg));
  TRY_ASSIGN(session.dir, util::Dir::open(session.prefix));
  TRY_ASSIGN(auto state_stat, session.dir.stat(state_dir_name));
  if (state_stat && state_stat->kind != util::FileKind::directory)
    return fail(ExitCode::corrupt, "{}/{} is not a directory; move it away", session.prefix,
                state_dir_name);
  if (!state_stat) {
    if (!options.create_state)
      return session;
    if (auto made = session.dir.make_dir(state_dir_name, 0755); !made)
      return fail(ExitCode::usage, "cannot write to {}: {}; run as the toolchain's owner",
                  session.prefix, made.error().message);
  }
  TRY_ASSIGN(auto state, session.dir.open_relative(state_dir_name));
  TRY_ASSIGN(auto lock, util::FileLock::acquire(state, lock_file, options.wait));
  session.lock.emplace(std::move(lock));
  TRY_ASSIGN(session.shim_bytes, read_shim_binary(context));
  Transaction transaction(session.dir, session.shim_bytes);
  TRY_ASSIGN(session.recovered, transaction.recover());
  if (!session.recovered.empty())
    context.progress("recovered: " + session.recovered);
  TRY_ASSIGN(session.manifest, load_manifest(session.dir, session.prefix));
  return session;
}

}  // namespace shimctl::core
