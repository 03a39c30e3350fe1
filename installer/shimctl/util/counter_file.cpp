#include <cerrno>
#include <charconv>
#include <fcntl.h>
#include <fmt/format.h>
#include <shimctl/util/counter_file.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/text.hpp>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::util {

namespace {

Counts counts_in(const std::string& text) {
  Counts counts;
  for (const auto& line : lines_of(text)) {
    auto fields = words_of(line);
    std::uint64_t value = 0;
    if (fields.size() == 2 &&
        std::from_chars(fields[1].data(), fields[1].data() + fields[1].size(), value).ec ==
          std::errc{})
      counts[std::string(fields[0])] += value;
  }
  return counts;
}

} // namespace

std::uint64_t count_in(const Counts& counts, std::string_view name) {
  auto it = counts.find(std::string(name));
  return it == counts.end() ? 0 : it->second;
}

void add_to_counter_file(const std::string& path, unsigned umask, const Counts& add) {
  // Made as the files beside it are made (UMASK): in a group's shared cache, writable by the
  // group too.
  mode_t old_umask = ::umask(static_cast<mode_t>(umask & 0777));
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
  ::umask(old_umask);
  if (fd < 0)
    return;
  if (::flock(fd, LOCK_EX) == 0) {
    std::string text;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0)
      text.append(buf, static_cast<std::size_t>(n));
    Counts counts = counts_in(text);
    for (const auto& [name, value] : add)
      counts[name] += value;
    std::string out;
    for (const auto& [name, value] : counts)
      out += fmt::format("{} {}\n", name, value);
    if (::lseek(fd, 0, SEEK_SET) == 0 && ::ftruncate(fd, 0) == 0)
      (void)write_all(fd, out);
  }
  ::close(fd); // releases the lock
}

Counts read_counter_file(const std::string& path) {
  return counts_in(read_text_file(path));
}

} // namespace shimctl::util
