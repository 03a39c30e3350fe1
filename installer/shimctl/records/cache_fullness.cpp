#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <shimctl/records/cache_fullness.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/text.hpp>

namespace shimctl::records {

namespace fs = std::filesystem;

std::optional<std::uint64_t> parse_size(std::string_view text) {
  while (!text.empty() && text.back() == ' ')
    text.remove_suffix(1);
  double number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || !(number >= 0)) // NaN too
    return std::nullopt;
  std::string_view suffix(end, static_cast<std::size_t>(text.data() + text.size() - end));
  if (suffix.ends_with("B"))
    suffix.remove_suffix(1);
  bool binary = suffix.ends_with("i");
  if (binary)
    suffix.remove_suffix(1);
  double base = binary ? 1024.0 : 1000.0;
  double scale = 1;
  if (suffix.empty())
    scale = base * base * base; // ccache: no suffix is G
  else if (suffix == "k" || suffix == "K")
    scale = base;
  else if (suffix == "M")
    scale = base * base;
  else if (suffix == "G")
    scale = base * base * base;
  else if (suffix == "T")
    scale = base * base * base * base;
  else
    return std::nullopt;
  if (!(number * scale < 0x1p64)) // infinity, or more than 64 bits hold: not a size
    return std::nullopt;
  return static_cast<std::uint64_t>(number * scale);
}

namespace {

std::string default_cache_dir(const std::string& tool) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::string base = xdg && *xdg ? xdg : home ? std::string(home) + "/.cache" : "";
  return base.empty() ? "" : base + (tool == "sccache" ? "/sccache" : "/ccache");
}

std::optional<std::uint64_t> configured_max(const std::string& dir) {
  for (const auto& line : util::lines_of(util::read_text_file(dir + "/ccache.conf"))) {
    std::string_view l(line);
    if (!l.starts_with("max_size"))
      continue;
    auto eq = l.find('=');
    if (eq == std::string_view::npos)
      continue;
    l.remove_prefix(eq + 1);
    while (!l.empty() && l.front() == ' ')
      l.remove_prefix(1);
    return parse_size(l);
  }
  return std::nullopt;
}

std::uint64_t bytes_under(const std::string& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec))
    if (it->is_regular_file(ec))
      total += it->file_size(ec);
  return total;
}

// ccache's count of cleanups in DIR (`ccache --print-stats`), 0 when unknown or another tool.
std::uint64_t ccache_cleanups(const std::string& tool, const std::string& dir) {
  if (tool != "ccache")
    return 0;
  util::RunOptions options;
  options.env["CCACHE_DIR"] = dir;
  auto run = util::run({ "ccache", "--print-stats" }, options);
  if (!run || !run->ok())
    return 0;
  for (const auto& line : util::lines_of(run->out)) {
    auto words = util::words_of(line);
    if (words.size() == 2 && words[0] == "cleanups_performed" && util::all_digits(words[1]))
      return std::stoull(std::string(words[1]));
  }
  return 0;
}

} // namespace

std::optional<CacheFullness> cache_fullness(const CompileRecord& record) {
  std::string dir = record.cache_dir.empty() ? default_cache_dir(record.tool) : record.cache_dir;
  if (dir.empty() || !fs::is_directory(dir))
    return std::nullopt;
  // Walked and asked once per directory and process: measure explains every miss of a build.
  static std::map<std::string, CacheFullness> seen;
  auto [it, added] = seen.try_emplace(dir);
  if (added)
    it->second = { bytes_under(dir), 0, ccache_cleanups(record.tool, dir) };
  CacheFullness fullness = it->second;
  auto max = record.max_size.empty() ? configured_max(dir) : parse_size(record.max_size);
  fullness.max = max ? *max : parse_size(record.tool == "sccache" ? "10G" : "5G").value_or(0);
  return fullness;
}

} // namespace shimctl::records
