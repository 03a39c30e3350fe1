#include <cerrno>
#include <cstdlib>
#include <fmt/format.h>
#include <shim/formats.h>
#include <shimctl/core/user_cache_dir.hpp>
#include <sys/stat.h>

namespace shimctl::core {

std::string user_cache_dir(std::string_view name) {
  char home[4096];
  size_t len =
    shimctl_user_cache_home(home, sizeof home, std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
  if (!len || len >= sizeof home)
    return {};
  return fmt::format("{}/{}/{}", std::string_view(home, len), SHIMCTL_USER_CACHE_DIR, name);
}

std::string user_prefix_file(const char* subdir, const std::string& prefix) {
  char path[4096];
  auto len = shimctl_user_file_path(
    path, sizeof path, std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"), subdir, prefix.c_str());
  return len > 0 && len < sizeof path ? std::string(path, len) : std::string();
}

util::Result<std::string> make_user_cache_dir(std::string_view name) {
  std::string dir = user_cache_dir(name);
  if (dir.empty())
    return std::unexpected(util::Error{ "no cache home", util::ExitCode::failure });
  // The cache home, shimctl's directory in it, then NAME: the last three components.
  auto shimctl_at = dir.rfind('/', dir.size() - name.size() - 2);
  for (auto at : { shimctl_at, dir.size() - name.size() - 1, dir.size() }) {
    std::string part = dir.substr(0, at);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      return std::unexpected(
        util::Error{ fmt::format("cannot make {}", part), util::ExitCode::failure });
  }
  return dir;
}

} // namespace shimctl::core
