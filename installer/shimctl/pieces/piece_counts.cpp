#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <fcntl.h>
#include <fmt/format.h>
#include <shimctl/pieces/piece_counts.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/text.hpp>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::pieces {

namespace {

PieceCounts parse_counts(const std::string& text) {
  PieceCounts counts;
  for (const auto& line : util::lines_of(text)) {
    auto fields = util::words_of(line);
    std::uint64_t value = 0;
    if (fields.size() == 2 &&
        std::from_chars(fields[1].data(), fields[1].data() + fields[1].size(), value).ec ==
          std::errc{})
      counts[std::string(fields[0])] += value;
  }
  return counts;
}

} // namespace

std::uint64_t count_of(const PieceCounts& counts, std::string_view name) {
  auto it = counts.find(std::string(name));
  return it == counts.end() ? 0 : it->second;
}

void add_counts(const std::string& cache_dir, unsigned umask, const PieceCounts& add) {
  if (cache_dir.empty())
    return;
  std::string path = fmt::format("{}/{}", cache_dir, counts_file_name);
  // Made as the cache tool makes its own files there (UMASK): in a group's shared cache,
  // writable by the group too.
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
    PieceCounts counts = parse_counts(text);
    for (const auto& [name, value] : add)
      counts[name] += value;
    std::string out;
    for (const auto& [name, value] : counts)
      out += fmt::format("{} {}\n", name, value);
    if (::lseek(fd, 0, SEEK_SET) == 0 && ::ftruncate(fd, 0) == 0)
      (void)util::write_all(fd, out);
  }
  ::close(fd); // releases the lock
}

PieceCounts read_counts(const std::string& cache_dir) {
  return parse_counts(util::read_text_file(fmt::format("{}/{}", cache_dir, counts_file_name)));
}

std::uint64_t tool_hits_of(const PieceCounts& counts) {
  return count_of(counts, piece_hit) + count_of(counts, host_hit);
}

std::uint64_t tool_misses_of(const PieceCounts& counts) {
  return count_of(counts, piece_miss) + count_of(counts, host_miss);
}

PieceCounts counts_in_measure_log(const std::string& text, std::string_view tool) {
  PieceCounts counts;
  auto lines = util::lines_of(text);
  for (std::size_t i = 0; i + 1 < lines.size(); i++) {
    if (lines[i] != measure_record)
      continue;
    auto words = util::words_of(lines[i + 1]);
    if (!words.empty() && (tool.empty() || (words.size() > 2 && words[2] == tool)))
      counts[std::string(words[0])]++;
  }
  return counts;
}

void record_for_measure(const std::string& log,
                        std::string_view counter,
                        std::string_view target,
                        std::string_view tool) {
  int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0)
    return;
  (void)util::write_all(fd, fmt::format("{}\n{} {} {}\n", measure_record, counter, target, tool));
  ::close(fd);
}

} // namespace shimctl::pieces
