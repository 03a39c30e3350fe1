#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <fcntl.h>
#include <fmt/format.h>
#include <shimctl/pieces/piece_counts.hpp>
#include <shimctl/util/counter_file.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/text.hpp>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::pieces {

std::uint64_t count_of(const PieceCounts& counts, std::string_view name) {
  return util::count_in(counts, name);
}

void add_counts(const std::string& cache_dir, unsigned umask, const PieceCounts& add) {
  if (!cache_dir.empty())
    util::add_to_counter_file(fmt::format("{}/{}", cache_dir, counts_file_name), umask, add);
}

PieceCounts read_counts(const std::string& cache_dir) {
  return util::read_counter_file(fmt::format("{}/{}", cache_dir, counts_file_name));
}

std::uint64_t tool_hits_of(const PieceCounts& counts) {
  return count_of(counts, piece_hit) + count_of(counts, host_hit) + count_of(counts, lookup_hit);
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
