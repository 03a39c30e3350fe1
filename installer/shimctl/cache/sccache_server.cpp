#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <shim/formats.h>
#include <shimctl/cache/sccache_server.hpp>
#include <shimctl/util/proc_users.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/sha256.hpp>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

namespace shimctl::cache {

namespace {

// "0.4.0-pre.6" -> {0, 4}; "0.17.0" -> {0, 17}.
std::pair<int, int> major_minor(const std::string& version) {
  int major = 0, minor = 0;
  (void)std::sscanf(version.c_str(), "%d.%d", &major, &minor);
  return { major, minor };
}

bool running(pid_t pid) {
  return kill(pid, 0) == 0 || errno == EPERM;
}

bool wait_for_exit(pid_t pid, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (running(pid)) {
    if (std::chrono::steady_clock::now() >= deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// The socket PATH of process PID as this process can reach it: PATH itself
// when it is a socket here, else through the process's root (another mount
// namespace: a container's private /tmp), if that fits a socket address.
std::optional<std::string> reachable_socket(pid_t pid, const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode))
    return path;
  auto through_root = fmt::format("/proc/{}/root{}", pid, path);
  if (through_root.size() < SHIMCTL_SUN_PATH_MAX && stat(through_root.c_str(), &st) == 0 &&
      S_ISSOCK(st.st_mode))
    return through_root;
  return std::nullopt;
}

} // namespace

std::string sccache_transport(const core::CacheSettings& settings) {
  auto [major, minor] = major_minor(settings.version);
  return major > 0 || minor >= 9 ? SHIMCTL_SCCACHE_UNIX : SHIMCTL_SCCACHE_TCP;
}

std::string sccache_server_key(const core::CacheSettings& settings) {
  auto key = fmt::format("dir={}\nsize={}\nremote={}\nread-only={}\nsecret={}\n",
                         settings.dir.value_or(""),
                         settings.max_size.value_or(""),
                         settings.remote.value_or(""),
                         settings.remote_read_only ? 1 : 0,
                         settings.secret_id.value_or(""));
  return util::sha256_hex(key).substr(0, SHIMCTL_SCCACHE_KEY_HEX);
}

std::string own_sccache_server(const std::string& transport, const std::string& key) {
  char mount_ns[64] = "";
  auto n = readlink("/proc/self/ns/mnt", mount_ns, sizeof mount_ns - 1);
  mount_ns[n > 0 ? n : 0] = '\0';
  char instance[SHIMCTL_SCCACHE_KEY_HEX + 1];
  shimctl_sccache_instance(instance, key.c_str(), mount_ns);
  if (transport == SHIMCTL_SCCACHE_TCP)
    return fmt::format("SCCACHE_SERVER_PORT={}", shimctl_sccache_port(instance, geteuid()));
  char dir[4096];
  if (!shimctl_private_runtime_dir(dir, sizeof dir))
    return {};
  char name[64];
  shimctl_sccache_file_name(name, sizeof name, 0, instance, ".sock");
  return fmt::format("SCCACHE_SERVER_UDS={}/{}", dir, name);
}

ServerState sccache_server_state(const std::optional<std::string>& uds,
                                 const std::optional<std::string>& port) {
  if (uds) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (uds->size() >= sizeof addr.sun_path)
      return ServerState::not_running;
    std::memcpy(addr.sun_path, uds->c_str(), uds->size() + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool answers = fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    if (fd >= 0)
      close(fd);
    return answers ? ServerState::running : ServerState::not_running;
  }
  switch (shimctl_tcp_listener(port ? static_cast<unsigned>(std::atoi(port->c_str()))
                                    : SHIMCTL_SCCACHE_DEFAULT_PORT)) {
    case SHIMCTL_LISTENER_MINE:
      return ServerState::running;
    case SHIMCTL_LISTENER_OTHER:
      return ServerState::another_users;
    case SHIMCTL_LISTENER_NONE:
      break;
  }
  return ServerState::not_running;
}

std::size_t stop_sccache_servers(const std::string& state_dir,
                                 const std::string& sccache,
                                 int wait_seconds) {
  std::size_t stopped = 0;
  for (pid_t pid : util::processes_with_environment(SHIMCTL_SCCACHE_SERVER_OF "=" + state_dir)) {
    util::RunOptions options;
    options.env["SCCACHE_SERVER_UDS"] = std::nullopt;
    options.env["SCCACHE_SERVER_PORT"] = std::nullopt;
    if (auto uds = util::process_environment_value(pid, "SCCACHE_SERVER_UDS")) {
      if (auto socket = reachable_socket(pid, *uds))
        options.env["SCCACHE_SERVER_UDS"] = *socket;
    } else if (auto port = util::process_environment_value(pid, "SCCACHE_SERVER_PORT")) {
      options.env["SCCACHE_SERVER_PORT"] = *port;
    }
    if (options.env["SCCACHE_SERVER_UDS"] || options.env["SCCACHE_SERVER_PORT"])
      (void)util::run({ sccache, "--stop-server" }, options);
    if (!wait_for_exit(pid, std::chrono::seconds(wait_seconds))) {
      kill(pid, SIGTERM);
      (void)wait_for_exit(pid, std::chrono::seconds(2));
    }
    stopped += running(pid) ? 0 : 1;
  }
  return stopped;
}

} // namespace shimctl::cache
