#include <cerrno>
#include <cstdlib>
#include <shim/formats.h> // the path rule, shared with the shim
#include <shimctl/identity/user_snapshot.hpp>
#include <shimctl/util/dir.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::identity {

using util::fail;

namespace {

// DIR is this user's and no one else may write it.
util::Status check_own_directory(const util::Dir& dir) {
  struct stat st {};
  if (::fstat(dir.fd(), &st) != 0)
    return fail("cannot stat {}: {}", dir.path(), util::errno_text(errno));
  if (st.st_uid != ::geteuid() || (st.st_mode & 022) != 0)
    return fail("{} is not this user's own directory (owner uid {}, mode {:o})",
                dir.path(),
                st.st_uid,
                st.st_mode & 07777);
  return {};
}

// Opens NAME below PARENT (creating it, mode 0700), refusing a symlink and a
// directory that is not this user's own.
util::Result<util::Dir> own_subdirectory(const util::Dir& parent, std::string_view name) {
  TRY(parent.make_dir(name, 0700));
  TRY_ASSIGN(auto dir, parent.open_relative(name));
  TRY(check_own_directory(dir));
  return dir;
}

// The cache home, created below the user's own parent directory if missing.
util::Result<util::Dir> open_cache_home(const std::string& path) {
  if (auto dir = util::Dir::open(path)) {
    TRY(check_own_directory(*dir));
    return std::move(*dir);
  }
  auto slash = path.find_last_of('/');
  TRY_ASSIGN(auto parent, util::Dir::open(slash == 0 ? "/" : path.substr(0, slash)));
  TRY(check_own_directory(parent));
  return own_subdirectory(parent, path.substr(slash + 1));
}

} // namespace

std::optional<std::string> user_snapshot_name(std::string_view prefix) {
  std::string text(prefix), name(shimctl_user_snapshot_name(nullptr, 0, 0, text.c_str()), '\0');
  shimctl_user_snapshot_name(name.data(), name.size() + 1, 0, text.c_str());
  if (name.size() > SHIMCTL_NAME_MAX)
    return std::nullopt;
  return name;
}

std::optional<std::string> user_cache_home(const char* xdg_cache_home, const char* home) {
  std::string path(shimctl_user_cache_home(nullptr, 0, xdg_cache_home, home), '\0');
  if (path.empty())
    return std::nullopt;
  shimctl_user_cache_home(path.data(), path.size() + 1, xdg_cache_home, home);
  return path;
}

util::Result<std::string> write_user_snapshot(const std::string& prefix,
                                              const std::string& fingerprint,
                                              const InputStat& manifest,
                                              const std::vector<InputStat>& inputs) {
  auto cache_home = user_cache_home(std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
  if (!cache_home)
    return fail("no cache directory for the user's identity snapshot (HOME is not set)");
  auto name = user_snapshot_name(prefix);
  if (!name)
    return fail("the prefix path is too long for the name of a user's identity snapshot");
  TRY_ASSIGN(auto home, open_cache_home(*cache_home));
  TRY_ASSIGN(auto shimctl_dir, own_subdirectory(home, SHIMCTL_USER_CACHE_DIR));
  TRY_ASSIGN(auto dir, own_subdirectory(shimctl_dir, SHIMCTL_USER_SNAPSHOT_DIR));
  std::vector<InputStat> listed{ manifest };
  listed.insert(listed.end(), inputs.begin(), inputs.end());
  TRY(dir.write_atomic(*name, render_identity_snapshot(fingerprint, listed), 0644));
  return dir.path_of(*name);
}

} // namespace shimctl::identity
