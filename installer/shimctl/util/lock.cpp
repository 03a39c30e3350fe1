#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <shimctl/util/lock.hpp>
#include <sstream>
#include <string>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <thread>
#include <unistd.h>

namespace shimctl::util {

namespace {

// FD is still the file linked as NAME in DIR: the holder before us may have
// removed it (rollback removes the state directory), and only a lock on the
// linked file counts.
bool holds_linked_file(const Dir& dir, const std::string& name, int fd) {
  struct stat held {
  }, now{};
  return ::fstat(fd, &held) == 0 &&
         ::fstatat(dir.fd(), name.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 &&
         held.st_ino == now.st_ino && held.st_dev == now.st_dev;
}

// Who holds a lock on the file open as FD (identity helpers do not write
// their pid into the file).
std::vector<FlockHolder> holders_of(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return {};
  std::ifstream in("/proc/locks");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_flock_holders(text, st.st_dev, st.st_ino);
}

std::string pid_in_file(int fd) {
  char buffer[32] = {};
  ssize_t r = ::pread(fd, buffer, sizeof buffer - 1, 0);
  std::string pid = r > 0 ? std::string(buffer, static_cast<std::size_t>(r)) : "?";
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' '))
    pid.pop_back();
  return pid;
}

} // namespace

std::vector<FlockHolder> parse_flock_holders(std::string_view text, dev_t dev, ino_t ino) {
  // "1: FLOCK  ADVISORY  WRITE 1234 00:1f:5678 0 EOF"; a waiter's line has
  // "->" after the number.
  std::string wanted = fmt::format("{:02x}:{:02x}:{}", major(dev), minor(dev), ino);
  std::vector<FlockHolder> holders;
  std::istringstream lines{ std::string(text) };
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string number, kind, advisory, mode, pid, file;
    if (!(fields >> number >> kind >> advisory >> mode >> pid >> file) || kind != "FLOCK" ||
        file != wanted)
      continue;
    holders.push_back({ static_cast<pid_t>(std::atol(pid.c_str())), mode == "WRITE" });
  }
  return holders;
}

FileLock::~FileLock() {
  if (fd_ >= 0)
    ::close(fd_); // releases the lock
}

FileLock::FileLock(FileLock&& other) noexcept
  : fd_(std::exchange(other.fd_, -1)) {}

Result<FileLock> FileLock::acquire(const Dir& dir,
                                   std::string_view name,
                                   std::optional<std::chrono::milliseconds> wait) {
  auto start = std::chrono::steady_clock::now();
  auto deadline = start + wait.value_or(std::chrono::milliseconds(0));
  auto helper_deadline = std::max(deadline, start + helper_grace);
  std::string n(name);
  while (true) {
    int fd = ::openat(dir.fd(), n.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
      return fail("cannot open lock {}: {}", dir.path_of(name), errno_text(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      if (holds_linked_file(dir, n, fd)) {
        std::string pid = std::to_string(::getpid()) + "\n";
        if (::ftruncate(fd, 0) == 0 && ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
          // The pid is informational only.
        }
        FileLock lock;
        lock.fd_ = fd;
        return lock;
      }
      ::close(fd);
      continue;
    }
    auto holders = holders_of(fd);
    auto command = std::find_if(
      holders.begin(), holders.end(), [](const FlockHolder& h) { return h.exclusive; });
    std::string holder = pid_in_file(fd); // what the command wrote, once it got the lock
    ::close(fd);
    auto now = std::chrono::steady_clock::now();
    if (command == holders.end() && now < helper_deadline) {
      // Identity helpers only (or a holder that has just let go).
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    if (now >= deadline) {
      return fail(ExitCode::busy,
                  "{} is busy: another shimctl (pid {}) is working on it; retry, or pass --wait "
                  "SECONDS",
                  dir.path(),
                  holder);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::optional<FileLock> FileLock::try_shared_existing(const Dir& dir, std::string_view name) {
  std::string n(name);
  int fd = ::openat(dir.fd(), n.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0 || !holds_linked_file(dir, n, fd)) {
    ::close(fd);
    return std::nullopt;
  }
  FileLock lock;
  lock.fd_ = fd;
  return lock;
}

} // namespace shimctl::util
