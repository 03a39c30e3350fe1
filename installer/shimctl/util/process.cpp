#include <arpa/inet.h>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <shimctl/util/process.hpp>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace shimctl::util {

namespace {

std::vector<std::string> child_environment(const RunOptions& options) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    std::string_view entry = *e;
    auto eq = entry.find('=');
    if (eq != std::string_view::npos)
      vars[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
  }
  for (const auto& [name, value] : options.env) {
    if (value)
      vars[name] = *value;
    else
      vars.erase(name);
  }
  std::vector<std::string> out;
  for (const auto& [name, value] : vars)
    out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Pumps stdin data in and both outputs out until the child closes them.
void pump(int in_fd, std::string_view input, int out_fd, int err_fd, RunResult& result) {
  std::size_t written = 0;
  if (input.empty() && in_fd >= 0) {
    ::close(in_fd);
    in_fd = -1;
  }
  while (out_fd >= 0 || err_fd >= 0) {
    pollfd fds[3];
    int n = 0;
    if (out_fd >= 0)
      fds[n++] = { out_fd, POLLIN, 0 };
    if (err_fd >= 0)
      fds[n++] = { err_fd, POLLIN, 0 };
    if (in_fd >= 0)
      fds[n++] = { in_fd, POLLOUT, 0 };
    if (::poll(fds, static_cast<nfds_t>(n), -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    for (int i = 0; i < n; ++i) {
      if (!fds[i].revents)
        continue;
      int fd = fds[i].fd;
      if (fd == in_fd) {
        ssize_t w = ::write(in_fd, input.data() + written, input.size() - written);
        if (w > 0)
          written += static_cast<std::size_t>(w);
        if (w < 0 || written == input.size()) {
          ::close(in_fd);
          in_fd = -1;
        }
        continue;
      }
      char buffer[65536];
      ssize_t r = ::read(fd, buffer, sizeof buffer);
      if (r > 0) {
        (fd == out_fd ? result.out : result.err).append(buffer, static_cast<std::size_t>(r));
      } else if (r == 0 || errno != EINTR) {
        ::close(fd);
        (fd == out_fd ? out_fd : err_fd) = -1;
      }
    }
  }
  if (in_fd >= 0)
    ::close(in_fd);
}

} // namespace

std::string self_executable() {
  char buffer[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string find_in_path(const std::string& name) {
  if (name.find('/') != std::string::npos)
    return name;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    auto end = std::min(dirs.find(':', start), dirs.size());
    std::string dir(dirs.substr(start, end - start));
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (is_executable_file(candidate))
      return candidate;
    start = end + 1;
  }
  return "";
}

Result<RunResult> run(const std::vector<std::string>& argv, const RunOptions& options) {
  if (argv.empty())
    return fail("internal error: empty command");
  std::string program = find_in_path(argv[0]);
  if (program.empty())
    return fail("{} not found in PATH", argv[0]);

  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(err_pipe, O_CLOEXEC) != 0)
    return fail("pipe: {}", std::strerror(errno));
  // The parent must not die of SIGPIPE when a child exits without reading stdin.
  ::signal(SIGPIPE, SIG_IGN);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  if (!options.cwd.empty())
    posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());

  std::vector<std::string> args = argv;
  if (!options.argv0.empty())
    args[0] = options.argv0;
  auto arg_ptrs = pointers(args);
  auto env = child_environment(options);
  auto env_ptrs = pointers(env);

  pid_t pid = 0;
  int rc =
    ::posix_spawn(&pid, program.c_str(), &actions, nullptr, arg_ptrs.data(), env_ptrs.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return fail("cannot run {}: {}", program, std::strerror(rc));
  }
  RunResult result;
  pump(in_pipe[1], options.stdin_data, out_pipe[0], err_pipe[0], result);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

Result<int> free_tcp_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return fail("cannot open a socket: {}", std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0)
    port = ntohs(address.sin_port);
  ::close(fd);
  if (port <= 0)
    return fail("no free TCP port on 127.0.0.1: {}", std::strerror(errno));
  return port;
}

} // namespace shimctl::util
