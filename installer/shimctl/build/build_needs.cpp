#include <filesystem>
#include <fmt/format.h>
#include <shim/formats.h>
#include <shimctl/build/build_needs.hpp>
#include <shimctl/cache/cache_tree.hpp>
#include <shimctl/core/user_cache_dir.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/sha256.hpp>
#include <shimctl/util/text.hpp>
#include <sstream>
#include <sys/stat.h>

namespace shimctl::build {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view needs_dir = "build-needs"; // core::user_cache_dir's

std::string file_name_of(const std::string& dir) {
  return util::sha256_hex(dir).substr(0, 32);
}

} // namespace

std::set<std::string> cache_dirs_in_measure_log(const std::string& text) {
  std::set<std::string> dirs;
  std::istringstream in(text);
  std::string line;
  bool record = false; // the line after the shim's header: KIND DIR
  while (std::getline(in, line)) {
    if (line == SHIMCTL_MEASURE_CACHE_DIR) {
      record = true;
      continue;
    }
    if (!std::exchange(record, false))
      continue;
    auto space = line.find(' ');
    if (space != std::string::npos && line.size() > space + 1 && line[space + 1] == '/')
      dirs.insert(line.substr(space + 1));
  }
  return dirs;
}

BuildNeed build_need(const std::string& dir, long long since_ns) {
  BuildNeed need{ dir, 0, 0, 0 };
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec < since_ns)
      continue;
    if (!cache::travels(it->path().lexically_relative(dir).string()))
      continue;
    need.bytes += static_cast<std::uint64_t>(st.st_size);
    need.files++;
  }
  return need;
}

void keep_build_need(const BuildNeed& need) {
  auto made = core::make_user_cache_dir(needs_dir);
  if (!made)
    return;
  if (auto dir = util::Dir::open(*made))
    (void)dir->write_atomic(
      file_name_of(need.dir),
      fmt::format("{}\n{}\n{}\n{}\n", need.bytes, need.files, need.measured, need.dir),
      0600);
}

std::optional<BuildNeed> kept_build_need(const std::string& dir) {
  std::string home = core::user_cache_dir(needs_dir);
  if (home.empty())
    return std::nullopt;
  auto lines = util::lines_of(util::read_text_file(fmt::format("{}/{}", home, file_name_of(dir))));
  if (lines.size() < 4 || lines[3] != dir || !util::all_digits(lines[0]) ||
      !util::all_digits(lines[1]) || !util::all_digits(lines[2]))
    return std::nullopt;
  return BuildNeed{ dir,
                    std::stoull(std::string(lines[0])),
                    std::stoull(std::string(lines[1])),
                    std::stoll(std::string(lines[2])) };
}

} // namespace shimctl::build
