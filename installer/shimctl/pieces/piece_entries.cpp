#include <fcntl.h>
#include <set>
#include <shimctl/pieces/piece_entries.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/text.hpp>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::pieces {

namespace {

std::string list_path(const std::string& cache_dir) {
  return cache_dir + "/" + std::string(entries_file_name);
}

// The distinct paths of the list's TEXT, in their first order.
std::vector<std::string> listed(const std::string& text) {
  std::vector<std::string> paths;
  std::set<std::string> seen;
  for (auto& line : util::lines_of(text))
    if (!line.empty() && seen.insert(line).second)
      paths.push_back(std::move(line));
  return paths;
}

} // namespace

std::string cache_dir_of(const PieceRequest& request) {
  core::CacheSettings settings;
  settings.path = request.cache_tool;
  std::string dir = request.tool->cache_location(settings, {});
  return dir.starts_with('/') ? dir : std::string();
}

void list_piece_entries(const std::string& cache_dir,
                        unsigned umask,
                        const std::vector<std::string>& files) {
  std::string lines;
  for (const auto& file : files)
    if (file.starts_with(cache_dir + "/") && file.find('\n') == std::string::npos)
      lines += file.substr(cache_dir.size() + 1) + "\n";
  if (cache_dir.empty() || lines.empty())
    return;
  int fd = ::open(list_path(cache_dir).c_str(),
                  O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
                  0666 & ~umask);
  if (fd < 0)
    return;
  if (::flock(fd, LOCK_EX) == 0) {
    (void)util::write_all(fd, lines);
    struct stat st {};
    if (::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) > entries_file_pruned_at) {
      std::string kept;
      for (const auto& path : listed(util::read_text_file(list_path(cache_dir))))
        if (::access((cache_dir + "/" + path).c_str(), F_OK) == 0)
          kept += path + "\n";
      if (::ftruncate(fd, 0) == 0)
        (void)util::write_all(fd, kept);
    }
  }
  ::close(fd);
}

std::optional<PieceBytes> piece_entry_bytes(const std::string& cache_dir) {
  struct stat list {};
  if (::lstat(list_path(cache_dir).c_str(), &list) != 0 || !S_ISREG(list.st_mode))
    return std::nullopt;
  PieceBytes bytes;
  for (const auto& path : listed(util::read_text_file(list_path(cache_dir)))) {
    struct stat st {};
    if (::lstat((cache_dir + "/" + path).c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      bytes.bytes += static_cast<std::uint64_t>(st.st_size);
      bytes.files++;
    }
  }
  return bytes;
}

} // namespace shimctl::pieces
