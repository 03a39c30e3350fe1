#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <shimctl/records/file_hashes.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/sha256.hpp>
#include <shimctl/util/text.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::records {

namespace {

constexpr std::size_t memo_max_bytes = 8U << 20;
constexpr std::int64_t racy_ns = 2'000'000'000;

std::int64_t ns_of(const struct timespec& t) {
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

} // namespace

FileHashes::FileHashes(std::string memo_path)
  : memo_path_(std::move(memo_path)) {
  std::string text = util::read_text_file(memo_path_);
  loaded_bytes_ = text.size();
  std::string_view rest(text);
  while (!rest.empty()) {
    auto newline = rest.find('\n');
    if (newline == std::string_view::npos)
      break; // cut short
    std::string_view line = rest.substr(0, newline);
    rest.remove_prefix(newline + 1);
    // "inode size mtime ctime sha path": the path is the rest of the line
    std::size_t at = 0;
    for (int field = 0; field < 5 && at != std::string_view::npos; ++field)
      at = line.find(' ', field == 0 ? 0 : at + 1);
    if (at == std::string_view::npos || at < 17)
      continue;
    known_[std::string(line.substr(at + 1))] = { std::string(line.substr(0, at - 17)),
                                                 std::string(line.substr(at - 16, 16)) };
  }
}

std::string FileHashes::hash(const std::string& path) {
  struct stat st {};
  auto stat_text = [&st] {
    return fmt::format("{} {} {} {}", st.st_ino, st.st_size, ns_of(st.st_mtim), ns_of(st.st_ctim));
  };
  // A remembered file whose stat data match: one stat, not an open.
  if (auto it = known_.find(path);
      it != known_.end() && ::stat(path.c_str(), &st) == 0 && it->second.stat == stat_text())
    return it->second.sha;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return {};
  }
  auto digest = util::sha256_fd(fd);
  ::close(fd);
  if (!digest)
    return {};
  std::string sha = digest->substr(0, 16);
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  bool racy = ns_of(now) - std::max(ns_of(st.st_mtim), ns_of(st.st_ctim)) < racy_ns;
  if (!racy && path.find('\n') == std::string::npos) {
    known_[path] = { stat_text(), sha };
    added_ += fmt::format("{} {} {}\n", stat_text(), sha, path);
  }
  return sha;
}

void FileHashes::save() {
  if (added_.empty() || memo_path_.empty())
    return;
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW;
  flags |= loaded_bytes_ + added_.size() > memo_max_bytes ? O_TRUNC : O_APPEND;
  int fd = ::open(memo_path_.c_str(), flags, 0600);
  if (fd < 0)
    return;
  (void)util::write_all(fd, added_); // one write: parallel misses' lines stay whole
  ::close(fd);
  added_.clear();
}

} // namespace shimctl::records
