#include <cerrno>
#include <grp.h>
#include <shimctl/cache/shared_cache.hpp>
#include <shimctl/util/dir.hpp>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace shimctl::cache {

using util::ExitCode;
using util::fail;

util::Result<gid_t> group_id(const std::string& name) {
  if (name.empty())
    return fail(ExitCode::usage, "--group: the group name is empty");
  std::vector<char> buffer(16384);
  struct group entry {};
  struct group* found = nullptr;
  int err = ::getgrnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found);
  if (err != 0 || !found)
    return fail(ExitCode::usage,
                "--group: no group named '{}'; create it (groupadd {}) and add the users who "
                "share the cache, or name an existing group",
                name,
                name);
  return found->gr_gid;
}

namespace {

std::string octal(mode_t mode) {
  return fmt::format("{:04o}", mode & 07777);
}

util::Status refuse_world_writable(const std::string& dir, mode_t mode) {
  return fail(ExitCode::usage,
              "shared cache {} is world-writable (mode {}): any local user could plant cache "
              "entries that other users' builds would link; use a directory only the group can "
              "write (shimctl creates it as {} with --group), or pass --allow-world-writable to "
              "accept that risk",
              dir,
              octal(mode),
              octal(shared_cache_mode));
}

// Brings the open directory DIR to group GID with the setgid and group bits.
util::Status fix_up(const util::Dir& dir, const struct stat& st, gid_t gid, SharedCache& out) {
  mode_t wanted = (st.st_mode & 07777) | shared_cache_mode;
  if (st.st_gid == gid && (st.st_mode & 07777) == wanted)
    return {};
  if (st.st_gid != gid && ::fchown(dir.fd(), static_cast<uid_t>(-1), gid) != 0)
    return fail(ExitCode::usage,
                "cannot give {} to group {}: {}; run as its owner or as root",
                dir.path(),
                gid,
                util::errno_text(errno));
  if (::fchmod(dir.fd(), wanted) != 0)
    return fail(ExitCode::usage,
                "cannot set mode {} on {}: {}; run as its owner or as root",
                octal(wanted),
                dir.path(),
                util::errno_text(errno));
  out.action = fmt::format("set {} to group {}, mode {}", dir.path(), gid, octal(wanted));
  return dir.sync();
}

} // namespace

util::Result<SharedCache> prepare_shared_cache(const SharedCacheRequest& request) {
  SharedCache out;
  TRY_ASSIGN(out.gid, group_id(request.group));
  if (request.dir.empty())
    return fail(ExitCode::usage, "--shared-cache: the directory name is empty");
  std::string absolute = request.dir;
  if (!absolute.starts_with("/")) {
    TRY_ASSIGN(auto cwd, util::real_path("."));
    absolute = cwd + "/" + absolute;
  }
  while (absolute.size() > 1 && absolute.ends_with("/"))
    absolute.pop_back();
  // ccache's storage list separates entries by spaces and attributes by '|'.
  if (absolute.find_first_of(" \t\n|") != std::string::npos)
    return fail(ExitCode::usage,
                "--shared-cache: {} contains a space or '|', which ccache's "
                "storage setting cannot carry; choose another directory",
                absolute);

  struct stat st {};
  if (::stat(absolute.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      return fail(ExitCode::usage, "--shared-cache: {} is not a directory", absolute);
    TRY_ASSIGN(out.dir, util::real_path(absolute));
    TRY_ASSIGN(auto dir, util::Dir::open(out.dir));
    if (::fstat(dir.fd(), &st) != 0)
      return fail("cannot stat {}: {}", out.dir, util::errno_text(errno));
    if ((st.st_mode & S_IWOTH) != 0) {
      if (!request.allow_world_writable)
        TRY(refuse_world_writable(out.dir, st.st_mode));
      return out; // accepted as it is: the caller took the risk
    }
    if (request.create)
      TRY(fix_up(dir, st, out.gid, out));
    return out;
  }
  if (errno != ENOENT)
    return fail(ExitCode::usage, "--shared-cache: {}: {}", absolute, util::errno_text(errno));

  auto [parent_path, name] = util::split_relative(absolute);
  if (!util::is_plain_name(name))
    return fail(ExitCode::usage, "--shared-cache: {} is not a usable directory name", absolute);
  auto parent_real = util::real_path(parent_path.empty() ? "/" : parent_path);
  if (!parent_real)
    return fail(ExitCode::usage,
                "--shared-cache: the parent directory of {} does not exist; "
                "create it first",
                absolute);
  if (!request.create)
    return out;
  TRY_ASSIGN(auto parent, util::Dir::open(*parent_real));
  // Created private, then given to the group: never a moment with wider access.
  if (auto made = parent.make_dir(name, 0700); !made)
    return fail(ExitCode::usage, "--shared-cache: {}", made.error().message);
  TRY_ASSIGN(auto dir, parent.open_relative(name));
  if (::fstat(dir.fd(), &st) != 0)
    return fail("cannot stat {}: {}", dir.path(), util::errno_text(errno));
  TRY(fix_up(dir, st, out.gid, out));
  TRY(parent.sync());
  out.dir = dir.path();
  out.action =
    fmt::format("created {} (group {}, mode {})", out.dir, request.group, octal(shared_cache_mode));
  return out;
}

} // namespace shimctl::cache
