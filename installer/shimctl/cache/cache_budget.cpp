#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <shimctl/cache/cache_budget.hpp>
#include <shimctl/cache/cache_tree.hpp>
#include <shimctl/records/cache_fullness.hpp>
#include <shimctl/util/text.hpp>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::cache {

namespace fs = std::filesystem;

std::optional<CacheBudget> budget_of(std::string_view max_size, const std::string& tool_path) {
  auto bytes = records::parse_size(max_size);
  if (!bytes || *bytes == 0)
    return std::nullopt;
  return CacheBudget{ *bytes, fmt::format("{}k", *bytes * parts_limit_multiple / 1000), tool_path };
}

std::string budget_value(const CacheBudget& budget) {
  return fmt::format("{} {} {}", budget.bytes, budget.tool_limit, budget.tool_path);
}

std::optional<CacheBudget> parse_budget(std::string_view text) {
  auto first = text.find(' ');
  auto second = first == std::string_view::npos ? first : text.find(' ', first + 1);
  if (second == std::string_view::npos || second + 1 >= text.size())
    return std::nullopt;
  std::uint64_t bytes = 0;
  auto digits = text.substr(0, first);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bytes);
  if (ec != std::errc() || end != digits.data() + digits.size() || bytes == 0)
    return std::nullopt;
  return CacheBudget{ bytes,
                      std::string(text.substr(first + 1, second - first - 1)),
                      std::string(text.substr(second + 1)) };
}

std::optional<std::int64_t> eviction_age(std::vector<CacheEntryFile> files,
                                         std::uint64_t bytes_left,
                                         std::int64_t now) {
  std::ranges::sort(files, [](const auto& a, const auto& b) { return a.used > b.used; });
  std::uint64_t kept = 0;
  for (const auto& file : files) {
    if (kept + file.bytes > bytes_left) {
      // The tool evicts what it last used before (its now) - AGE: this file's second goes, and
      // with the tool's now a little later, perhaps the next second's. Never the last 2 s.
      if (file.used >= now - 2)
        return std::nullopt;
      return now - file.used - 1;
    }
    kept += file.bytes;
  }
  return std::nullopt;
}

namespace {

// The cache's entry files under DIR: not its statistics, locks, configuration, tmp/, nor
// shimctl's own files beside them.
std::vector<CacheEntryFile> entry_files(const std::string& dir) {
  std::vector<CacheEntryFile> files;
  std::error_code error;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, error);
  for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    const auto& path = it->path();
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        !travels(fs::relative(path, dir, error).string()))
      continue;
    files.push_back({ st.st_mtim.tv_sec, static_cast<std::uint64_t>(st.st_blocks) * 512 });
  }
  return files;
}

} // namespace

void supersede(const std::vector<std::string>& files) {
  const struct timespec times[2] = { { 0, UTIME_OMIT }, { superseded_used, 0 } };
  for (const auto& file : files)
    (void)::utimensat(AT_FDCWD, file.c_str(), times, AT_SYMLINK_NOFOLLOW);
}

void keep_budget_after_miss(std::string_view tool_name) {
  const Tool* tool = tool_named(tool_name);
  const char* text = std::getenv(std::string(budget_variable).c_str());
  if (!tool || !tool->cleans_by_parts() || !text)
    return;
  auto budget = parse_budget(text);
  if (!budget)
    return;
  core::CacheSettings settings;
  settings.kind = std::string(tool_name);
  settings.path = budget->tool_path;
  if (tool->limit_in_environment() != budget->tool_limit) // the user's own limit wins
    return;
  try {
    util::RunOptions options;
    auto stats = tool->read_stats(settings, options);
    if (!stats || tool->cache_bytes_of(*stats) <= budget->bytes)
      return;
    std::string dir = tool->cache_location(settings, options);
    if (!dir.starts_with('/'))
      return;
    // One eviction at a time; a miss that finds one running leaves it to it.
    int lock = ::open((dir + "/shimctl-budget.lock").c_str(),
                      O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
                      0666 & ~tool->file_umask());
    if (lock < 0)
      return;
    if (::flock(lock, LOCK_EX | LOCK_NB) == 0) {
      auto age = eviction_age(entry_files(dir),
                              budget->bytes * evicted_down_to_percent / 100,
                              static_cast<std::int64_t>(std::time(nullptr)));
      if (age)
        (void)tool->evict_older_than(settings, dir, *age);
    }
    ::close(lock);
  } catch (const std::exception&) { // never worth a failed compile
  }
}

} // namespace shimctl::cache
