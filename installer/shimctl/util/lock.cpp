#include <cerrno>
#include <fcntl.h>
#include <shimctl/util/lock.hpp>
#include <string>
#include <sys/file.h>
#include <sys/stat.h>
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

} // namespace

FileLock::~FileLock() {
  if (fd_ >= 0)
    ::close(fd_); // releases the lock
}

FileLock::FileLock(FileLock&& other) noexcept
  : fd_(std::exchange(other.fd_, -1)) {}

Result<FileLock> FileLock::acquire(const Dir& dir,
                                   std::string_view name,
                                   std::optional<std::chrono::milliseconds> wait) {
  auto deadline = std::chrono::steady_clock::now() + wait.value_or(std::chrono::milliseconds(0));
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
    char buffer[32] = {};
    ssize_t r = ::pread(fd, buffer, sizeof buffer - 1, 0);
    ::close(fd);
    std::string holder = r > 0 ? std::string(buffer, static_cast<std::size_t>(r)) : "?";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' '))
      holder.pop_back();
    if (std::chrono::steady_clock::now() >= deadline) {
      return fail(ExitCode::busy,
                  "{} is busy: another shimctl (pid {}) is working on it; retry, or pass --wait "
                  "SECONDS",
                  dir.path(),
                  holder);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::optional<FileLock> FileLock::try_existing(const Dir& dir, std::string_view name) {
  std::string n(name);
  int fd = ::openat(dir.fd(), n.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0 || !holds_linked_file(dir, n, fd)) {
    ::close(fd);
    return std::nullopt;
  }
  FileLock lock;
  lock.fd_ = fd;
  return lock;
}

} // namespace shimctl::util
