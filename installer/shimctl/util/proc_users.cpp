#include <charconv>
#include <dirent.h>
#include <fcntl.h>
#include <memory>
#include <shimctl/util/proc_users.hpp>
#include <string_view>
#include <unistd.h>

namespace shimctl::util {

namespace {

bool executable_is(const std::string& pid_dir, const std::string& path) {
  char target[4096];
  ssize_t n = readlink((pid_dir + "/exe").c_str(), target, sizeof target);
  return n > 0 && static_cast<std::size_t>(n) < sizeof target &&
         std::string_view(target, static_cast<std::size_t>(n)) == path;
}

bool command_line_holds(const std::string& pid_dir, const std::string& path) {
  int fd = open((pid_dir + "/cmdline").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0 && text.size() < (1u << 20))
    text.append(buf, static_cast<std::size_t>(n));
  close(fd);
  for (std::size_t start = 0; start < text.size();) {
    auto end = text.find('\0', start);
    if (end == std::string::npos)
      end = text.size();
    if (std::string_view(text).substr(start, end - start) == path)
      return true;
    start = end + 1;
  }
  return false;
}

} // namespace

std::vector<pid_t> processes_running(const std::string& path) {
  std::vector<pid_t> found;
  std::unique_ptr<DIR, int (*)(DIR*)> proc(opendir("/proc"), closedir);
  if (!proc)
    return found;
  const pid_t self = getpid();
  while (const dirent* entry = readdir(proc.get())) {
    std::string_view name = entry->d_name;
    pid_t pid = 0;
    auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
    if (ec != std::errc{} || end != name.data() + name.size() || pid == self)
      continue;
    auto pid_dir = "/proc/" + std::string(name);
    if (executable_is(pid_dir, path) || command_line_holds(pid_dir, path))
      found.push_back(pid);
  }
  return found;
}

} // namespace shimctl::util
