#include <algorithm>
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

// The NUL-separated strings of FILE (/proc/PID/cmdline or environ), at most 1 MiB.
std::vector<std::string> strings_of(const std::string& file) {
  std::vector<std::string> strings;
  int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return strings;
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
    strings.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return strings;
}

bool holds(const std::vector<std::string>& strings, const std::string& s) {
  return std::find(strings.begin(), strings.end(), s) != strings.end();
}

// The processes (other than this one) for which MATCHES("/proc/PID") is true.
template<typename Match>
std::vector<pid_t> processes_where(Match matches) {
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
    if (matches("/proc/" + std::string(name)))
      found.push_back(pid);
  }
  return found;
}

} // namespace

std::vector<pid_t> processes_running(const std::string& path) {
  return processes_where([&](const std::string& pid_dir) {
    return executable_is(pid_dir, path) || holds(strings_of(pid_dir + "/cmdline"), path);
  });
}

std::vector<pid_t> processes_with_environment(const std::string& entry) {
  return processes_where(
    [&](const std::string& pid_dir) { return holds(strings_of(pid_dir + "/environ"), entry); });
}

std::optional<std::string> process_environment_value(pid_t pid, const std::string& name) {
  for (const auto& entry : strings_of("/proc/" + std::to_string(pid) + "/environ"))
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=')
      return entry.substr(name.size() + 1);
  return std::nullopt;
}

} // namespace shimctl::util
