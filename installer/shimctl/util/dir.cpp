#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <random>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/sha256.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::util {

namespace {

FileKind kind_of(mode_t mode) {
  if (S_ISREG(mode))
    return FileKind::file;
  if (S_ISLNK(mode))
    return FileKind::symlink;
  if (S_ISDIR(mode))
    return FileKind::directory;
  return FileKind::other;
}

std::string temp_name(std::string_view name) {
  static std::mt19937_64 rng{ std::random_device{}() };
  return fmt::format(".{}.shimctl-tmp.{:08x}", name, static_cast<unsigned>(rng()));
}

Status check_name(std::string_view name) {
  if (!is_plain_name(name))
    return fail(ExitCode::corrupt, "invalid file name '{}'", name);
  return {};
}

} // namespace

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string errno_text(int err) {
  return std::strerror(err);
}

bool is_plain_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

bool is_clean_relative(std::string_view relative) {
  if (relative.empty() || relative.front() == '/')
    return false;
  std::size_t start = 0;
  while (start <= relative.size()) {
    auto end = relative.find('/', start);
    if (end == std::string_view::npos)
      end = relative.size();
    if (!is_plain_name(relative.substr(start, end - start)))
      return false;
    start = end + 1;
  }
  return true;
}

std::pair<std::string, std::string> split_relative(std::string_view relative) {
  auto slash = relative.rfind('/');
  if (slash == std::string_view::npos)
    return { "", std::string(relative) };
  return { std::string(relative.substr(0, slash)), std::string(relative.substr(slash + 1)) };
}

Result<std::string> real_path(const std::string& path) {
  char buffer[PATH_MAX];
  if (!::realpath(path.c_str(), buffer))
    return fail(ExitCode::usage, "{}: {}", path, errno_text(errno));
  return std::string(buffer);
}

Dir::~Dir() {
  if (fd_ >= 0)
    ::close(fd_);
}

Dir::Dir(Dir&& other) noexcept
  : fd_(std::exchange(other.fd_, -1))
  , path_(std::move(other.path_)) {}

Dir& Dir::operator=(Dir&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

Result<Dir> Dir::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return fail(ExitCode::usage, "cannot open directory {}: {}", path, errno_text(errno));
  return Dir(fd, path);
}

Result<Dir> Dir::open_relative(std::string_view relative) const {
  if (relative.empty() || relative == ".") {
    int fd = ::fcntl(fd_, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
      return fail("dup: {}", errno_text(errno));
    return Dir(fd, path_);
  }
  if (!is_clean_relative(relative))
    return fail(ExitCode::corrupt, "path '{}' is not a clean relative path", relative);
  int current = fd_;
  int owned = -1;
  std::string path = path_;
  std::size_t start = 0;
  while (start < relative.size()) {
    auto end = std::min(relative.find('/', start), relative.size());
    std::string component(relative.substr(start, end - start));
    int next =
      ::openat(current, component.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int err = errno;
    if (owned >= 0)
      ::close(owned);
    if (next < 0)
      return fail("cannot open directory {}/{}: {}",
                  path,
                  component,
                  err == ELOOP || err == ENOTDIR ? "not a directory (or a symlink)"
                                                 : errno_text(err));
    owned = current = next;
    path += "/" + component;
    start = end + 1;
  }
  return Dir(owned, path);
}

std::string Dir::path_of(std::string_view name) const {
  return path_ == "/" ? fmt::format("/{}", name) : fmt::format("{}/{}", path_, name);
}

Result<std::optional<FileStat>> Dir::stat(std::string_view name) const {
  TRY(check_name(name));
  struct stat st {};
  if (::fstatat(fd_, std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT)
      return std::optional<FileStat>{};
    return fail("cannot stat {}: {}", path_of(name), errno_text(errno));
  }
  FileStat fs;
  fs.kind = kind_of(st.st_mode);
  fs.mode = st.st_mode & 07777;
  fs.uid = st.st_uid;
  fs.gid = st.st_gid;
  fs.size = static_cast<std::uint64_t>(st.st_size);
  fs.dev = st.st_dev;
  fs.ino = st.st_ino;
  fs.nlink = st.st_nlink;
  return std::optional<FileStat>{ fs };
}

Result<std::string> Dir::read_link(std::string_view name) const {
  TRY(check_name(name));
  char buffer[PATH_MAX];
  ssize_t n = ::readlinkat(fd_, std::string(name).c_str(), buffer, sizeof buffer);
  if (n < 0)
    return fail("cannot read link {}: {}", path_of(name), errno_text(errno));
  return std::string(buffer, static_cast<std::size_t>(n));
}

Result<std::string> Dir::read_file(std::string_view name, std::size_t max_size) const {
  TRY(check_name(name));
  int fd = ::openat(fd_, std::string(name).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return fail("cannot read {}: {}", path_of(name), errno_text(errno));
  std::string data;
  char buffer[65536];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return fail("cannot read {}: {}", path_of(name), errno_text(err));
    }
    if (n == 0)
      break;
    data.append(buffer, static_cast<std::size_t>(n));
    if (data.size() > max_size) {
      ::close(fd);
      return fail(ExitCode::corrupt, "{} is larger than {} bytes", path_of(name), max_size);
    }
  }
  ::close(fd);
  return data;
}

Result<std::string> Dir::sha256(std::string_view name) const {
  TRY(check_name(name));
  int fd = ::openat(fd_, std::string(name).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return fail("cannot read {}: {}", path_of(name), errno_text(errno));
  auto digest = sha256_fd(fd);
  ::close(fd);
  if (!digest)
    return fail("cannot hash {}: {}", path_of(name), digest.error().message);
  return digest;
}

Result<std::vector<std::string>> Dir::list() const {
  int fd = ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return fail("cannot list {}: {}", path_, errno_text(errno));
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return fail("cannot list {}: {}", path_, errno_text(errno));
  }
  std::vector<std::string> names;
  while (auto* entry = ::readdir(d)) {
    std::string_view n = entry->d_name;
    if (n != "." && n != "..")
      names.emplace_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

Status Dir::write_atomic(std::string_view name,
                         std::string_view data,
                         mode_t mode,
                         std::optional<std::pair<uid_t, gid_t>> owner) {
  TRY(check_name(name));
  std::string tmp = temp_name(name);
  int fd = ::openat(fd_, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return fail("cannot create a file in {}: {}", path_, errno_text(errno));
  auto abandon = [&](int err, std::string_view what) {
    ::close(fd);
    ::unlinkat(fd_, tmp.c_str(), 0);
    return fail("cannot write {}: {} ({})", path_of(name), errno_text(err), what);
  };
  if (!write_all(fd, data))
    return abandon(errno, "write");
  if (owner && ::fchown(fd, owner->first, owner->second) != 0)
    return abandon(errno, "chown");
  if (::fchmod(fd, mode) != 0)
    return abandon(errno, "chmod");
  if (::fsync(fd) != 0)
    return abandon(errno, "fsync");
  if (::close(fd) != 0) {
    int err = errno;
    ::unlinkat(fd_, tmp.c_str(), 0);
    return fail("cannot write {}: {}", path_of(name), errno_text(err));
  }
  if (::renameat(fd_, tmp.c_str(), fd_, std::string(name).c_str()) != 0) {
    int err = errno;
    ::unlinkat(fd_, tmp.c_str(), 0);
    return fail("cannot rename into {}: {}", path_of(name), errno_text(err));
  }
  return sync();
}

Status Dir::link(std::string_view from, std::string_view to) const {
  TRY(check_name(from));
  TRY(check_name(to));
  if (::linkat(fd_, std::string(from).c_str(), fd_, std::string(to).c_str(), 0) != 0)
    return fail("cannot link {} to {}: {}", path_of(from), path_of(to), errno_text(errno));
  return {};
}

Status Dir::rename(std::string_view from, std::string_view to) const {
  TRY(check_name(from));
  TRY(check_name(to));
  if (::renameat(fd_, std::string(from).c_str(), fd_, std::string(to).c_str()) != 0)
    return fail("cannot rename {} to {}: {}", path_of(from), path_of(to), errno_text(errno));
  return {};
}

Status Dir::symlink(std::string_view target, std::string_view name) const {
  TRY(check_name(name));
  if (::symlinkat(std::string(target).c_str(), fd_, std::string(name).c_str()) != 0)
    return fail("cannot create symlink {}: {}", path_of(name), errno_text(errno));
  return {};
}

Status Dir::remove(std::string_view name) const {
  TRY(check_name(name));
  if (::unlinkat(fd_, std::string(name).c_str(), 0) != 0 && errno != ENOENT)
    return fail("cannot remove {}: {}", path_of(name), errno_text(errno));
  return {};
}

Status Dir::remove_dir(std::string_view name) const {
  TRY(check_name(name));
  if (::unlinkat(fd_, std::string(name).c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
    return fail("cannot remove directory {}: {}", path_of(name), errno_text(errno));
  return {};
}

Status Dir::make_dir(std::string_view name, mode_t mode) const {
  TRY(check_name(name));
  if (::mkdirat(fd_, std::string(name).c_str(), mode) != 0 && errno != EEXIST)
    return fail("cannot create directory {}: {}", path_of(name), errno_text(errno));
  return {};
}

Status Dir::sync() const {
  if (::fsync(fd_) != 0)
    return fail("cannot fsync {}: {}", path_, errno_text(errno));
  return {};
}

} // namespace shimctl::util
